#include "perf/expected_values.h"

#include <cmath>
#include <cstring>

#include "perf/bit_cast.h"
#include "perf/small_floats.h"

namespace hetccl_perf {

namespace {

uint64_t floatBits(float f) { return bitCast<uint32_t>(f); }
uint64_t doubleBits(double d) { return bitCast<uint64_t>(d); }

uint64_t typeMask(DataType type) {
  const size_t bytes = hetccl::elementSize(type);
  return bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
}

// The largest integer magnitude a sum may reach and stay exact in `type` (and, for the
// narrow integers, stay in range, so avg's division sees the true sum).
int64_t exactIntegerLimit(DataType type) {
  switch (type) {
    case DataType::Int8: return 127;
    case DataType::Uint8: return 255;
    case DataType::Float16: return 2048;  // 11 significant bits
    case DataType::Bfloat16: return 256;  // 8 significant bits
    case DataType::Float32: return int64_t{1} << 24;
    default: return int64_t{1} << 30;
  }
}

// The most factors of two a product may collect and stay exact and in range in `type`
// (float16's largest power of two is 2^15).
int maxPowerOfTwo(DataType type) {
  switch (type) {
    case DataType::Int8: return 6;
    case DataType::Uint8: return 7;
    case DataType::Int32: return 30;
    case DataType::Uint32: return 31;
    case DataType::Int64: return 62;
    case DataType::Uint64: return 63;
    case DataType::Float16: return 15;
    case DataType::Float64: return 1023;
    default: return 127;  // float, bfloat16
  }
}

// Sum and avg inputs: values in [-a, a] (signed types) or [0, 2a] (unsigned), with a <= 2
// chosen so that nranks of them never leave the exact range.  With too many ranks even for
// a = 1, exactly one rank contributes a 1 per element.
int64_t sumInput(DataType type, int nranks, int rank, size_t index) {
  const int64_t limit = exactIntegerLimit(type);
  const bool isSigned = dataTypeIsSigned(type);
  int64_t amplitude = limit / (isSigned ? nranks : 2 * int64_t{nranks});
  if (amplitude > 2) amplitude = 2;
  if (amplitude == 0) return index % static_cast<size_t>(nranks) == static_cast<size_t>(rank);
  const uint64_t spread = static_cast<uint64_t>(2 * amplitude + 1);
  const int64_t v = static_cast<int64_t>((uint64_t(rank) * 7 + index) % spread);
  return isSigned ? v - amplitude : v;
}

// Prod inputs: +-1 or +-2, so every partial product is +-2^k.  Only the first
// maxPowerOfTwo(type) ranks may contribute a 2, which bounds k; signs only for signed types.
struct PowerOfTwo {
  bool negative;
  int exponent;  // 0 or 1
};

PowerOfTwo prodInput(DataType type, int rank, size_t index) {
  PowerOfTwo p;
  p.exponent = (rank < maxPowerOfTwo(type) && (uint64_t(rank) + index) % 3 == 0) ? 1 : 0;
  p.negative = dataTypeIsSigned(type) && (uint64_t(rank) * 5 + index) % 7 == 0;
  return p;
}

// Max and min inputs: [-8, 8] or [0, 16], exact in every type.
int64_t extremumInput(DataType type, int rank, size_t index) {
  const int64_t v = static_cast<int64_t>((uint64_t(rank) * 5 + index * 3) % 17);
  return dataTypeIsSigned(type) ? v - 8 : v;
}

// Data-movement inputs: [0, 100], exact in every type and different from rank to rank so a
// block delivered to the wrong place shows.
int64_t movedInput(int rank, size_t index) { return static_cast<int64_t>((uint64_t(rank) * 31 + index) % 101); }

// Reduction over all ranks of element `index` of their inputs.
uint64_t reducedBits(const PatternSpec& spec, size_t index) {
  const DataType t = spec.type;
  switch (spec.op) {
    case RedOp::Sum:
    case RedOp::Avg: {
      int64_t sum = 0;
      for (int r = 0; r < spec.nranks; ++r) sum += sumInput(t, spec.nranks, r, index);
      return spec.op == RedOp::Sum ? integerBits(t, sum) : averageBits(t, sum, spec.nranks);
    }
    case RedOp::Prod: {
      bool negative = false;
      int exponent = 0;
      for (int r = 0; r < spec.nranks; ++r) {
        PowerOfTwo p = prodInput(t, r, index);
        negative = negative != p.negative;
        exponent += p.exponent;
      }
      return powerOfTwoBits(t, negative, exponent);
    }
    case RedOp::Max:
    case RedOp::Min: {
      int64_t best = extremumInput(t, 0, index);
      for (int r = 1; r < spec.nranks; ++r) {
        int64_t v = extremumInput(t, r, index);
        if (spec.op == RedOp::Max ? v > best : v < best) best = v;
      }
      return integerBits(t, best);
    }
  }
  return 0;
}

}  // namespace

uint64_t integerBits(DataType type, int64_t value) {
  switch (type) {
    case DataType::Float16: return floatToHalfBits(static_cast<float>(value));
    case DataType::Bfloat16: return floatToBfloat16Bits(static_cast<float>(value));
    case DataType::Float32: return floatBits(static_cast<float>(value));
    case DataType::Float64: return doubleBits(static_cast<double>(value));
    default: return static_cast<uint64_t>(value) & typeMask(type);  // two's complement wrap
  }
}

uint64_t powerOfTwoBits(DataType type, bool negative, int exponent) {
  if (dataTypeIsInteger(type)) {
    uint64_t magnitude = exponent >= 64 ? 0 : uint64_t{1} << exponent;
    return (negative ? uint64_t{0} - magnitude : magnitude) & typeMask(type);
  }
  const double value = std::ldexp(negative ? -1.0 : 1.0, exponent);
  switch (type) {
    case DataType::Float16: return floatToHalfBits(static_cast<float>(value));
    case DataType::Bfloat16: return floatToBfloat16Bits(static_cast<float>(value));
    case DataType::Float32: return floatBits(static_cast<float>(value));
    default: return doubleBits(value);
  }
}

uint64_t averageBits(DataType type, int64_t sum, int nranks) {
  switch (type) {
    case DataType::Float16: return floatToHalfBits(static_cast<float>(sum) / static_cast<float>(nranks));
    case DataType::Bfloat16: return floatToBfloat16Bits(static_cast<float>(sum) / static_cast<float>(nranks));
    case DataType::Float32: return floatBits(static_cast<float>(sum) / static_cast<float>(nranks));
    case DataType::Float64: return doubleBits(static_cast<double>(sum) / static_cast<double>(nranks));
    default: return integerBits(type, sum / nranks);  // C++ integer division truncates toward zero
  }
}

uint64_t inputBits(const PatternSpec& spec, int rank, size_t index) {
  const DataType t = spec.type;
  if (!collectiveReduces(spec.collective)) return integerBits(t, movedInput(rank, index));
  switch (spec.op) {
    case RedOp::Sum:
    case RedOp::Avg: return integerBits(t, sumInput(t, spec.nranks, rank, index));
    case RedOp::Prod: {
      PowerOfTwo p = prodInput(t, rank, index);
      return powerOfTwoBits(t, p.negative, p.exponent);
    }
    case RedOp::Max:
    case RedOp::Min: return integerBits(t, extremumInput(t, rank, index));
  }
  return 0;
}

uint64_t expectedBits(const PatternSpec& spec, int rank, size_t count, size_t index) {
  const int n = spec.nranks;
  switch (spec.collective) {
    case Collective::AllReduce:
    case Collective::Reduce: return reducedBits(spec, index);
    case Collective::ReduceScatter: return reducedBits(spec, size_t(rank) * count + index);
    case Collective::AllGather: return inputBits(spec, static_cast<int>(index / count), index % count);
    case Collective::Broadcast: return inputBits(spec, spec.root, index);
    case Collective::AlltoAll:
      // Block b of my output is block `rank` of rank b's input.
      return inputBits(spec, static_cast<int>(index / count), size_t(rank) * count + index % count);
    case Collective::SendRecv: return inputBits(spec, (rank - 1 + n) % n, index);
  }
  return 0;
}

bool rankHasOutput(const PatternSpec& spec, int rank) {
  return spec.collective != Collective::Reduce || rank == spec.root;
}

void storeElement(void* base, size_t index, size_t elementSize, uint64_t bits) {
  unsigned char* p = static_cast<unsigned char*>(base) + index * elementSize;
  switch (elementSize) {
    case 1: {
      uint8_t v = static_cast<uint8_t>(bits);
      std::memcpy(p, &v, 1);
      break;
    }
    case 2: {
      uint16_t v = static_cast<uint16_t>(bits);
      std::memcpy(p, &v, 2);
      break;
    }
    case 4: {
      uint32_t v = static_cast<uint32_t>(bits);
      std::memcpy(p, &v, 4);
      break;
    }
    default: std::memcpy(p, &bits, 8); break;
  }
}

uint64_t loadElement(const void* base, size_t index, size_t elementSize) {
  const unsigned char* p = static_cast<const unsigned char*>(base) + index * elementSize;
  switch (elementSize) {
    case 1: {
      uint8_t v;
      std::memcpy(&v, p, 1);
      return v;
    }
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

void fillInput(const PatternSpec& spec, int rank, size_t elements, void* dst) {
  const size_t size = hetccl::elementSize(spec.type);
  for (size_t i = 0; i < elements; ++i) storeElement(dst, i, size, inputBits(spec, rank, i));
}

void fillExpected(const PatternSpec& spec, int rank, size_t count, size_t elements, void* dst) {
  const size_t size = hetccl::elementSize(spec.type);
  for (size_t i = 0; i < elements; ++i) storeElement(dst, i, size, expectedBits(spec, rank, count, i));
}

void fillPoison(const void* expected, size_t bytes, void* dst) {
  const unsigned char* in = static_cast<const unsigned char*>(expected);
  unsigned char* out = static_cast<unsigned char*>(dst);
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(~in[i]);
}

size_t countMismatches(const void* actual, const void* expected, size_t elements, size_t elementSize) {
  const unsigned char* a = static_cast<const unsigned char*>(actual);
  const unsigned char* e = static_cast<const unsigned char*>(expected);
  size_t wrong = 0;
  for (size_t i = 0; i < elements; ++i)
    if (std::memcmp(a + i * elementSize, e + i * elementSize, elementSize) != 0) ++wrong;
  return wrong;
}

}  // namespace hetccl_perf
