// Error reporting of the drop-in: ncclGetErrorString, ncclGetLastError, ncclGetVersion, and the
// per-thread message that ties the shim's own checks and hetccl's messages together.
#include <cstdarg>
#include <cstdio>
#include <string>

#include "nccl/shim_support.h"

namespace hetccl_nccl {
namespace {

// NCCL's ncclGetLastError reports the last failure seen by the calling thread; failures found
// by the shim (which never reach hetccl) need the same home, so the message lives here.
std::string& threadLastError() {
  thread_local std::string message;
  return message;
}

}  // namespace

ncclResult_t toNcclResult(hetcclResult_t result) {
  switch (result) {
    case hetcclSuccess: return ncclSuccess;
    case hetcclUnhandledDeviceError: return ncclUnhandledCudaError;
    case hetcclSystemError: return ncclSystemError;
    case hetcclInternalError: return ncclInternalError;
    case hetcclInvalidArgument: return ncclInvalidArgument;
    case hetcclInvalidUsage: return ncclInvalidUsage;
    case hetcclRemoteError: return ncclRemoteError;
    case hetcclInProgress: return ncclInProgress;
    case hetcclTimeout: return ncclRemoteError;  // see shim_support.h
    default: return ncclInternalError;
  }
}

ncclResult_t fail(ncclResult_t code, const char* function, const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  threadLastError() = std::string("hetccl-nccl: ") + function + ": " + text;
  return code;
}

ncclResult_t unsupported(const char* function, const char* why) {
  ncclResult_t code = fail(ncclInvalidUsage, function, "not supported by hetccl: %s", why);
  std::fprintf(stderr, "%s\n", threadLastError().c_str());
  return code;
}

ncclResult_t forward(hetcclResult_t result, hetcclComm_t comm) {
  if (result == hetcclSuccess) return ncclSuccess;
  threadLastError() = hetcclGetLastError(comm);
  if (result == hetcclTimeout) threadLastError() += " (hetccl timeout, reported as ncclRemoteError)";
  return toNcclResult(result);
}

}  // namespace hetccl_nccl

using namespace hetccl_nccl;

extern "C" {

// The NCCL API version this shim implements (that of the nccl.h it was compiled against), not
// hetccl's: programs compare it with the NCCL_VERSION_CODE they were built with.
ncclResult_t ncclGetVersion(int* version) {
  if (!version) return fail(ncclInvalidArgument, "ncclGetVersion", "version is NULL");
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGetVersion);

const char* ncclGetErrorString(ncclResult_t result) {
  if (result >= ncclSuccess && result < ncclNumResults)
    return hetcclGetErrorString(static_cast<hetcclResult_t>(result));  // same values 0..7
  return "unknown result code";
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGetErrorString);

// This thread's last failure, whichever side found it; hetccl's message for the communicator
// when this thread has seen none (an asynchronous error, for example).
const char* ncclGetLastError(ncclComm_t comm) {
  if (!threadLastError().empty()) return threadLastError().c_str();
  return hetcclGetLastError(toHetccl(comm));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGetLastError);

// Deprecated in nccl.h and outside NCCL's API proper, but exported by NCCL, so defined (as a
// no-op: hetccl reads HETCCL_DEBUG once) for programs that still call it to load.  Written out
// twice because the profiling alias would name the deprecated declaration.
void ncclResetDebugInit() {}
void pncclResetDebugInit() {}

}  // extern "C"
