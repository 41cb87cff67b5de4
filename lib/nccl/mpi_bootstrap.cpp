// MPI initialisation on demand and communicator formation from a unique id (mpi_bootstrap.h).
#include "nccl/mpi_bootstrap.h"

#include <cstdlib>
#include <string>

#include "client/mpi_startup.h"
#include "nccl/shim_support.h"
#include "nccl/unique_id.h"

namespace hetccl_nccl {
namespace {

const char* mpiErrorText(int code, char (&buffer)[MPI_MAX_ERROR_STRING]) {
  int length = 0;
  if (MPI_Error_string(code, buffer, &length) != MPI_SUCCESS) return "unknown MPI error";
  return buffer;
}

}  // namespace

ncclResult_t ensureMpiInitialised(const char* function) {
  std::string why;
  const hetccl_client::MpiStartup startup = hetccl_client::startMpiIfNeeded(&why);
  switch (startup) {
    case hetccl_client::MpiStartup::AlreadyRunning: return ncclSuccess;
    case hetccl_client::MpiStartup::StartedNow:
      // Runs after main returns, before the handlers registered earlier (the application's);
      // communicators the program did not destroy hold duplicated MPI communicators, which
      // MPI_Finalize releases.
      std::atexit(hetccl_client::finalizeMpiIfStartedHere);
      return ncclSuccess;
    case hetccl_client::MpiStartup::AlreadyFinalised: return fail(ncclInvalidUsage, function, "%s", why.c_str());
    case hetccl_client::MpiStartup::InitFailed: break;
  }
  return fail(ncclSystemError, function, "%s", why.c_str());
}

ncclResult_t splitWorldByToken(const char* function, uint64_t token, int nranks, int rank, MPI_Comm* out) {
  *out = MPI_COMM_NULL;
  MPI_Comm split = MPI_COMM_NULL;
  int code = MPI_Comm_split(MPI_COMM_WORLD, colourOfToken(token), rank, &split);
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    return fail(ncclSystemError, function, "MPI_Comm_split of MPI_COMM_WORLD failed: %s", mpiErrorText(code, text));
  }
  int size = 0, splitRank = 0;
  MPI_Comm_size(split, &size);
  MPI_Comm_rank(split, &splitRank);
  // With key = rank, ranks 0..nranks-1 given once each come out as split ranks 0..nranks-1;
  // a rank given twice or out of range shows up as a different split rank somewhere.
  bool mine = size == nranks && splitRank == rank;
  // One reduction answers every question on every member: the smallest and largest token (a
  // colour collision shows as two different tokens) and whether all members are consistent.
  uint64_t probe[3] = {token, ~token, mine ? 1u : 0u};
  code = MPI_Allreduce(MPI_IN_PLACE, probe, 3, MPI_UINT64_T, MPI_MIN, split);
  if (code != MPI_SUCCESS) {
    MPI_Comm_free(&split);
    char text[MPI_MAX_ERROR_STRING];
    return fail(ncclSystemError, function, "MPI_Allreduce over the new communicator failed: %s",
                mpiErrorText(code, text));
  }
  if (probe[0] != token || ~probe[1] != token) {
    MPI_Comm_free(&split);
    return fail(ncclInvalidUsage, function,
                "two unique ids used at the same time mapped to the same MPI colour; "
                "create the communicators one after the other or with new ids");
  }
  if (probe[2] != 1u) {
    MPI_Comm_free(&split);
    if (size != nranks)
      return fail(ncclInvalidArgument, function,
                  "%d process(es) of MPI_COMM_WORLD joined this unique id but nranks is %d: every "
                  "rank of the communicator must call with the same id and nranks (and, in "
                  "hetccl, every process of MPI_COMM_WORLD must create a communicator in the "
                  "same round, each with the id of its own group)",
                  size, nranks);
    if (splitRank != rank)
      return fail(ncclInvalidArgument, function,
                  "rank %d is out of range or given by more than one process (nranks %d)", rank, nranks);
    return fail(ncclInvalidArgument, function,
                "another process of this communicator gave an inconsistent rank or nranks");
  }
  *out = split;
  return ncclSuccess;
}

void sitOutSplitRound() {
  MPI_Comm none = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &none);
  if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
}

}  // namespace hetccl_nccl
