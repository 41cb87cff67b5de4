// Numbers as users write them in settings and on the tools' command lines: one grammar
// everywhere (byte sizes with suffixes are in byte_size.h).
#pragma once

#include <climits>
#include <string>

namespace hetccl {

// A whole decimal number in [lowest, highest]: digits, with a leading '-' only (no '+', no
// spaces, no fractions).  False on anything else or out of range; *value is then unchanged.
bool parseInteger(const std::string& text, long long lowest, long long highest, long long* value);
inline bool parseInteger(const std::string& text, long long* value) {
  return parseInteger(text, LLONG_MIN, LLONG_MAX, value);
}

// A finite decimal real number (strtod's grammar, without leading spaces).
bool parseReal(const std::string& text, double* value);

}  // namespace hetccl
