// A flag whose value is a byte count ("-b 8", "-e 128M", "--chunk 512K"), in the library's
// one grammar (base/byte_size.h).
#pragma once

#include <cstddef>
#include <string>

#include "base/byte_size.h"
#include "common/option_values.h"

namespace hetccl_apps {

// The value of `argument` in bytes, at least `smallest`.
inline std::string readByteSize(const Argument& argument, size_t smallest, size_t* bytes) {
  size_t number = 0;
  if (!hetccl::parseByteSize(argument.value, &number) || number < smallest) {
    std::string expected = "bytes, with an optional K, M or G: 8, 64K, 2M";
    if (smallest > 0) expected = "at least " + std::to_string(smallest) + " " + expected;
    return invalidValue(argument, expected);
  }
  *bytes = number;
  return "";
}

}  // namespace hetccl_apps
