// How the drop-in finds a communicator's ranks: over MPI, which hetccl runs on anyway.
//
// NCCL programs launched by mpirun or srun usually initialise MPI themselves (to broadcast the
// unique id); others never touch MPI.  The drop-in therefore initialises MPI only when nobody
// has, and then finalises it at process exit (an atexit hook), never earlier: MPI cannot be
// initialised twice, and a program may destroy its last communicator and create another.
// The start-up itself is the clients' shared one (client/mpi_startup.h).
#pragma once

#include <cstdint>

#include <mpi.h>
#include <nccl.h>

namespace hetccl_nccl {

// MPI_Init_thread(MPI_THREAD_MULTIPLE) unless MPI is already initialised; ncclInvalidUsage if
// MPI has been finalised.
ncclResult_t ensureMpiInitialised(const char* function);

// The processes that called with this token, as an MPI communicator ranked by `rank`:
// MPI_Comm_split of MPI_COMM_WORLD by the token's colour.  Collective over MPI_COMM_WORLD.
// Checks, on every member at once (so they fail together rather than hang), that exactly
// `nranks` processes joined, that their ranks are 0..nranks-1 once each, and that no other
// communicator's token collided with this one's colour.  The caller frees *out.
ncclResult_t splitWorldByToken(const char* function, uint64_t token, int nranks, int rank, MPI_Comm* out);

// Takes part in the MPI_Comm_split round without joining any communicator, for a process whose
// own arguments were invalid: the others then see too few members and fail instead of waiting.
void sitOutSplitRound();

}  // namespace hetccl_nccl
