#include "base/status.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace hetccl {

std::string formatAt(const char* file, int line, const char* fmt, ...) {
  // Keep only the path below lib/ so messages do not depend on where the tree was built.
  const char* shortFile = std::strstr(file, "lib/");
  char text[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  char out[1200];
  std::snprintf(out, sizeof out, "%s:%d %s", shortFile ? shortFile : file, line, text);
  return out;
}

}  // namespace hetccl
