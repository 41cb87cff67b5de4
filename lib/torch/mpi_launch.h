// MPI for a torch job: initialised by the backend unless the program did (mpi4py, say), and
// finalised at interpreter exit if the backend initialised it; and the MPI communicator of a
// torch group, whose members are found through the group's store (torch calls a backend only
// on a group's members, so no call may involve the others).
#pragma once

#include <mpi.h>  // without the C++ bindings (CMakeLists.txt defines OMPI_SKIP_MPICXX)

#include "torch_version.h"

namespace hetccl_torch {

// The world rank and size, initialising MPI with MPI_THREAD_MULTIPLE unless the program did
// (the clients' shared start-up, client/mpi_startup.h; module.cpp's shutdown, at interpreter
// exit after every group is freed, finalises MPI through it if it was started here); throws
// if MPI was finalised.
void mpiWorld(int* rank, int* size);

// A new MPI communicator over the group's members in group-rank order: each member publishes
// its MPI_COMM_WORLD rank in the store and reads the others'.  Throws with a clear message when
// the processes are not one MPI job (started without mpirun or srun --mpi=pmix: every process
// is then rank 0 of its own MPI_COMM_WORLD) or the group is larger than MPI_COMM_WORLD.
MPI_Comm groupCommunicator(c10d::Store& store, int groupRank, int groupSize);

}  // namespace hetccl_torch
