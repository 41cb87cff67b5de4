// Reading a flag's value: whole integers within a range, positive real numbers, text, each with
// the message a user gets when the value is wrong.  The readers return "" or that message
// ("invalid value for -n: '0' (an integer >= 1)"), so an app's option code is one line per
// flag.  The grammars are the library's own (base/numbers.h), as for the HETCCL_* settings;
// byte sizes are in byte_size_option.h.
#pragma once

#include <string>

#include "base/numbers.h"
#include "common/command_line.h"

namespace hetccl_apps {

// A finite real number > 0 ("0.1", "1e-5"), in base/numbers.h's grammar.
bool parsePositiveReal(const std::string& text, double* value);

// "an integer >= 1", "0 or 1", "an integer from 1 to 64": what parseInteger accepts, in words.
std::string describeIntegerRange(long long lowest, long long highest);

// "invalid value for -f: '1' (an integer >= 2)".
std::string invalidValue(const Argument& argument, const std::string& expected);

// The value of `argument` as an integer of type T in [lowest, highest].
template <typename T>
std::string readInteger(const Argument& argument, long long lowest, long long highest, T* value) {
  long long number = 0;
  if (!hetccl::parseInteger(argument.value, lowest, highest, &number))
    return invalidValue(argument, describeIntegerRange(lowest, highest));
  *value = static_cast<T>(number);
  return "";
}

template <typename T>
std::string readPositiveReal(const Argument& argument, T* value) {
  double number = 0;
  if (!parsePositiveReal(argument.value, &number)) return invalidValue(argument, "a number > 0");
  *value = static_cast<T>(number);
  return "";
}

// A non-empty value (a name, a file).
std::string readText(const Argument& argument, std::string* value);

}  // namespace hetccl_apps
