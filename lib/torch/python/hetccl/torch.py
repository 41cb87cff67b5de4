"""Registers hetccl as the torch.distributed backend "hetccl".

    import hetccl.torch
    import torch.distributed as dist
    dist.init_process_group("hetccl", init_method=..., rank=rank, world_size=size)

Every rank must be a process of one MPI job (mpirun, or srun --mpi=pmix): hetccl communicates
over MPI, and torch's store is used only to find the MPI ranks of a group's members.  MPI is
initialised with MPI_THREAD_MULTIPLE unless the program did so, and finalised at exit if
hetccl initialised it.
"""
import atexit

import torch
import torch.distributed as dist

from . import _C

BACKEND = "hetccl"


def _create_process_group(store, rank, size, timeout):
    return _C.ProcessGroupHetccl(store, rank, size, timeout)


def _register():
    if int(torch.__version__.split(".")[0]) >= 2:
        try:
            dist.Backend.register_backend(BACKEND, _create_process_group, devices=["cpu"])
            return
        except TypeError:  # 2.0 has no devices argument
            pass
    dist.Backend.register_backend(BACKEND, _create_process_group)


def mpi_world():
    """(rank, size) of this process in MPI_COMM_WORLD (initialises MPI if needed): what
    init_process_group's rank and world_size should be."""
    return _C.mpi_world()


def finalize():
    """Frees every hetccl communicator and finalises MPI if hetccl initialised it; what exit
    does anyway, for programs that leave with os._exit."""
    _C.shutdown()


def _hetccl_group(group):
    pg = group if group is not None else dist.distributed_c10d._get_default_group()
    if not isinstance(pg, _C.ProcessGroupHetccl) and hasattr(pg, "_get_backend"):
        pg = pg._get_backend(torch.device("cpu"))
    if not isinstance(pg, _C.ProcessGroupHetccl):
        raise ValueError("not a hetccl process group")
    return pg


def last_algorithm(group=None):
    """hetccl's algorithm for the group's last operation, e.g. "hier" or "ring"."""
    return _hetccl_group(group).last_algorithm()


_register()
# Before torch's own exit handlers (atexit runs them last-registered first): communicators
# are freed, then MPI is finalised if hetccl initialised it.
atexit.register(_C.shutdown)
