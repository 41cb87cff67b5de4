// Logging in the manner of NCCL_DEBUG: HETCCL_DEBUG=WARN|INFO|TRACE (default: nothing) selects
// what is printed to stderr (or to HETCCL_DEBUG_FILE, where %h becomes the host name and %p
// the process id), each line prefixed "host:pid:tid HETCCL LEVEL".
#pragma once

#include "base/status.h"

namespace hetccl {

enum class LogLevel : int { None = 0, Warn = 1, Info = 2, Trace = 3 };

// The level chosen by HETCCL_DEBUG, read once per process (WARN when the value is bad: the
// error then surfaces at communicator creation, which checks every setting).
LogLevel logLevel();
// Whether HETCCL_DEBUG_FILE could be opened (messages go to stderr when it could not):
// communicator creation fails with this error rather than losing the log silently.
Status logDestinationStatus();
void logMessage(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace hetccl

#define HETCCL_LOG_AT(level, ...)                                                                                      \
  do {                                                                                                                 \
    if (static_cast<int>(::hetccl::logLevel()) >= static_cast<int>(level)) ::hetccl::logMessage((level), __VA_ARGS__); \
  } while (0)
#define HETCCL_WARN(...) HETCCL_LOG_AT(::hetccl::LogLevel::Warn, __VA_ARGS__)
#define HETCCL_INFO(...) HETCCL_LOG_AT(::hetccl::LogLevel::Info, __VA_ARGS__)
#define HETCCL_TRACE(...) HETCCL_LOG_AT(::hetccl::LogLevel::Trace, __VA_ARGS__)
