#include "base/numbers.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace hetccl {

bool parseInteger(const std::string& text, long long lowest, long long highest, long long* value) {
  // strtoll would skip leading spaces and accept a '+'.
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || text[0] == '+') return false;
  char* end = nullptr;
  errno = 0;
  const long long number = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || errno != 0 || *end != '\0' || number < lowest || number > highest) return false;
  *value = number;
  return true;
}

bool parseReal(const std::string& text, double* value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || errno != 0 || *end != '\0' || !std::isfinite(number)) return false;
  *value = number;
  return true;
}

}  // namespace hetccl
