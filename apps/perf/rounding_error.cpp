#include "perf/rounding_error.h"

#include <cmath>

#include "perf/small_floats.h"

namespace hetccl_perf {

namespace {

// A well-mixed 32-bit value of (rank, index): splitmix64's finaliser.
uint32_t mix(int rank, size_t index) {
  uint64_t z = (uint64_t(uint32_t(rank)) << 40) ^ uint64_t(index) ^ 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return uint32_t(z ^ (z >> 31));
}

// (1 + m / 128) * 2^e, m in 0..127, e in -2..1: 8 significant bits.
double inputValue(int rank, size_t index) {
  const uint32_t h = mix(rank, index);
  return std::ldexp(1.0 + double(h & 127u) / 128.0, int((h >> 7) % 4u) - 2);
}

double valueOf(DataType type, uint16_t bits) {
  return type == DataType::Float16 ? halfBitsToFloat(bits) : bfloat16BitsToFloat(bits);
}

}  // namespace

bool measuresRoundingError(Collective collective, DataType type, RedOp op) {
  return (collective == Collective::AllReduce || collective == Collective::ReduceScatter) &&
         (type == DataType::Float16 || type == DataType::Bfloat16) && (op == RedOp::Sum || op == RedOp::Avg);
}

uint16_t errorInputBits(DataType type, int rank, size_t index) {
  const float value = float(inputValue(rank, index));  // exact in float and in both types
  return type == DataType::Float16 ? floatToHalfBits(value) : floatToBfloat16Bits(value);
}

double exactResult(DataType, RedOp op, int nranks, size_t index) {
  double sum = 0;
  for (int rank = 0; rank < nranks; ++rank) sum += inputValue(rank, index);
  return op == RedOp::Avg ? sum / nranks : sum;
}

double ulpError(DataType type, uint16_t bits, double exact) {
  const double value = valueOf(type, bits);
  if (!std::isfinite(value)) return INFINITY;
  const int fractionBits = type == DataType::Float16 ? 10 : 7;
  // The app's own converters (small_floats.h), not the library's.
  const double ulp = std::ldexp(1.0, std::ilogb(exact) - fractionBits);
  return std::fabs(value - exact) / ulp;
}

}  // namespace hetccl_perf
