// std::bit_cast before C++20: a value's bits as an integer of the same size, and back.  The
// checker compares results bit for bit, and the small-float conversions work on the bits.
#pragma once

#include <cstring>

namespace hetccl_perf {

template <typename To, typename From>
To bitCast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bitCast keeps every bit: the sizes must match");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

}  // namespace hetccl_perf
