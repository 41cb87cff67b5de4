#include "common/option_values.h"

#include <climits>

namespace hetccl_apps {

bool parsePositiveReal(const std::string& text, double* value) {
  double number = 0;
  if (!hetccl::parseReal(text, &number) || number <= 0) return false;
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

}  // namespace hetccl_apps
