// Shared by the API entry points: turning a Status into a hetcclResult_t and remembering its
// message where hetcclGetLastError will look.
#pragma once

#include <exception>
#include <new>

#include "core/communicator.h"
#include "core/live_communicators.h"
#include "hetccl/hetccl.h"

namespace hetccl {

// The public code of an internal one (the internal-only codes, base/status.h, mapped here).
hetcclResult_t resultCode(Code code);
// Records the message of a failed status (on this thread, and on `comm` when the caller holds
// it) and returns its code; logs it at WARN.  `about`: the communicator the failure concerns
// when it is not held (hetcclGetLastError(about) on this thread then finds the message).
hetcclResult_t report(hetcclComm* comm, const Status& status, const hetcclComm* about = nullptr);
// Makes `failure` (the communicator's asynchronous error, already logged when it happened) what
// hetcclGetLastError(comm) says on this thread: a watchdog that found it wants its message.
void rememberAsyncError(const hetcclComm* comm, const Status& failure);
// An exception turned into a result at the C boundary (below): logged, remembered for
// hetcclGetLastError on this thread, never thrown itself.
hetcclResult_t reportException(const char* function, const char* what, Code code) noexcept;

// Runs an entry point's body so that no C++ exception crosses into C callers: running out of
// memory becomes hetcclSystemError, anything else hetcclInternalError, each with a message.
template <typename Body>
hetcclResult_t atBoundary(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return reportException(function, "out of memory", Code::SystemError);
  } catch (const std::exception& e) {
    return reportException(function, e.what(), Code::InternalError);
  } catch (...) {
    return reportException(function, "an unknown exception", Code::InternalError);
  }
}

// Of a communicator the caller holds (live_communicators.h): ok, or its poisoning error.
Status checkUsable(hetcclComm& comm);

}  // namespace hetccl
