// hetcclGetVersion, hetcclGetErrorString, hetcclGetLastError and the error bookkeeping the
// other entry points share.
#include <string>

#include "base/log.h"
#include "core/api_support.h"

namespace hetccl {

namespace {
std::string& threadLastError() {
  thread_local std::string message;
  return message;
}
}  // namespace

hetcclResult_t report(hetcclComm* comm, const Status& status) {
  if (status.isOk()) return hetcclSuccess;
  HETCCL_WARN("%s", status.message().c_str());
  threadLastError() = status.message();
  if (comm && isLiveCommunicator(comm)) comm->lastError = status.message();
  return static_cast<hetcclResult_t>(status.code());
}

Status checkCommunicator(const hetcclComm* comm) {
  if (!comm) return HETCCL_STATUS(Code::InvalidArgument, "comm is NULL");
  if (!isLiveCommunicator(comm))
    return HETCCL_STATUS(Code::InvalidArgument, "comm %p is not a live communicator (destroyed or never created)",
                         static_cast<const void*>(comm));
  const Status failure = communicatorFailure(*comm);
  if (!failure.isOk())
    return Status(failure.code(),
                  "communicator unusable after an earlier failure (" + failure.message() + "); abort and re-create it");
  return Status::ok();
}

}  // namespace hetccl

using hetccl::Code;

extern "C" {

hetcclResult_t hetcclGetVersion(int* version) {
  if (!version) return hetccl::report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "version is NULL"));
  *version = HETCCL_VERSION_CODE;
  return hetcclSuccess;
}

// No default branch: -Wswitch (an error here) then names any code added without a string.
const char* hetcclGetErrorString(hetcclResult_t result) {
  switch (result) {
    case hetcclSuccess: return "no error";
    case hetcclUnhandledDeviceError: return "unhandled device (CUDA/HIP/host) error";
    case hetcclSystemError: return "unhandled system error (MPI, OS)";
    case hetcclInternalError: return "internal error - please report this issue";
    case hetcclInvalidArgument: return "invalid argument";
    case hetcclInvalidUsage: return "invalid usage";
    case hetcclRemoteError: return "remote process exited or there was a network error";
    case hetcclInProgress: return "hetccl operation in progress";
    case hetcclTimeout: return "operation timed out";
    case hetcclNumResults: break;  // a count, not a code
  }
  return "unknown result code";  // also what a value outside the enumeration gets
}

const char* hetcclGetLastError(hetcclComm_t comm) {
  if (comm && hetccl::isLiveCommunicator(comm) && !comm->lastError.empty()) return comm->lastError.c_str();
  return hetccl::threadLastError().c_str();
}

}  // extern "C"
