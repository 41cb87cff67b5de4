// Status: a result code plus a message that names the call site. Every internal function that
// can fail returns one; the public API turns it into hetcclResult_t and remembers the message
// for hetcclGetLastError.  Deliberately free of MPI and of the public header, so algorithms
// and devices can use it.
#pragma once

#include <string>
#include <utility>

namespace hetccl {

// Values up to Timeout are hetcclResult_t's; the ones after it exist only inside the library
// and are mapped to a public code at the C boundary (resultCode in core/api_support.h).
enum class Code : int {
  Success = 0,
  DeviceError = 1,
  SystemError = 2,
  InternalError = 3,
  InvalidArgument = 4,
  InvalidUsage = 5,
  RemoteError = 6,
  InProgress = 7,
  Timeout = 8,
  // The communicator was aborted (hetcclCommAbort) while the call ran: not a usage error of
  // the caller and not a peer's failure, so nothing is announced to the peers for it.  Public
  // code: hetcclInvalidUsage, as NCCL answers calls on an aborted communicator.
  Aborted = 100,
  // A posted transfer with a peer failed in the transport (MPI reported it): the peer or the
  // network is gone.  Public code: hetcclRemoteError, as NCCL reports a peer's death; unlike
  // a remote error heard from a peer on the control channel, it is announced to the others.
  PeerLost = 101,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }
  bool isOk() const { return code_ == Code::Success; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Code code_ = Code::Success;
  std::string message_;
};

// Formats "file:line message" (printf-style arguments).
std::string formatAt(const char* file, int line, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace hetccl

#define HETCCL_STATUS(code, ...) ::hetccl::Status((code), ::hetccl::formatAt(__FILE__, __LINE__, __VA_ARGS__))

// Returns from the enclosing function when `expr` yields a failed Status.
#define HETCCL_TRY(expr)                                       \
  do {                                                         \
    ::hetccl::Status hetccl_try_status_ = (expr);              \
    if (!hetccl_try_status_.isOk()) return hetccl_try_status_; \
  } while (0)
