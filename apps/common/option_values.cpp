#include "common/option_values.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace hetccl_apps {

bool parseInteger(const std::string& text, long long lowest, long long highest, long long* value) {
  // strtoll would skip leading spaces and accept a '+': a flag's value is digits only (and a
  // '-' where the range allows negative numbers).
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || text[0] == '+')
    return false;
  char* end = nullptr;
  errno = 0;
  const long long number = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || number < lowest || number > highest) return false;
  *value = number;
  return true;
}

bool parseReal(const std::string& text, double* value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(number)) return false;
  *value = number;
  return true;
}

bool parsePositiveReal(const std::string& text, double* value) {
  double number = 0;
  if (!parseReal(text, &number) || number <= 0) return false;
  *value = number;
  return true;
}

std::string describeIntegerRange(long long lowest, long long highest) {
  if (highest == lowest + 1) return std::to_string(lowest) + " or " + std::to_string(highest);
  if (highest == LLONG_MAX || highest == INT_MAX) return "an integer >= " + std::to_string(lowest);
  return "an integer from " + std::to_string(lowest) + " to " + std::to_string(highest);
}

std::string invalidValue(const Argument& argument, const std::string& expected) {
  return "invalid value for " + argument.spelling + ": '" + argument.value + "' (" + expected + ")";
}

std::string readText(const Argument& argument, std::string* value) {
  if (argument.value.empty()) return invalidValue(argument, "a non-empty value");
  *value = argument.value;
  return "";
}

std::vector<std::string> splitList(const std::string& text, char separator) {
  std::vector<std::string> entries;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    entries.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return entries;
    start = end + 1;
  }
}

}  // namespace hetccl_apps
