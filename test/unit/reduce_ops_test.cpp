// device/reduce_ops.h against references written differently: small floats decoded with ldexp
// and rounded by searching a table of every representable value (not by bit tricks), float
// arithmetic done in double, integer wrap done in 128-bit arithmetic with an explicit modulus.
#include "device/reduce_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace hetccl {
namespace {

// ---- Reference model of binary16 / bfloat16 ------------------------------------------------
struct SmallFloatFormat {
  int mantissaBits;   // stored fraction bits: 10 or 7
  int exponentBias;   // 15 or 127
  uint16_t infBits;   // 0x7c00 or 0x7f80
  uint16_t quietBit;  // 0x0200 or 0x0040

  double value(uint16_t bits) const {
    const double sign = (bits & 0x8000) ? -1.0 : 1.0;
    const int exponent = (bits & 0x7fff) >> mantissaBits;
    const int mantissa = bits & ((1 << mantissaBits) - 1);
    if ((bits & 0x7fff) >= infBits) return mantissa ? std::copysign(NAN, sign) : sign * INFINITY;
    if (exponent == 0) return sign * std::ldexp(mantissa, 1 - exponentBias - mantissaBits);
    const int significand = (1 << mantissaBits) + mantissa;
    return sign * std::ldexp(significand, exponent - exponentBias - mantissaBits);
  }
  bool isNaN(uint16_t bits) const { return (bits & 0x7fff) > infBits; }
};
constexpr SmallFloatFormat kHalf{10, 15, 0x7c00, 0x0200};
constexpr SmallFloatFormat kBfloat{7, 127, 0x7f80, 0x0040};

// Round-to-nearest-even by table search. Entry i is the magnitude encoded by bits i; the entry
// at infBits holds the power of two just past the largest finite value, so values from halfway
// to it upward round to the infinity encoding, and the halfway case picks it as the even one.
class ReferenceRounder {
 public:
  explicit ReferenceRounder(const SmallFloatFormat& format) {
    for (uint32_t bits = 0; bits < format.infBits; ++bits) magnitudes_.push_back(format.value(uint16_t(bits)));
    magnitudes_.push_back(std::ldexp(1.0, (format.infBits >> format.mantissaBits) - format.exponentBias));
  }
  uint16_t round(double x) const {  // x must not be NaN
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double magnitude = std::fabs(x);
    if (magnitude >= magnitudes_.back()) return sign | uint16_t(magnitudes_.size() - 1);
    const size_t low = std::upper_bound(magnitudes_.begin(), magnitudes_.end(), magnitude) - magnitudes_.begin() - 1;
    const double halfway = (magnitudes_[low] + magnitudes_[low + 1]) / 2;  // exact in double
    size_t chosen = low;
    if (magnitude > halfway || (magnitude == halfway && (low & 1))) chosen = low + 1;
    return sign | uint16_t(chosen);
  }

