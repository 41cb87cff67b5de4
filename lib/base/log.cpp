#include "base/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace hetccl {

namespace {

LogLevel parseLevel(const char* text) {
  // As NCCL: silent unless asked (errors still come back as codes and hetcclGetLastError).
  if (!text || !*text) return LogLevel::None;
  std::string value(text);
  for (char& c : value) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
  if (value == "VERSION" || value == "NONE") return LogLevel::None;
  if (value == "INFO") return LogLevel::Info;
  if (value == "TRACE") return LogLevel::Trace;
  return LogLevel::Warn;
}

// The log sink is per process by nature (like NCCL's): opened once, never changed after.
struct LogSink {
  LogLevel level;
  FILE* file = stderr;
  std::mutex lock;
  char host[64] = "?";
  LogSink() : level(parseLevel(std::getenv("HETCCL_DEBUG"))) {
    gethostname(host, sizeof host - 1);
    if (char* dot = std::strchr(host, '.')) *dot = '\0';
    const char* pattern = std::getenv("HETCCL_DEBUG_FILE");
    if (pattern && *pattern) {
      std::string path;
      for (const char* c = pattern; *c; ++c) {
        if (c[0] == '%' && c[1] == 'h') { path += host; ++c; }
        else if (c[0] == '%' && c[1] == 'p') { path += std::to_string(getpid()); ++c; }
        else path += *c;
      }
      if (FILE* opened = std::fopen(path.c_str(), "w")) file = opened;
    }
  }
};

LogSink& sink() {
  static LogSink instance;
  return instance;
}

}  // namespace

LogLevel logLevel() { return sink().level; }

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
