// Communicator life: hetcclCommInitMPI, Split, Destroy, Abort, Count, UserRank, GetAsyncError.
#include "core/api_support.h"
#include "core/bootstrap_mpi.h"
#include "core/group.h"
#include "core/rendezvous_mpi.h"

using hetccl::Code;
using hetccl::report;

extern "C" {

hetcclResult_t hetcclCommInitMPI(hetcclComm_t* comm, MPI_Comm mpiComm, const hetcclConfig_t* config) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!comm) return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "comm (the output pointer) is NULL"));
    *comm = nullptr;
    if (hetccl::Status running = hetccl::checkMpiRunning(); !running.isOk()) return report(nullptr, running);
    if (mpiComm == MPI_COMM_NULL)
      return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "mpiComm is MPI_COMM_NULL"));
    // Over every process of the job, this call is as good a moment as MPI's start to make the
    // job channel (a collective of all of them, which they are all in): communicators made
    // from unique ids later need it, also the NCCL drop-in's standing in as an island library.
    int size = 0;
    MPI_Comm_size(mpiComm, &size);
    if (size == hetccl::mpiJobSize()) {
      if (hetccl::Status made = hetccl::ensureJobChannel("hetcclJobInit"); !made.isOk()) return report(nullptr, made);
    }
    std::unique_ptr<hetccl::Bootstrap> members;
    hetccl::Status status = hetccl::MpiBootstrap::duplicate(mpiComm, &members);
    if (status.isOk()) status = hetccl::createCommunicator(std::move(members), config, comm);
    return report(nullptr, status);
  });
}

hetcclResult_t hetcclCommSplit(hetcclComm_t comm, int color, int key, hetcclComm_t* newcomm,
                               const hetcclConfig_t* config) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (newcomm) *newcomm = nullptr;
    hetccl::CommunicatorHold hold;
    if (hetccl::Status held = hold.acquire(comm, true); !held.isOk()) return report(nullptr, held, comm);
    hetccl::Status status = hetccl::checkUsable(*comm);
    if (!status.isOk()) return report(comm, status);  // its peers may be gone: MPI could hang
    // The split is a collective of the bootstrap hetccl's own operations use (over MPI, the same
    // MPI communicator), so none may still be running on the progress thread.
    comm->engine->drain();
    status = comm->engine->asyncError();
    if (!status.isOk()) return report(comm, status);
    hetccl::Settings settings = comm->settings;
    hetccl::Status refusal;
    if (!newcomm)
      refusal = HETCCL_STATUS(Code::InvalidArgument, "newcomm (the output pointer) is NULL");
    else if (color < 0 && color != HETCCL_SPLIT_NOCOLOR)
      refusal = HETCCL_STATUS(Code::InvalidArgument, "color %d is negative (and not HETCCL_SPLIT_NOCOLOR)", color);
    else if (hetccl::insideGroup())
      refusal = HETCCL_STATUS(Code::InvalidUsage, "hetcclCommSplit inside a group (call it outside GroupStart/End)");
    else if (config)
      refusal = hetccl::loadSettings(config, &settings);
    // A refused rank still takes part, joining no part, so that the others do not wait for it.
    const bool joins = refusal.isOk() && color != HETCCL_SPLIT_NOCOLOR;
    std::unique_ptr<hetccl::Bootstrap> part;
    status = comm->members->split(joins ? color : -1, key, &part);
    if (!status.isOk()) return report(comm, status);
    if (!refusal.isOk()) return report(comm, refusal);
    if (!part) return hetcclSuccess;
    return report(comm, hetccl::createCommunicator(std::move(part), settings, newcomm));
  });
}

hetcclResult_t hetcclCommDestroy(hetcclComm_t comm) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!comm) return hetcclSuccess;  // as NCCL: destroying NULL is a no-op
    return report(nullptr, hetccl::destroyCommunicator(comm, false), comm);
  });
}

// Safe from any thread, also while another is inside a call on `comm` (a watchdog's abort).
hetcclResult_t hetcclCommAbort(hetcclComm_t comm) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!comm) return hetcclSuccess;
    return report(nullptr, hetccl::destroyCommunicator(comm, true), comm);
  });
}

// The queries below only hold the communicator (they may run while another thread is inside
// an operation on it, as a watchdog's do).
hetcclResult_t hetcclCommCount(const hetcclComm_t comm, int* count) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::CommunicatorHold hold;
    if (hetccl::Status held = hold.acquire(comm, false); !held.isOk()) return report(nullptr, held, comm);
    if (!count) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "count is NULL"));
    *count = comm->nranks;
    return hetcclSuccess;
  });
}

hetcclResult_t hetcclCommUserRank(const hetcclComm_t comm, int* rank) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::CommunicatorHold hold;
    if (hetccl::Status held = hold.acquire(comm, false); !held.isOk()) return report(nullptr, held, comm);
    if (!rank) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "rank is NULL"));
    *rank = comm->rank;
    return hetcclSuccess;
  });
}

hetcclResult_t hetcclCommGetAsyncError(hetcclComm_t comm, hetcclResult_t* asyncError) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::CommunicatorHold hold;
    if (hetccl::Status held = hold.acquire(comm, false); !held.isOk()) return report(nullptr, held, comm);
    if (!asyncError) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "asyncError is NULL"));
    // A non-blocking creation's progress first: until it ends, nothing else of comm is set.
    if (hetccl::Status made = hetccl::creationState(*comm); !made.isOk()) {
      if (made.code() != Code::InProgress) hetccl::rememberAsyncError(comm, made);
      *asyncError = hetccl::resultCode(made.code());
      return hetcclSuccess;
    }
    // The vendor library's own, for operations it took whole and finished after returning.
    if (comm->setup.islandLibrary) {
      hetccl::Status vendor = comm->setup.islandLibrary->asyncError();
      if (!vendor.isOk()) hetccl::poison(*comm, vendor);
    }
    const hetccl::Status failure = hetccl::communicatorFailure(*comm);
    hetccl::rememberAsyncError(comm, failure);
    *asyncError = hetccl::resultCode(failure.code());
    return hetcclSuccess;
  });
}

hetcclResult_t hetcclCommGetAlgorithm(hetcclComm_t comm, const char** algorithm) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::CommunicatorHold hold;
    if (hetccl::Status held = hold.acquire(comm, false); !held.isOk()) return report(nullptr, held, comm);
    if (!algorithm) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "algorithm is NULL"));
    *algorithm = comm->lastAlgorithm.c_str();
    return hetcclSuccess;
  });
}

hetcclResult_t hetcclCommGetPredictedTime(hetcclComm_t comm, double* seconds) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::CommunicatorHold hold;
    if (hetccl::Status held = hold.acquire(comm, false); !held.isOk()) return report(nullptr, held, comm);
    if (!seconds) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "seconds is NULL"));
    *seconds = comm->lastPredictedSeconds;
    return hetcclSuccess;
  });
}

}  // extern "C"
