// When the drop-in starts MPI, which every rank's traffic runs over.
//
// Frameworks create communicators lazily, by their members only, in an order that differs
// between ranks (PyTorch's ProcessGroupNCCL, Megatron): a rank may wait, outside any NCCL call,
// for an id that another rank makes only after its own first creation.  MPI's start cannot
// wait until then: MPI_Init is a step of the whole job (Open MPI's returns only once every
// process has called it), and the job channel hetccl makes right after it (hetcclJobInit) is
// too.  So under an MPI launcher (mpirun, srun; its environment says so) the drop-in starts MPI
// when it is loaded, before the program runs, on every process alike; and it answers the
// program's own MPI_Init and MPI_Init_thread (interposed, as MPI's profiling interface allows)
// with that start, instead of the error a second initialisation would be.  A program whose MPI
// was started before the drop-in loaded gets the job channel at its first id or creation
// instead (hetccl logs a warning then).  Without a launcher MPI starts on first use, as a job
// of one process.  MPI is finalised at process exit if the drop-in started it, never earlier:
// MPI cannot be initialised twice, and a program may destroy its last communicator and create
// another.
#pragma once

#include <nccl.h>

namespace hetccl_nccl {

// Ready for hetccl: MPI initialised (here, if nobody has: MPI_Init_thread(MPI_THREAD_MULTIPLE),
// then the job channel).  ncclInvalidUsage if MPI has been finalised.
ncclResult_t ensureMpiInitialised(const char* function);

}  // namespace hetccl_nccl
