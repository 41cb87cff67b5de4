// printf into a std::string, for the apps' tables and reports (lines, not megabytes: one
// 512-byte buffer is plenty, longer output is cut there).
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace hetccl_apps {

inline std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char* fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

}  // namespace hetccl_apps
