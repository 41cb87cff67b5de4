"""Tests of PyTorch's distributed suite that it gates by a backend's name (BACKEND == "mpi",
require_backend({"gloo"}), the "gpu" set used for CPU tests, ...) rather than by a feature set
hetccl could be entered in, while hetccl has the feature on CPU: the harness runs them anyway.
Only the gate named below is lifted; a test's other conditions (its own GPU checks, world size)
still apply, and a test that needs a GPU then skips itself.

Keyed by the suite's skip reason; the value says why hetccl may be held to the test.  A reason
with a test list lifts the gate for those tests only.
"""
import re

GATES = {
    "Only MPI supports all_to_all": ("all_to_all of CPU tensor lists is an operation of hetccl's", None),
    "Only MPI supports CPU all_to_all_single": ("all_to_all_single, equal and uneven splits, on CPU", None),
    # (Not test_accumulate_gradients_no_sync*: their bodies build a model for mpi, gloo or nccl
    # by name, and none for another backend.)
    "get_future is only supported on mpi, nccl and gloo": (
        "every hetccl Work has a future, completed with the operation (DDP's reducer relies on it)",
        ["test_get_future"]),
    # (Not the barrier-timeout tests: they leave the group with a barrier only rank 0 joined,
    # which every later test in the same processes would inherit; upstream ran them, for Gloo
    # only, in processes of their own.  collectives.py checks hetccl's timeouts.)
    "GLOO Batch Send Recv CPU": ("batch_isend_irecv of CPU tensors", None),
    "Test requires backend to be one of {'gloo'}": (
        "all_reduce_coalesced and scatter_object_list on CPU (monitored_barrier stays out: c10d "
        "implements it for Gloo only)",
        [
            "test_all_reduce_coalesced_full_group_max", "test_all_reduce_coalesced_full_group_min",
            "test_all_reduce_coalesced_full_group_product", "test_all_reduce_coalesced_full_group_sum",
            "test_all_reduce_coalesced_group_max", "test_all_reduce_coalesced_group_min",
            "test_all_reduce_coalesced_group_product", "test_all_reduce_coalesced_group_sum",
            "test_all_reduce_coalesced_max", "test_all_reduce_coalesced_min",
            "test_all_reduce_coalesced_product", "test_all_reduce_coalesced_sum", "test_scatter_object_list",
        ]),
    # The "gpu" set (nccl, gloo) also gates CPU tests: object collectives, DDP over CPU modules.
    "Test requires backend to be one of {'gloo', 'nccl'}": (  # sorted: see normalised()
        "the suite's \"gpu\" set, which also gates CPU tests (object collectives, DDP on CPU); "
        "the GPU tests among them still skip themselves", None),
}

def normalised(reason):
    """The reason with each set literal's members sorted: the suite formats sets with their
    hash order, which differs between processes (and so between ranks)."""
    def sort_set(match):
        return "{" + ", ".join(sorted(part.strip() for part in match.group(1).split(","))) + "}"

    return re.sub(r"\{([^{}]*)\}", sort_set, reason) if reason else reason


def lift(test_class, names):
    """Gives `test_class` an ungated copy of each named test whose skip reason is in GATES;
    returns {name: why} for the tests so lifted."""
    lifted = {}
    for name in names:
        method = getattr(test_class, name)
        reason = normalised(getattr(method, "__unittest_skip_why__", None))
        if not getattr(method, "__unittest_skip__", False) or reason not in GATES:
            continue
        why, only = GATES[reason]
        if only is not None and name not in only:
            continue

        def ungated(self, _test=method):
            return _test(self)

        ungated.__name__ = name
        setattr(test_class, name, ungated)
        lifted[name] = why
    return lifted
