// hostReduce and hostDivide for float16 and bfloat16 (the AVX2/F16C kernels where the CPU has
// them, the portable loops elsewhere) against device/reduce_ops.h's functors applied element by
// element in this file: every op, large buffers of every value class, lengths that leave tails,
// unaligned starts and each aliasing shape. Bits must be equal, NaN payloads included.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "device/host/half_kernels_avx2.h"
#include "device/host/host_reduce.h"
#include "device/reduce_ops.h"

namespace hetccl {
namespace {

template <class H>
struct Format;
template <>
struct Format<Float16> {
  static constexpr ElementType kType = ElementType::Float16;
  // Zeros, subnormals, the smallest normal, one, the largest finite, infinities, and NaNs:
  // quiet and signaling, empty and full payloads, both signs.
  static std::vector<uint16_t> specials() {
    return {0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0x7bff,
            0xfbff, 0x7c00, 0xfc00, 0x7c01, 0xfc01, 0x7d55, 0x7dff, 0x7e00, 0xfe00, 0x7e01, 0x7fff, 0xffff};
  }
};
template <>
struct Format<Bfloat16> {
  static constexpr ElementType kType = ElementType::Bfloat16;
  static std::vector<uint16_t> specials() {
    return {0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x3f80, 0xbf80, 0x3f81, 0x7f7f,
            0xff7f, 0x7f80, 0xff80, 0x7f81, 0xff81, 0x7f95, 0x7fbf, 0x7fc0, 0xffc0, 0x7fc1, 0x7fff, 0xffff};
  }
};

// Random bit patterns hold every class in proportion, but rarely the pairs that test rounding
// and ordering: so a quarter of the elements are specials, and in the second operand another
// quarter are the first operand's near neighbour or its negation (cancellations, ties, ±0).
template <class H>
void randomOperands(size_t count, uint32_t seed, std::vector<uint16_t>* a, std::vector<uint16_t>* b) {
  const std::vector<uint16_t> specials = Format<H>::specials();
  std::mt19937 random(seed);
  a->resize(count);
  b->resize(count);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t draw = random();
    const uint16_t bits = uint16_t(draw);
    const uint16_t special = specials[(draw >> 16) % specials.size()];
    (*a)[i] = (draw >> 30) == 0 ? special : bits;
    const uint32_t other = random();
    switch (other >> 29) {
      case 0:
      case 1: (*b)[i] = specials[(other >> 16) % specials.size()]; break;
      case 2: (*b)[i] = uint16_t((*a)[i] ^ (other & 0x7)); break;  // a neighbour
      case 3: (*b)[i] = uint16_t((*a)[i] ^ 0x8000); break;         // the negation
      default: (*b)[i] = uint16_t(other); break;
    }
  }
}

// The functor for op, element by element: the reference.
template <class H>
uint16_t functor(ReduceOp op, uint16_t a, uint16_t b) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return SumOp<H>()(H{a}, H{b}).bits;
    case ReduceOp::Prod: return ProdOp<H>()(H{a}, H{b}).bits;
    case ReduceOp::Max: return MaxOp<H>()(H{a}, H{b}).bits;
    case ReduceOp::Min: return MinOp<H>()(H{a}, H{b}).bits;
  }
  return 0;
}

::testing::AssertionResult sameBits(const uint16_t* want, const uint16_t* got, size_t count, const uint16_t* a,
                                    const uint16_t* b) {
  for (size_t i = 0; i < count; ++i) {
    if (want[i] == got[i]) continue;
    return ::testing::AssertionFailure() << std::hex << "element " << std::dec << i << " of " << count << std::hex
                                         << ": a 0x" << a[i] << " b 0x" << b[i] << " want 0x" << want[i] << " got 0x"
                                         << got[i];
  }
  return ::testing::AssertionSuccess();
}

const ReduceOp kOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg};
// Around the 16-element block: none, part of one, one, one and a tail; and large odd counts.
const size_t kCounts[] = {0, 1, 15, 16, 17, 31, 33, 4099, (size_t(1) << 20) + 5};

