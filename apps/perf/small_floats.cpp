#include "perf/small_floats.h"

#include <cmath>

#include "perf/bit_cast.h"

namespace hetccl_perf {

namespace {

uint32_t floatBits(float f) { return bitCast<uint32_t>(f); }
float bitsFloat(uint32_t u) { return bitCast<float>(u); }

// Keeps the bits above `shift`, rounding the dropped ones to nearest, ties to even.  A carry
// out of the kept mantissa correctly bumps the exponent (and overflows into infinity).
uint32_t shiftRoundNearestEven(uint32_t value, unsigned shift) {
  uint32_t kept = value >> shift;
  uint32_t dropped = value & ((1u << shift) - 1);
  uint32_t halfway = 1u << (shift - 1);
  if (dropped > halfway || (dropped == halfway && (kept & 1u))) ++kept;
  return kept;
}

}  // namespace

uint16_t floatToHalfBits(float value) {
  const uint32_t x = floatBits(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t magnitude = x & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN stays NaN
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  if (exponent > 15) return static_cast<uint16_t>(sign | 0x7C00u);  // too large: infinity
  const uint32_t mantissa = magnitude & 0x7FFFFFu;
  if (exponent >= -14) {
    // Normal half: re-bias the exponent, keep 10 of the 23 mantissa bits.
    uint32_t h = (static_cast<uint32_t>(exponent + 15) << 23 | mantissa);
    return static_cast<uint16_t>(sign | shiftRoundNearestEven(h, 13));
  }
  if (exponent < -25) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
  // Subnormal half: count in units of 2^-24.  The value is significand * 2^(exponent-23) with
  // the implicit bit restored, i.e. significand >> -(exponent+1) units.
  const uint32_t significand = mantissa | 0x800000u;
  const unsigned shift = static_cast<unsigned>(-(exponent + 1));  // 14 .. 24
  return static_cast<uint16_t>(sign | shiftRoundNearestEven(significand, shift));
}

float halfBitsToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) {
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // exact
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return bitsFloat(sign | 0x7F800000u | (mantissa << 13));
  return bitsFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t floatToBfloat16Bits(float value) {
  const uint32_t x = floatBits(value);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  // bfloat16 is the top half of a float: round the low 16 bits away.  Sign stays in place
  // because the carry can never reach bit 31 from a finite value below infinity's pattern.
  const uint32_t sign = x & 0x80000000u;
  return static_cast<uint16_t>((sign >> 16) | shiftRoundNearestEven(x & 0x7FFFFFFFu, 16));
}

float bfloat16BitsToFloat(uint16_t bits) { return bitsFloat(static_cast<uint32_t>(bits) << 16); }

}  // namespace hetccl_perf
