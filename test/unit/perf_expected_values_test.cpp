// hetccl-perf's checker: the app's own half/bfloat16 rounding, the avg rule, and the claim the
// whole check rests on — with its inputs, a reduction gives the same bits in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "perf/bit_cast.h"
#include "perf/expected_values.h"
#include "perf/small_floats.h"

namespace hetccl_perf {
namespace {

float floatFromBits(uint32_t u) { return bitCast<float>(u); }

TEST(PerfSmallFloats, HalfRoundsToNearestEven) {
  EXPECT_EQ(floatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalfBits(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalfBits(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(floatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie, to even
  EXPECT_EQ(floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie, to even (up)
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7BFF);                          // largest finite
  EXPECT_EQ(floatToHalfBits(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7C00);  // halfway to 2^16: rounds to infinity
  EXPECT_EQ(floatToHalfBits(INFINITY), 0x7C00);
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);  // tie, to even (zero)
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(floatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 units: tie, to even
  EXPECT_EQ(floatToHalfBits(std::ldexp(1023.0f, -24) + std::ldexp(1.0f, -25)), 0x0400);
  EXPECT_EQ(floatToHalfBits(NAN) & 0x7C00, 0x7C00);
  EXPECT_NE(floatToHalfBits(NAN) & 0x03FF, 0);
}

TEST(PerfSmallFloats, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) continue;  // NaN payloads
    EXPECT_EQ(floatToHalfBits(halfBitsToFloat(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
  EXPECT_EQ(halfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfBitsToFloat(0xFBFF), -65504.0f);
}

TEST(PerfSmallFloats, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(floatToBfloat16Bits(1.0f), 0x3F80);
  EXPECT_EQ(floatToBfloat16Bits(-8.0f), 0xC100);
  EXPECT_EQ(floatToBfloat16Bits(1.0f / 3.0f), 0x3EAB);
  EXPECT_EQ(floatToBfloat16Bits(floatFromBits(0x3F808000u)), 0x3F80);  // tie, to even
  EXPECT_EQ(floatToBfloat16Bits(floatFromBits(0x3F818000u)), 0x3F82);  // tie, to even (up)
  EXPECT_EQ(floatToBfloat16Bits(floatFromBits(0x3F808001u)), 0x3F81);
  EXPECT_EQ(floatToBfloat16Bits(floatFromBits(0x7F7FFFFFu)), 0x7F80);  // rounds to infinity
  EXPECT_EQ(floatToBfloat16Bits(NAN) & 0x7F80, 0x7F80);
  EXPECT_NE(floatToBfloat16Bits(NAN) & 0x007F, 0);
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0) continue;
    EXPECT_EQ(floatToBfloat16Bits(bfloat16BitsToFloat(static_cast<uint16_t>(b))), b);
  }
}

TEST(PerfExpectedValues, AverageRounding) {
  // Half and bfloat16: the exact sum divided in float, then rounded to nearest even.
  EXPECT_EQ(averageBits(DataType::Float16, 1, 3), 0x3555u);
  EXPECT_EQ(averageBits(DataType::Float16, 2, 3), 0x3955u);
  EXPECT_EQ(averageBits(DataType::Float16, -5, 3), 0xBEABu);
  EXPECT_EQ(averageBits(DataType::Float16, 5, 7), 0x39B7u);
  EXPECT_EQ(averageBits(DataType::Float16, 7, 6), 0x3CABu);
  EXPECT_EQ(averageBits(DataType::Bfloat16, 1, 3), 0x3EABu);
  EXPECT_EQ(averageBits(DataType::Bfloat16, 7, 6), 0x3F95u);
  EXPECT_EQ(averageBits(DataType::Bfloat16, -5, 3), 0xBFD5u);
  EXPECT_EQ(averageBits(DataType::Bfloat16, 1, 6), 0x3E2Bu);
  // Float and double divide in their own type.
  EXPECT_EQ(averageBits(DataType::Float32, 1, 3), 0x3EAAAAABu);
  EXPECT_EQ(averageBits(DataType::Float32, 6, 4), 0x3FC00000u);  // 1.5
  double third = 1.0 / 3.0;
  uint64_t thirdBits;
  std::memcpy(&thirdBits, &third, sizeof third);
  EXPECT_EQ(averageBits(DataType::Float64, 1, 3), thirdBits);
  // Integers: C's truncating division of the exact sum.
  EXPECT_EQ(averageBits(DataType::Int32, 7, 4), 1u);
  EXPECT_EQ(averageBits(DataType::Int32, -7, 4), 0xFFFFFFFFu);   // -1.75 -> -1
  EXPECT_EQ(averageBits(DataType::Int8, -3, 4), 0u);             // -0.75 -> 0
  EXPECT_EQ(averageBits(DataType::Int64, -8, 4), ~uint64_t{1});  // -2
  EXPECT_EQ(averageBits(DataType::Uint8, 7, 4), 1u);
}

TEST(PerfExpectedValues, Encodings) {
  EXPECT_EQ(integerBits(DataType::Int8, -1), 0xFFu);
  EXPECT_EQ(integerBits(DataType::Uint32, 300), 300u);
  EXPECT_EQ(integerBits(DataType::Int64, -2), ~uint64_t{1});
  EXPECT_EQ(integerBits(DataType::Float16, -2), 0xC000u);
  EXPECT_EQ(integerBits(DataType::Bfloat16, 3), 0x4040u);
  EXPECT_EQ(integerBits(DataType::Float32, 1), 0x3F800000u);
  EXPECT_EQ(integerBits(DataType::Float64, 1), 0x3FF0000000000000u);
  EXPECT_EQ(powerOfTwoBits(DataType::Float16, false, 15), 0x7800u);
  EXPECT_EQ(powerOfTwoBits(DataType::Bfloat16, true, 3), 0xC100u);
  EXPECT_EQ(powerOfTwoBits(DataType::Float32, false, 127), 0x7F000000u);
  EXPECT_EQ(powerOfTwoBits(DataType::Int8, true, 6), 0xC0u);
  EXPECT_EQ(powerOfTwoBits(DataType::Uint8, false, 7), 0x80u);
  EXPECT_EQ(powerOfTwoBits(DataType::Uint64, false, 63), uint64_t{1} << 63);
}

// --- a reference reduction in each type's own arithmetic, one step at a time ---

bool isFloat(DataType t) { return !dataTypeIsInteger(t); }

double toDouble(DataType t, uint64_t bits) {
  switch (t) {
    case DataType::Float16: return halfBitsToFloat(static_cast<uint16_t>(bits));
    case DataType::Bfloat16: return bfloat16BitsToFloat(static_cast<uint16_t>(bits));
    case DataType::Float32: return floatFromBits(static_cast<uint32_t>(bits));
    default: {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
    }
  }
}

uint64_t fromDouble(DataType t, double v) {
  switch (t) {
    case DataType::Float16: return floatToHalfBits(static_cast<float>(v));
    case DataType::Bfloat16: return floatToBfloat16Bits(static_cast<float>(v));
    case DataType::Float32: {
      float f = static_cast<float>(v);
      uint32_t u;
      std::memcpy(&u, &f, sizeof u);
      return u;
    }
    default: {
      uint64_t u;
      std::memcpy(&u, &v, sizeof u);
      return u;
    }
  }
}

int64_t toSigned(DataType t, uint64_t bits) {
  const unsigned width = 8 * static_cast<unsigned>(hetccl::elementSize(t));
  if (!dataTypeIsSigned(t) || width == 64) return static_cast<int64_t>(bits);
  const uint64_t signBit = uint64_t{1} << (width - 1);
  return static_cast<int64_t>((bits ^ signBit) - signBit);  // sign-extend
}

// One step a (op) b for avg's sum phase and the other ops, rounding (floats) or wrapping
// (integers) like a device kernel would.
uint64_t combine(DataType t, RedOp op, uint64_t a, uint64_t b) {
  if (isFloat(t)) {
    const double x = toDouble(t, a), y = toDouble(t, b);
    switch (op) {
      case RedOp::Prod: return fromDouble(t, x * y);
      case RedOp::Max: return fromDouble(t, x > y ? x : y);
      case RedOp::Min: return fromDouble(t, x < y ? x : y);
      default: return fromDouble(t, x + y);
    }
  }
  const int64_t x = toSigned(t, a), y = toSigned(t, b);
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (op) {
    case RedOp::Prod: return integerBits(t, static_cast<int64_t>(ux * uy));
    case RedOp::Max: return integerBits(t, dataTypeIsSigned(t) ? std::max(x, y) : static_cast<int64_t>(std::max(a, b)));
    case RedOp::Min: return integerBits(t, dataTypeIsSigned(t) ? std::min(x, y) : static_cast<int64_t>(std::min(a, b)));
    default: return integerBits(t, static_cast<int64_t>(ux + uy));
  }
}

uint64_t finishAverage(DataType t, uint64_t sumBits, int n) {
  if (t == DataType::Float16 || t == DataType::Bfloat16)
    return fromDouble(t, static_cast<float>(toDouble(t, sumBits)) / static_cast<float>(n));
  if (t == DataType::Float32) return fromDouble(t, static_cast<float>(toDouble(t, sumBits)) / static_cast<float>(n));
  if (t == DataType::Float64) return fromDouble(t, toDouble(t, sumBits) / n);
  if (dataTypeIsSigned(t)) return integerBits(t, toSigned(t, sumBits) / n);
  return integerBits(t, static_cast<int64_t>(sumBits / static_cast<uint64_t>(n)));
}

// Every type, op and a spread of rank counts (300 exceeds bfloat16's exact range for the
// usual inputs and takes the one-contributor fallback).
TEST(PerfExpectedValues, AnyReductionOrderGivesTheExpectedBits) {
  for (DataType type : allDataTypes()) {
    for (RedOp op : allRedOps()) {
      for (int nranks : {1, 2, 3, 4, 5, 8, 13, 64, 300}) {
        PatternSpec spec;
        spec.collective = Collective::AllReduce;
        spec.type = type;
        spec.op = op;
        spec.nranks = nranks;
        // Forward, backward, and a stride permutation (when gcd(7, nranks) == 1).
        std::vector<std::vector<int>> orders(nranks % 7 == 0 ? 2 : 3);
        for (int r = 0; r < nranks; ++r) {
          orders[0].push_back(r);
          orders[1].push_back(nranks - 1 - r);
          if (orders.size() > 2) orders[2].push_back((r * 7 + 3) % nranks);
        }
        for (size_t i = 0; i < 64; ++i) {
          const uint64_t expected = expectedBits(spec, 0, 64, i);
          for (size_t k = 0; k < orders.size(); ++k) {
            uint64_t acc = inputBits(spec, orders[k][0], i);
            for (int j = 1; j < nranks; ++j) acc = combine(type, op, acc, inputBits(spec, orders[k][j], i));
            if (op == RedOp::Avg) acc = finishAverage(type, acc, nranks);
            ASSERT_EQ(acc, expected) << dataTypeName(type) << " " << redOpName(op) << " n=" << nranks << " i=" << i
                                     << " order " << k;
          }
        }
      }
    }
  }
}

TEST(PerfExpectedValues, HalfProductStaysFinite) {
  PatternSpec spec;
  spec.type = DataType::Float16;
  spec.op = RedOp::Prod;
  spec.nranks = 64;
  for (size_t i = 0; i < 16; ++i) {
    const uint64_t bits = expectedBits(spec, 0, 16, i);
    EXPECT_NE(bits & 0x7C00, 0x7C00u) << i;  // never infinity
  }
}

TEST(PerfExpectedValues, DataMovementMapping) {
  PatternSpec spec;
  spec.type = DataType::Int32;
  spec.nranks = 4;
  spec.root = 2;
  const size_t count = 5;
  spec.collective = Collective::AllGather;
  EXPECT_EQ(expectedBits(spec, 1, count, 3 * count + 2), inputBits(spec, 3, 2));
  spec.collective = Collective::AlltoAll;
  // Block 3 of rank 1's output is block 1 of rank 3's input.
  EXPECT_EQ(expectedBits(spec, 1, count, 3 * count + 2), inputBits(spec, 3, 1 * count + 2));
  spec.collective = Collective::Broadcast;
  EXPECT_EQ(expectedBits(spec, 0, count, 4), inputBits(spec, 2, 4));
  spec.collective = Collective::SendRecv;
  EXPECT_EQ(expectedBits(spec, 0, count, 4), inputBits(spec, 3, 4));
  EXPECT_EQ(expectedBits(spec, 2, count, 4), inputBits(spec, 1, 4));
  // Ranks' inputs differ, so a block from the wrong rank is caught.
  EXPECT_NE(inputBits(spec, 0, 0), inputBits(spec, 1, 0));
}

TEST(PerfExpectedValues, ReduceScatterTakesTheRanksBlock) {
  PatternSpec all;
  all.collective = Collective::AllReduce;
  all.type = DataType::Float32;
  all.op = RedOp::Sum;
  all.nranks = 3;
  PatternSpec rs = all;
  rs.collective = Collective::ReduceScatter;
  for (size_t j = 0; j < 4; ++j) EXPECT_EQ(expectedBits(rs, 2, 4, j), expectedBits(all, 0, 4, 8 + j));
}

TEST(PerfExpectedValues, OnlyTheRootOfReduceHasOutput) {
  PatternSpec spec;
  spec.collective = Collective::Reduce;
  spec.nranks = 4;
  spec.root = 1;
  EXPECT_TRUE(rankHasOutput(spec, 1));
  EXPECT_FALSE(rankHasOutput(spec, 0));
  spec.collective = Collective::Broadcast;
  EXPECT_TRUE(rankHasOutput(spec, 0));
}

TEST(PerfExpectedValues, PoisonNeverMatchesAndBuffersRoundTrip) {
  for (DataType t : allDataTypes()) {
    PatternSpec spec;
    spec.type = t;
    spec.op = RedOp::Sum;
    spec.nranks = 3;
    const size_t es = hetccl::elementSize(t), n = 33;
    std::vector<unsigned char> expected(n * es), poison(n * es), copy(n * es);
    fillExpected(spec, 1, n, n, expected.data());
    fillPoison(expected.data(), expected.size(), poison.data());
    EXPECT_EQ(countMismatches(poison.data(), expected.data(), n, es), n) << dataTypeName(t);
    copy = expected;
    EXPECT_EQ(countMismatches(copy.data(), expected.data(), n, es), 0u);
    storeElement(copy.data(), 7, es, ~loadElement(copy.data(), 7, es));
    EXPECT_EQ(countMismatches(copy.data(), expected.data(), n, es), 1u);
  }
}

}  // namespace
}  // namespace hetccl_perf
