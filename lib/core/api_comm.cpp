// Communicator life: hetcclCommInitMPI, Destroy, Abort, Count, UserRank, GetAsyncError.
#include "core/api_support.h"

using hetccl::Code;
using hetccl::report;

extern "C" {

hetcclResult_t hetcclCommInitMPI(hetcclComm_t* comm, MPI_Comm mpiComm, const hetcclConfig_t* config) {
  if (!comm) return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "comm (the output pointer) is NULL"));
  *comm = nullptr;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return report(nullptr, HETCCL_STATUS(Code::InvalidUsage, "MPI is not initialised (call MPI_Init first)"));
  if (mpiComm == MPI_COMM_NULL)
    return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "mpiComm is MPI_COMM_NULL"));
  return report(nullptr, hetccl::createCommunicator(mpiComm, config, comm));
}

hetcclResult_t hetcclCommDestroy(hetcclComm_t comm) {
  if (!comm) return hetcclSuccess;  // as NCCL: destroying NULL is a no-op
  if (!hetccl::isLiveCommunicator(comm))
    return report(nullptr,
                  HETCCL_STATUS(Code::InvalidArgument, "comm %p is not a live communicator", static_cast<void*>(comm)));
  hetccl::destroyCommunicator(comm, false);
  return hetcclSuccess;
}

hetcclResult_t hetcclCommAbort(hetcclComm_t comm) {
  if (!comm) return hetcclSuccess;
  if (!hetccl::isLiveCommunicator(comm))
    return report(nullptr,
                  HETCCL_STATUS(Code::InvalidArgument, "comm %p is not a live communicator", static_cast<void*>(comm)));
  hetccl::destroyCommunicator(comm, true);
  return hetcclSuccess;
}

hetcclResult_t hetcclCommCount(const hetcclComm_t comm, int* count) {
  if (!hetccl::isLiveCommunicator(comm)) return report(nullptr, hetccl::checkCommunicator(comm));
  if (!count) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "count is NULL"));
  *count = comm->nranks;
  return hetcclSuccess;
}

hetcclResult_t hetcclCommUserRank(const hetcclComm_t comm, int* rank) {
  if (!hetccl::isLiveCommunicator(comm)) return report(nullptr, hetccl::checkCommunicator(comm));
  if (!rank) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "rank is NULL"));
  *rank = comm->rank;
  return hetcclSuccess;
}

hetcclResult_t hetcclCommGetAsyncError(hetcclComm_t comm, hetcclResult_t* asyncError) {
  if (!hetccl::isLiveCommunicator(comm)) return report(nullptr, hetccl::checkCommunicator(comm));
  if (!asyncError) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "asyncError is NULL"));
  // The vendor library's own, for operations it took whole and finished after returning.
  if (comm->poisoned.isOk() && comm->connection.islandLibrary) {
    hetccl::Status vendor = comm->connection.islandLibrary->asyncError();
    if (!vendor.isOk()) comm->poisoned = vendor;
  }
  *asyncError = static_cast<hetcclResult_t>(hetccl::communicatorFailure(*comm).code());
  return hetcclSuccess;
}

hetcclResult_t hetcclCommGetAlgorithm(hetcclComm_t comm, const char** algorithm) {
  if (!hetccl::isLiveCommunicator(comm)) return report(nullptr, hetccl::checkCommunicator(comm));
  if (!algorithm) return report(comm, HETCCL_STATUS(Code::InvalidArgument, "algorithm is NULL"));
  *algorithm = comm->lastAlgorithm.c_str();
  return hetcclSuccess;
}

}  // extern "C"