 private:
  std::vector<double> magnitudes_;
};
const ReferenceRounder& halfRounder() {
  static const ReferenceRounder r(kHalf);
  return r;
}
const ReferenceRounder& bfloatRounder() {
  static const ReferenceRounder r(kBfloat);
  return r;
}

template <class H>
struct SmallFloat;
template <>
struct SmallFloat<Float16> {
  static const SmallFloatFormat& format() { return kHalf; }
  static const ReferenceRounder& rounder() { return halfRounder(); }
  static Float16 fromFloat(float f) { return toFloat16(f); }
};
template <>
struct SmallFloat<Bfloat16> {
  static const SmallFloatFormat& format() { return kBfloat; }
  static const ReferenceRounder& rounder() { return bfloatRounder(); }
  static Bfloat16 fromFloat(float f) { return toBfloat16(f); }
};

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t bitsOf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
float floatWithBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// IEEE 754-2019 maximum / minimum, spelled out case by case.
double referenceMaximum(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return NAN;
  if (x == 0 && y == 0) return (std::signbit(x) && std::signbit(y)) ? -0.0 : 0.0;
  return x > y ? x : y;
}
double referenceMinimum(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return NAN;
  if (x == 0 && y == 0) return (std::signbit(x) || std::signbit(y)) ? -0.0 : 0.0;
  return x < y ? x : y;
}

// ---- Conversions ---------------------------------------------------------------------------
template <class H>
void expectAllBitPatternsRoundTrip() {
  const SmallFloatFormat& format = SmallFloat<H>::format();
  for (uint32_t bits = 0; bits <= 0xffff && !::testing::Test::HasFailure(); ++bits) {
    const float widened = toFloat(H{uint16_t(bits)});
    const uint16_t back = SmallFloat<H>::fromFloat(widened).bits;
    if (format.isNaN(uint16_t(bits))) {
      EXPECT_TRUE(std::isnan(widened)) << std::hex << bits;
      EXPECT_EQ(std::signbit(widened), (bits & 0x8000) != 0) << std::hex << bits;
      EXPECT_TRUE(bitsOf(widened) & 0x00400000u) << std::hex << bits;  // quiet
      EXPECT_EQ(back, bits | format.quietBit) << std::hex << bits;     // quieted, payload kept
    } else {
      EXPECT_EQ(bitsOf(double(widened)), bitsOf(format.value(uint16_t(bits)))) << std::hex << bits;
      EXPECT_EQ(back, bits) << std::hex << bits;
    }
  }
}
TEST(ReduceOpsConversion, EveryHalfBitPatternWidensExactlyAndRoundTrips) { expectAllBitPatternsRoundTrip<Float16>(); }
TEST(ReduceOpsConversion, EveryBfloat16BitPatternWidensExactlyAndRoundTrips) {
  expectAllBitPatternsRoundTrip<Bfloat16>();
}

template <class H>
void expectNarrowingMatchesReference(float f) {
  const uint16_t got = SmallFloat<H>::fromFloat(f).bits;
  if (std::isnan(f)) {
    EXPECT_TRUE(SmallFloat<H>::format().isNaN(got)) << std::hex << bitsOf(f);
    EXPECT_EQ((got & 0x8000) != 0, std::signbit(f)) << std::hex << bitsOf(f);
    EXPECT_TRUE(got & SmallFloat<H>::format().quietBit) << std::hex << bitsOf(f);
  } else {
    EXPECT_EQ(got, SmallFloat<H>::rounder().round(f)) << std::hex << bitsOf(f) << " = " << f;
  }
}

// Every rounding boundary of the format: each representable value, the halfway point to the
// next one (exact in float), and the floats just either side of it; both signs.
template <class H>
void expectNarrowingRightAtEveryBoundary() {
  const SmallFloatFormat& format = SmallFloat<H>::format();
  for (uint32_t bits = 0; bits < format.infBits && !::testing::Test::HasFailure(); ++bits) {
    const double low = format.value(uint16_t(bits));
    const double high = bits + 1 == format.infBits
                            ? std::ldexp(1.0, (format.infBits >> format.mantissaBits) - format.exponentBias)
                            : format.value(uint16_t(bits + 1));
    const float halfway = float((low + high) / 2);
    ASSERT_EQ(double(halfway), (low + high) / 2);
    for (float f : {float(low), halfway, std::nextafter(halfway, 0.0f), std::nextafter(halfway, INFINITY)}) {
      expectNarrowingMatchesReference<H>(f);
      expectNarrowingMatchesReference<H>(-f);
    }
  }
}
TEST(ReduceOpsConversion, FloatToHalfRoundsToNearestEvenAtEveryBoundary) {
  expectNarrowingRightAtEveryBoundary<Float16>();
}
TEST(ReduceOpsConversion, FloatToBfloat16RoundsToNearestEvenAtEveryBoundary) {
  expectNarrowingRightAtEveryBoundary<Bfloat16>();
}

// A strided walk over all 2^32 float bit patterns (NaNs, infinities and subnormals included).
TEST(ReduceOpsConversion, FloatToHalfAndBfloat16MatchReferenceOverStridedSweep) {
  for (uint64_t u = 0; u <= 0xffffffffu && !HasFailure(); u += 4093) {
    expectNarrowingMatchesReference<Float16>(floatWithBits(uint32_t(u)));
    expectNarrowingMatchesReference<Bfloat16>(floatWithBits(uint32_t(u)));
  }
}

TEST(ReduceOpsConversion, NamedCases) {
  EXPECT_EQ(toFloat16(65504.0f).bits, 0x7bff);                        // largest half
  EXPECT_EQ(toFloat16(std::nextafter(65520.0f, 0.0f)).bits, 0x7bff);  // just below halfway
  EXPECT_EQ(toFloat16(65520.0f).bits, 0x7c00);                        // halfway: to inf
  EXPECT_EQ(toFloat16(-1e10f).bits, 0xfc00);
  EXPECT_EQ(toFloat16(std::ldexp(1.0f, -25)).bits, 0x0000);  // tie to even zero
  EXPECT_EQ(toFloat16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)).bits, 0x0001);
  EXPECT_EQ(toFloat16(std::ldexp(3.0f, -25)).bits, 0x0002);         // 1.5 ulp: tie up
  EXPECT_EQ(toFloat16(-std::ldexp(1.0f, -30)).bits, 0x8000);        // underflow keeps sign
  EXPECT_EQ(toFloat16(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);  // tie down to even
  EXPECT_EQ(toFloat16(1.0f + std::ldexp(3.0f, -11)).bits, 0x3c02);  // tie up to even
  EXPECT_EQ(toBfloat16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80);
  EXPECT_EQ(toBfloat16(1.0f + std::ldexp(3.0f, -8)).bits, 0x3f82);
  EXPECT_EQ(toBfloat16(std::numeric_limits<float>::max()).bits, 0x7f80);
  EXPECT_EQ(toBfloat16(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(toBfloat16(-NAN).bits & 0xffc0, 0xffc0);
  EXPECT_EQ(toFloat(Float16{0x0001}), std::ldexp(1.0f, -24));
  EXPECT_EQ(toFloat(Bfloat16{0x0001}), std::ldexp(1.0f, -133));
}

// ---- Half and bfloat16 operations ------------------------------------------------------------
template <class H>
void expectResult(H got, double exact, uint16_t a, uint16_t b, const char* op) {
  if (std::isnan(exact)) {
    EXPECT_TRUE(SmallFloat<H>::format().isNaN(got.bits)) << op << std::hex << " " << a << " " << b;
  } else {
    EXPECT_EQ(got.bits, SmallFloat<H>::rounder().round(exact)) << op << std::hex << " " << a << " " << b;
  }
}
// The exact sum and product of two half or bfloat16 values fit in double (or, for far apart
// bfloat16 sums, double's rounding is innocuous), so rounding them once is the truth.
template <class H>
void expectOpsMatchReference(uint16_t a, uint16_t b) {
  const double x = SmallFloat<H>::format().value(a), y = SmallFloat<H>::format().value(b);
  expectResult(SumOp<H>()(H{a}, H{b}), x + y, a, b, "sum");
  expectResult(ProdOp<H>()(H{a}, H{b}), x * y, a, b, "prod");
  expectResult(MaxOp<H>()(H{a}, H{b}), referenceMaximum(x, y), a, b, "max");
  expectResult(MinOp<H>()(H{a}, H{b}), referenceMinimum(x, y), a, b, "min");
}

const std::vector<uint16_t> kHalfSpecials = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0xbc01, 0x3800,
    0x3555, 0x6800, 0x6801, 0x7bff, 0xfbff, 0x7bfe, 0x5bff, 0x1400, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d01, 0x0200};
const std::vector<uint16_t> kBfloatSpecials = {0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080,
                                               0x3f80, 0xbf80, 0x3f81, 0x4380, 0x4381, 0x7f7f, 0xff7f, 0x7f7e,
                                               0x1f80, 0x2000, 0x0040, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81};

template <class H>
void expectAllPairsAndRandomPairs(const std::vector<uint16_t>& specials) {
  for (uint16_t a : specials)
    for (uint16_t b : specials) expectOpsMatchReference<H>(a, b);
  std::mt19937 random(12345);
  for (int i = 0; i < 300000 && !::testing::Test::HasFailure(); ++i)
    expectOpsMatchReference<H>(uint16_t(random()), uint16_t(random()));
}
TEST(ReduceOpsHalf, SumProdMaxMinMatchReference) { expectAllPairsAndRandomPairs<Float16>(kHalfSpecials); }
TEST(ReduceOpsBfloat16, SumProdMaxMinMatchReference) { expectAllPairsAndRandomPairs<Bfloat16>(kBfloatSpecials); }

TEST(ReduceOpsHalf, NamedCases) {
  const SumOp<Float16> sum;
  EXPECT_EQ(sum(Float16{0x6800}, Float16{0x3c00}).bits, 0x6800);                // 2048 + 1: tie down
  EXPECT_EQ(sum(Float16{0x6801}, Float16{0x3c00}).bits, 0x6802);                // 2050 + 1: tie up
  EXPECT_EQ(sum(Float16{0x7bff}, Float16{0x4c00}).bits, 0x7c00);                // 65504 + 16: to inf
  EXPECT_EQ(sum(Float16{0x7bff}, Float16{0x4800}).bits, 0x7bff);                // 65504 + 8: stays
  EXPECT_EQ(sum(Float16{0x0001}, Float16{0x0001}).bits, 0x0002);                // subnormals add exactly
  EXPECT_EQ(sum(Float16{0x8000}, Float16{0x8000}).bits, 0x8000);                // -0 + -0 = -0
  EXPECT_EQ(sum(Float16{0x3c00}, Float16{0xbc00}).bits, 0x0000);                // 1 - 1 = +0
  EXPECT_EQ(ProdOp<Float16>()(Float16{0x0001}, Float16{0x3800}).bits, 0x0000);  // tie to 0
  EXPECT_EQ(ProdOp<Float16>()(Float16{0x0003}, Float16{0x3800}).bits, 0x0002);  // tie to 2
  EXPECT_EQ(MaxOp<Float16>()(Float16{0x8000}, Float16{0x0000}).bits, 0x0000);
  EXPECT_EQ(MaxOp<Float16>()(Float16{0x0000}, Float16{0x8000}).bits, 0x0000);
  EXPECT_EQ(MinOp<Float16>()(Float16{0x0000}, Float16{0x8000}).bits, 0x8000);
  EXPECT_EQ(MinOp<Float16>()(Float16{0x8000}, Float16{0x0000}).bits, 0x8000);
  EXPECT_TRUE(kHalf.isNaN(MaxOp<Float16>()(Float16{0x7e00}, Float16{0x7c00}).bits));
  EXPECT_TRUE(kHalf.isNaN(MinOp<Float16>()(Float16{0xfc00}, Float16{0x7e00}).bits));
}

TEST(ReduceOpsBfloat16, NamedCases) {
  const SumOp<Bfloat16> sum;
  EXPECT_EQ(sum(Bfloat16{0x4380}, Bfloat16{0x3f80}).bits, 0x4380);                 // 256 + 1: tie down
  EXPECT_EQ(sum(Bfloat16{0x4381}, Bfloat16{0x3f80}).bits, 0x4382);                 // 258 + 1: tie up
  EXPECT_EQ(ProdOp<Bfloat16>()(Bfloat16{0x7f7f}, Bfloat16{0x4000}).bits, 0x7f80);  // to inf
  EXPECT_EQ(ProdOp<Bfloat16>()(Bfloat16{0x0001}, Bfloat16{0x3f00}).bits, 0x0000);  // tie to 0
  EXPECT_EQ(ProdOp<Bfloat16>()(Bfloat16{0x0003}, Bfloat16{0x3f00}).bits, 0x0002);  // tie to 2
  EXPECT_TRUE(kBfloat.isNaN(sum(Bfloat16{0x7f80}, Bfloat16{0xff80}).bits));        // inf - inf
  EXPECT_EQ(MaxOp<Bfloat16>()(Bfloat16{0x8000}, Bfloat16{0x0000}).bits, 0x0000);
  EXPECT_EQ(MinOp<Bfloat16>()(Bfloat16{0x0000}, Bfloat16{0x8000}).bits, 0x8000);
}

// ---- float and double ----------------------------------------------------------------------
const std::vector<float> kFloatSpecials = {0.0f,
                                           -0.0f,
                                           1.0f,
                                           -1.0f,
                                           1.5f,
                                           3.0f,
                                           0.1f,
                                           -7.25f,
                                           1e30f,
                                           -1e30f,
                                           1e-30f,
                                           std::numeric_limits<float>::max(),
                                           -std::numeric_limits<float>::max(),
                                           std::numeric_limits<float>::min(),
                                           std::numeric_limits<float>::denorm_min(),
                                           -std::numeric_limits<float>::denorm_min(),
                                           std::ldexp(1.0f, -140),
                                           INFINITY,
                                           -INFINITY,
                                           NAN,
                                           -NAN,
                                           1.0f + std::ldexp(1.0f, -23),
                                           std::ldexp(1.0f, 24)};

void expectFloatResult(float got, double exact, float a, float b, const char* op) {
  if (std::isnan(exact)) {
    EXPECT_TRUE(std::isnan(got)) << op << " " << a << " " << b;
  } else {  // double has >= 2*24+2 bits: rounding the double result once more is exact
    EXPECT_EQ(bitsOf(got), bitsOf(float(exact))) << op << " " << a << " " << b;
  }
}
void expectFloatOpsMatchReference(float a, float b) {
  const double x = a, y = b;
  expectFloatResult(SumOp<float>()(a, b), x + y, a, b, "sum");
  expectFloatResult(ProdOp<float>()(a, b), x * y, a, b, "prod");
  expectFloatResult(MaxOp<float>()(a, b), referenceMaximum(x, y), a, b, "max");
  expectFloatResult(MinOp<float>()(a, b), referenceMinimum(x, y), a, b, "min");
}
TEST(ReduceOpsFloat, SumProdMaxMinMatchDoubleReference) {
  for (float a : kFloatSpecials)
    for (float b : kFloatSpecials) expectFloatOpsMatchReference(a, b);
  std::mt19937 random(777);
  for (int i = 0; i < 300000 && !HasFailure(); ++i)
    expectFloatOpsMatchReference(floatWithBits(random()), floatWithBits(random()));
}

TEST(ReduceOpsDouble, MaxMinFollowIeee2019AndSumProdAreIeee) {
  const std::vector<double> values = {0.0, -0.0, 1.0, -2.5, 1e300, -1e300, 5e-324, INFINITY, -INFINITY, NAN, -NAN};
  for (double a : values) {
    for (double b : values) {
      const double max = MaxOp<double>()(a, b), min = MinOp<double>()(a, b);
      const double wantMax = referenceMaximum(a, b), wantMin = referenceMinimum(a, b);
      if (std::isnan(wantMax)) {
        EXPECT_TRUE(std::isnan(max) && std::isnan(min)) << a << " " << b;
      } else {
        EXPECT_EQ(bitsOf(max), bitsOf(wantMax)) << a << " " << b;
        EXPECT_EQ(bitsOf(min), bitsOf(wantMin)) << a << " " << b;
      }
      // Double has no wider reference type here; check the IEEE operations pass through.
      const double sum = SumOp<double>()(a, b), product = ProdOp<double>()(a, b);
      if (std::isnan(a + b)) {
        EXPECT_TRUE(std::isnan(sum));
      } else {
        EXPECT_EQ(bitsOf(sum), bitsOf(a + b));
      }
      if (std::isnan(a * b)) {
        EXPECT_TRUE(std::isnan(product));
      } else {
        EXPECT_EQ(bitsOf(product), bitsOf(a * b));
      }
    }
  }
}

// ---- Integers --------------------------------------------------------------------------------
// Reduce v modulo 2^bits into T's range, with 128-bit arithmetic.
template <class T>
T wrapReference(__int128 v) {
  const __int128 modulus = __int128(1) << (8 * sizeof(T));
  v %= modulus;
  if (v < 0) v += modulus;
  if (std::is_signed<T>::value && v >= modulus / 2) v -= modulus;
  return T(v);
}
template <class T>
T productReference(T a, T b) {
  if (std::is_signed<T>::value) return wrapReference<T>(__int128(a) * __int128(b));
  const unsigned __int128 product = (unsigned __int128)a * (unsigned __int128)b;  // <= 2^128
  return wrapReference<T>(__int128(product & ((unsigned __int128)(~uint64_t(0)))));
}

template <class T>
std::vector<T> integerSpecials() {
  using Limits = std::numeric_limits<T>;
  std::vector<T> values = {T(0),
                           T(1),
                           T(2),
                           T(3),
                           T(7),
                           T(100),
                           Limits::max(),
                           Limits::min(),
                           T(Limits::max() - 1),
                           T(Limits::min() + 1),
                           T(Limits::max() / 2 + 1)};
  if (std::is_signed<T>::value) {
    for (T v : {T(-1), T(-2), T(-3), T(-7), T(-100)}) values.push_back(v);
  }
  std::mt19937_64 random(99);
  for (int i = 0; i < 40; ++i) values.push_back(T(random()));
  return values;
}

template <class T>
void expectIntegerOpsMatchReference() {
  for (T a : integerSpecials<T>()) {
    for (T b : integerSpecials<T>()) {
      EXPECT_EQ(SumOp<T>()(a, b), wrapReference<T>(__int128(a) + __int128(b))) << +a << " " << +b;
      EXPECT_EQ(ProdOp<T>()(a, b), productReference(a, b)) << +a << " " << +b;
      EXPECT_EQ(MaxOp<T>()(a, b), (__int128(a) > __int128(b) ? a : b)) << +a << " " << +b;
      EXPECT_EQ(MinOp<T>()(a, b), (__int128(a) < __int128(b) ? a : b)) << +a << " " << +b;
    }
  }
}
TEST(ReduceOpsInteger, EveryTypeWrapsLikeUnsignedArithmetic) {
  expectIntegerOpsMatchReference<int8_t>();
  expectIntegerOpsMatchReference<uint8_t>();
  expectIntegerOpsMatchReference<int32_t>();
  expectIntegerOpsMatchReference<uint32_t>();
  expectIntegerOpsMatchReference<int64_t>();
  expectIntegerOpsMatchReference<uint64_t>();
}

TEST(ReduceOpsInteger, NamedWrapCases) {
  EXPECT_EQ(SumOp<int32_t>()(INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(SumOp<uint8_t>()(200, 100), 44);
  EXPECT_EQ(SumOp<int8_t>()(127, 1), -128);
  EXPECT_EQ(ProdOp<int8_t>()(16, 16), 0);
  EXPECT_EQ(ProdOp<int8_t>()(-128, -1), -128);
  EXPECT_EQ(ProdOp<int64_t>()(INT64_MIN, -1), INT64_MIN);
  EXPECT_EQ(ProdOp<uint32_t>()(0xffffffffu, 0xffffffffu), 1u);
  EXPECT_EQ(ProdOp<uint64_t>()(~0ull, ~0ull), 1ull);
}

// ---- Average's division --------------------------------------------------------------------
template <class T>
void expectIntegerDivisionTruncates() {
  for (T x : integerSpecials<T>()) {
    for (uint64_t divisor : {1ull, 2ull, 3ull, 7ull, 1000ull, 1ull << 40, 1ull << 63, ~0ull}) {
      // __int128 division truncates toward zero, like C.
      const T expected = T(__int128(x) / __int128(divisor));
      EXPECT_EQ(DivideOp<T>{divisor}(x), expected) << +x << " / " << divisor;
    }
  }
}
TEST(ReduceOpsDivide, IntegersTruncateTowardZero) {
  expectIntegerDivisionTruncates<int8_t>();
  expectIntegerDivisionTruncates<uint8_t>();
  expectIntegerDivisionTruncates<int32_t>();
  expectIntegerDivisionTruncates<uint32_t>();
  expectIntegerDivisionTruncates<int64_t>();
  expectIntegerDivisionTruncates<uint64_t>();
  EXPECT_EQ(DivideOp<int32_t>{2}(-7), -3);
  EXPECT_EQ(DivideOp<int32_t>{2}(7), 3);
  EXPECT_EQ(DivideOp<int8_t>{3}(-128), -42);
  EXPECT_EQ(DivideOp<int8_t>{1000}(-100), 0);  // divisor beyond int8's range
  EXPECT_EQ(DivideOp<int64_t>{1ull << 63}(INT64_MIN), -1);
}

template <class H>
void expectSmallFloatDivisionMatchesReference() {
  const SmallFloatFormat& format = SmallFloat<H>::format();
  for (uint64_t divisor : {2ull, 3ull, 7ull, 10ull, 96ull}) {
    for (uint32_t bits = 0; bits <= 0xffff && !::testing::Test::HasFailure(); ++bits) {
      const double exact = format.value(uint16_t(bits)) / double(divisor);
      expectResult(DivideOp<H>{divisor}(H{uint16_t(bits)}), exact, uint16_t(bits), 0, "avg");
    }
  }
}
TEST(ReduceOpsDivide, HalfAndBfloat16AreCorrectlyRoundedForEveryValue) {
  expectSmallFloatDivisionMatchesReference<Float16>();
  expectSmallFloatDivisionMatchesReference<Bfloat16>();
}

TEST(ReduceOpsDivide, FloatAndDoubleDivideByTheCount) {
  for (float x : kFloatSpecials) {
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(DivideOp<float>{3}(x)));
      continue;
    }
    EXPECT_EQ(bitsOf(DivideOp<float>{3}(x)), bitsOf(float(double(x) / 3.0))) << x;
    EXPECT_EQ(bitsOf(DivideOp<double>{3}(double(x))), bitsOf(double(x) / 3.0)) << x;
  }
}

// ---- The loop helper -------------------------------------------------------------------------
TEST(ReduceOpsLoop, GridStrideCoversEveryElementOnceLikeStrideOne) {
  const size_t count = 1001;
  std::vector<int32_t> a(count), b(count), strided(count, -1), contiguous(count, -1);
  for (size_t i = 0; i < count; ++i) {
    a[i] = int32_t(i * 3);
    b[i] = int32_t(1000 - i);
  }
  const size_t threads = 7;  // emulates a grid of 7 threads
  for (size_t thread = 0; thread < threads; ++thread)
    reduceRange(strided.data(), a.data(), b.data(), thread, count, threads, SumOp<int32_t>());
  reduceRange(contiguous.data(), a.data(), b.data(), 0, count, 1, SumOp<int32_t>());
  EXPECT_EQ(strided, contiguous);
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(contiguous[i], int32_t(i * 3 + 1000 - i));
  for (size_t thread = 0; thread < threads; ++thread)
    transformRange(strided.data(), thread, count, threads, DivideOp<int32_t>{2});
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(strided[i], contiguous[i] / 2);
}

}  // namespace
}  // namespace hetccl
