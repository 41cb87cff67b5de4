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
// The communicator this thread's last error concerned (nullptr: none).
const hetcclComm*& threadLastErrorComm() {
  thread_local const hetcclComm* comm = nullptr;
  return comm;
}
}  // namespace

hetcclResult_t resultCode(Code code) {
  if (code == Code::Aborted) return hetcclInvalidUsage;
  if (code == Code::PeerLost) return hetcclRemoteError;
  return static_cast<hetcclResult_t>(code);
}

hetcclResult_t reportException(const char* function, const char* what, Code code) noexcept {
  try {
    return report(nullptr, HETCCL_STATUS(code, "%s: %s", function, what));
  } catch (...) {
    return resultCode(code);  // not even the message could be made
  }
}

hetcclResult_t report(hetcclComm* comm, const Status& status, const hetcclComm* about) {
  if (status.isOk()) return hetcclSuccess;
  HETCCL_WARN("%s", status.message().c_str());
  threadLastError() = status.message();
  threadLastErrorComm() = comm ? comm : about;
  if (comm) comm->lastError = status.message();
  return resultCode(status.code());
}

void rememberAsyncError(const hetcclComm* comm, const Status& failure) {
  if (failure.isOk()) return;
  threadLastError() = failure.message();
  threadLastErrorComm() = comm;
}

Status checkUsable(hetcclComm& comm) {
  const Status failure = communicatorFailure(comm);
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
  // This thread's own last failure on `comm` first: another thread may have failed on it since.
  if (comm && hetccl::threadLastErrorComm() == comm) return hetccl::threadLastError().c_str();
  hetccl::CommunicatorHold hold;
  if (comm && hold.acquire(comm, false).isOk() && !comm->lastError.empty()) return comm->lastError.c_str();
  return hetccl::threadLastError().c_str();
}

}  // extern "C"
