// Checks of the test's own reference, so that a failure elsewhere points at the library: the
// half/bfloat16 converters on known values, and the direct reduction against MPI wherever MPI can
// reduce the type itself.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "mpi_test_support.h"

namespace hetccl_test {
namespace {

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(ReferenceSelfCheck, HalfConversionKnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);                           // below the rounding point
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);                           // ties to even: infinity
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048), 0x3C00);                 // tie, even stays
  EXPECT_EQ(floatToHalf(1.0f + 3.0f / 2048), 0x3C02);                 // tie, odd rounds up
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048 + 1.0f / 65536), 0x3C01);  // above the tie
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);              // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);              // tie with zero: even
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into the normals
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(fromBits(0x7F800000u)), 0x7C00);
  EXPECT_EQ(floatToHalf(0.1f), 0x2E66);
  EXPECT_EQ(floatToHalf(1.0f / 3), 0x3555);
}

TEST(ReferenceSelfCheck, HalfRoundTripsEveryFiniteValue) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7C00u) == 0x7C00u) continue;  // inf and NaN
    EXPECT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
}

TEST(ReferenceSelfCheck, Bfloat16ConversionKnownValues) {
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBfloat16(1.0f + 1.0f / 256), 0x3F80);  // tie, even stays
  EXPECT_EQ(floatToBfloat16(1.0f + 3.0f / 256), 0x3F82);  // tie, odd rounds up
  EXPECT_EQ(floatToBfloat16(1.0f + 1.0f / 256 + 1.0f / 65536), 0x3F81);
  EXPECT_EQ(floatToBfloat16(-3.0f), 0xC040);
  EXPECT_EQ(floatToBfloat16(1.0f / 3), 0x3EAB);
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    if ((b & 0x7F80u) == 0x7F80u) continue;
    EXPECT_EQ(floatToBfloat16(bfloat16ToFloat(static_cast<uint16_t>(b))), b) << std::hex << b;
  }
}

// Direct reduction == MPI's for every MPI-known type and op, on the inputs the tests use.
TEST(ReferenceSelfCheck, DirectReductionAgreesWithMpi) {
  const CommPair& w = world();
  const int n = w.size();
  for (const TypeInfo& t : allTypes()) {
    for (hetcclRedOp_t op : allOps()) {
      if (!mpiCanReduce(t, op)) continue;  // same decision on every rank
      const size_t count = 1021;
      const Bytes input = makeInput(t, op, n, w.rank(), count, nextSeed());
      const Bytes viaMpi = referenceAllReduce(t, op, input, count, w.mpi);
      Bytes all(input.size() * static_cast<size_t>(n));
      MPI_Allgather(input.data(), static_cast<int>(input.size()), MPI_BYTE, all.data(), static_cast<int>(input.size()),
                    MPI_BYTE, w.mpi);
      std::vector<const unsigned char*> blocks;
      for (int r = 0; r < n; ++r) blocks.push_back(all.data() + static_cast<size_t>(r) * input.size());
      expectSameBits(t, viaMpi, reduceDirect(t, op, blocks, count),
                     std::string("direct vs MPI ") + t.name + " " + opName(op));
    }
  }
}

// avg of small integers: exact sum, then one division, as documented in reference.cpp.
TEST(ReferenceSelfCheck, AverageRules) {
  const TypeInfo& i32 = typeInfo(hetcclInt32);
  const int32_t a[] = {-7}, b[] = {0};
  const std::vector<const unsigned char*> in = {reinterpret_cast<const unsigned char*>(a),
                                                reinterpret_cast<const unsigned char*>(b)};
  const Bytes r = reduceDirect(i32, hetcclAvg, in, 1);
  int32_t v;
  std::memcpy(&v, r.data(), sizeof v);
  EXPECT_EQ(v, -3);  // C truncation toward zero, not floor (-4)
  const uint16_t h1[] = {floatToHalf(1.0f)}, h2[] = {floatToHalf(0.0f)}, h3[] = {floatToHalf(0.0f)};
  const std::vector<const unsigned char*> hin = {reinterpret_cast<const unsigned char*>(h1),
                                                 reinterpret_cast<const unsigned char*>(h2),
                                                 reinterpret_cast<const unsigned char*>(h3)};
  const Bytes hr = reduceDirect(typeInfo(hetcclFloat16), hetcclAvg, hin, 1);
  uint16_t hv;
  std::memcpy(&hv, hr.data(), sizeof hv);
  EXPECT_EQ(hv, floatToHalf(1.0f / 3.0f));
}

}  // namespace
}  // namespace hetccl_test
