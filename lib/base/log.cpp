#include "base/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "base/settings_reader.h"

namespace hetccl {

namespace {

// As NCCL: silent unless asked (errors still come back as codes and hetcclGetLastError).
LogLevel levelFromSettings() {
  LogLevel level = LogLevel::None;
  if (!readEnum(SettingId::Debug, &level).isOk()) return LogLevel::Warn;
  return level;
}

// The log sink is per process by nature (like NCCL's): opened once, never changed after.
struct LogSink {
  LogLevel level;
  FILE* file = stderr;
  std::mutex lock;
  char host[64] = "?";
  Status destination;
  LogSink() : level(levelFromSettings()) {
    gethostname(host, sizeof host - 1);
    if (char* dot = std::strchr(host, '.')) *dot = '\0';
    // Only a log that will be written needs its file (NCCL also ignores NCCL_DEBUG_FILE then).
    const std::string pattern = level == LogLevel::None ? std::string() : readText(SettingId::DebugFile);
    if (!pattern.empty()) {
      std::string path;
      for (const char* c = pattern.c_str(); *c; ++c) {
        if (c[0] == '%' && c[1] == 'h') {
          path += host;
          ++c;
        } else if (c[0] == '%' && c[1] == 'p') {
          path += std::to_string(getpid());
          ++c;
        } else
          path += *c;
      }
      if (FILE* opened = std::fopen(path.c_str(), "w"))
        file = opened;
      else
        destination = HETCCL_STATUS(Code::InvalidArgument, "HETCCL_DEBUG_FILE=%s: cannot open %s for writing: %s",
                                    pattern.c_str(), path.c_str(), std::strerror(errno));
    }
  }
};

LogSink& sink() {
  static LogSink instance;
  return instance;
}

}  // namespace

LogLevel logLevel() { return sink().level; }

Status logDestinationStatus() { return sink().destination; }

void logMessage(LogLevel level, const char* fmt, ...) {
  static const char* names[] = {"", "WARN", "INFO", "TRACE"};
  LogSink& out = sink();
  char text[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  std::lock_guard<std::mutex> guard(out.lock);
  std::fprintf(out.file, "%s:%d:%ld HETCCL %s %s\n", out.host, static_cast<int>(getpid()),
               static_cast<long>(syscall(SYS_gettid)), names[static_cast<int>(level)], text);
  std::fflush(out.file);
}

}  // namespace hetccl