template <class H>
void expectReduceMatchesFunctors() {
  for (size_t count : kCounts) {
    // Start 0, 1 or 3 elements into the buffers: the kernels load and store unaligned.
    for (size_t offset : {size_t(0), size_t(1), size_t(3)}) {
      std::vector<uint16_t> aBuffer, bBuffer;
      randomOperands<H>(count + offset, uint32_t(count * 7 + offset), &aBuffer, &bBuffer);
      const uint16_t* a = aBuffer.data() + offset;
      const uint16_t* b = bBuffer.data() + offset;
      for (ReduceOp op : kOps) {
        std::vector<uint16_t> want(count), wantSelf(count);
        for (size_t i = 0; i < count; ++i) {
          want[i] = functor<H>(op, a[i], b[i]);
          wantSelf[i] = functor<H>(op, a[i], a[i]);
        }
        const std::string where =
            std::string(reduceOpName(op)) + " count " + std::to_string(count) + " offset " + std::to_string(offset);
        std::vector<uint16_t> dst(count + offset + 1, 0xdead);
        hostReduce(dst.data() + offset, a, b, count, Format<H>::kType, op);
        ASSERT_TRUE(sameBits(want.data(), dst.data() + offset, count, a, b)) << where << " distinct";
        std::vector<uint16_t> intoA(aBuffer);
        hostReduce(intoA.data() + offset, intoA.data() + offset, b, count, Format<H>::kType, op);
        ASSERT_TRUE(sameBits(want.data(), intoA.data() + offset, count, a, b)) << where << " dst == a";
        std::vector<uint16_t> intoB(bBuffer);
        hostReduce(intoB.data() + offset, a, intoB.data() + offset, count, Format<H>::kType, op);
        ASSERT_TRUE(sameBits(want.data(), intoB.data() + offset, count, a, b)) << where << " dst == b";
        std::vector<uint16_t> both(aBuffer);
        hostReduce(both.data() + offset, both.data() + offset, both.data() + offset, count, Format<H>::kType, op);
        ASSERT_TRUE(sameBits(wantSelf.data(), both.data() + offset, count, a, a)) << where << " dst == a == b";
        ASSERT_EQ(dst.back(), 0xdead) << where << ": wrote past the end";
        if (offset) {
          ASSERT_EQ(dst[0], 0xdead) << where << ": wrote before the start";
        }
      }
    }
  }
}
TEST(HalfKernels, Float16ReduceMatchesFunctorsForEveryOp) { expectReduceMatchesFunctors<Float16>(); }
TEST(HalfKernels, Bfloat16ReduceMatchesFunctorsForEveryOp) { expectReduceMatchesFunctors<Bfloat16>(); }

// Every bit pattern (plus a tail) divided by rank counts and by divisors float cannot hold.
template <class H>
void expectDivideMatchesFunctor() {
  const size_t count = 65536 + 9;
  for (uint64_t divisor : {uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(7), uint64_t(96), uint64_t(1000),
                           (uint64_t(1) << 40) + 1, ~uint64_t(0)}) {
    for (size_t offset : {size_t(0), size_t(1)}) {
      std::vector<uint16_t> x(count + offset);
      for (size_t i = 0; i < x.size(); ++i) x[i] = uint16_t(i * 40503u);  // odd multiplier: a permutation
      std::vector<uint16_t> want(count);
      for (size_t i = 0; i < count; ++i) want[i] = DivideOp<H>{divisor}(H{x[offset + i]}).bits;
      const std::vector<uint16_t> before(x);
      hostDivide(x.data() + offset, count, Format<H>::kType, divisor);
      ASSERT_TRUE(sameBits(want.data(), x.data() + offset, count, before.data() + offset, before.data() + offset))
          << "divisor " << divisor << " offset " << offset;
    }
  }
}
TEST(HalfKernels, Float16DivideMatchesFunctorForEveryValue) { expectDivideMatchesFunctor<Float16>(); }
TEST(HalfKernels, Bfloat16DivideMatchesFunctorForEveryValue) { expectDivideMatchesFunctor<Bfloat16>(); }

// The portable entry points stay the functors' loops, whatever the CPU.
TEST(HalfKernels, PortableEntryPointsMatchFunctors) {
  std::vector<uint16_t> a, b;
  randomOperands<Float16>(1000, 5, &a, &b);
  for (ReduceOp op : kOps) {
    std::vector<uint16_t> want(a.size()), got(a.size());
    for (size_t i = 0; i < a.size(); ++i) want[i] = functor<Float16>(op, a[i], b[i]);
    hostReducePortable(got.data(), a.data(), b.data(), a.size(), ElementType::Float16, op);
    EXPECT_TRUE(sameBits(want.data(), got.data(), a.size(), a.data(), b.data())) << reduceOpName(op);
  }
  std::vector<uint16_t> x(a);
  hostDividePortable(x.data(), x.size(), ElementType::Bfloat16, 3);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], DivideOp<Bfloat16>{3}(Bfloat16{a[i]}).bits) << i;
}

// Where the CPU has AVX2 and F16C, the kernels take every whole block (so the tests above ran
// them); elsewhere they are never called.
TEST(HalfKernels, KernelsTakeWholeBlocksWhereTheCpuRunsThem) {
#if defined(__x86_64__)
  EXPECT_EQ(halfKernelsAvailable(), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c"));
#endif
  if (!halfKernelsAvailable()) GTEST_SKIP() << "this CPU lacks AVX2 or F16C: the portable loops ran";
  std::vector<uint16_t> a(37, 0x3c00), b(37, 0x3c00), dst(37);
  EXPECT_EQ(reduceFloat16Avx2(dst.data(), a.data(), b.data(), 37, ReduceOp::Sum), 32u);
  EXPECT_EQ(dst[31], 0x4000);  // 1 + 1
  EXPECT_EQ(reduceBfloat16Avx2(dst.data(), a.data(), b.data(), 15, ReduceOp::Max), 0u);
  EXPECT_EQ(divideBfloat16Avx2(dst.data(), 16, 2), 16u);
}

}  // namespace
}  // namespace hetccl
