// float16 and bfloat16 conversions for the app's own use: the expected values of the check
// and the MPI baseline's user reductions.  Written here on purpose, independent of the
// library's converters, so a rounding bug in the library cannot hide behind the same bug in
// the checker.  Float to small always rounds to nearest, ties to even (IEEE 754 default).
#pragma once

#include <cstdint>

namespace hetccl_perf {

uint16_t floatToHalfBits(float value);
float halfBitsToFloat(uint16_t bits);
uint16_t floatToBfloat16Bits(float value);
float bfloat16BitsToFloat(uint16_t bits);

}  // namespace hetccl_perf
