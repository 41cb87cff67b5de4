"""Where "hetccl" is entered in the feature and skip sets of PyTorch's distributed test suite
(common_distributed.DistTestCases), and why.  The suite reads these sets when its module is
imported (its skip decorators are evaluated then), so register() runs before that import.

Entered in (the backend does what the set promises, on CPU tensors):
  plugin    hetccl is a third-party backend registered through Backend.register_backend; the
            suite then treats it as available and overrides subgroups' backends with Gloo.
  ddp       DistributedDataParallel over CPU modules works (DDP needs every Work's future
            completed, which the backend does; test/torch/ddp_matches_gloo.sh checks training).

Left out:
  gpu, cuda  the backend takes CPU tensors only (GPU tensors go through PyTorch's own nccl
             backend over hetccl's NCCL drop-in).
  subgroup   the set's promise is "creating subgroups on CUDA devices": every test it gates
             needs GPUs.  hetccl's CPU subgroups run in the suite's *_full_group and group
             tests, which no set gates.
No skip_collective set gets hetccl: it has reduce, CPU barrier, all_gather_coalesced and
receives from any source.
"""

FEATURES = {
    "plugin": "third-party backend registered with Backend.register_backend",
    "ddp": "DistributedDataParallel over CPU modules",
}

BACKEND = "hetccl"


def register():
    """Enters the backend in the sets above; returns them for the report."""
    from torch.testing._internal.common_distributed import DistTestCases

    for feature in FEATURES:
        DistTestCases.backend_feature[feature].add(BACKEND)
    for collective, backends in DistTestCases.skip_collective.items():
        assert BACKEND not in backends, f"{BACKEND} is in the suite's skip set {collective!r}"
    return sorted(FEATURES)
