// Every one of the 2^16 x 2^16 operand pairs through the float16 and bfloat16 sum kernels,
// against the portable functor's arithmetic: SumOp's widening (toFloat), its NaN rule and its
// narrowing (toFloat16 / toBfloat16), with the widening looked up in a table of all 65536
// patterns so that each reference pair costs one addition and one rounding. The kernel runs
// over whole rows (a fixed, b = every pattern), the rows split over the machine's cores.
// A separate executable so that its ~10 s stand apart from the quick unit tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "device/host/half_kernels_avx2.h"
#include "device/reduce_ops.h"

namespace hetccl {
namespace {

constexpr size_t kPatterns = 65536;
using SumKernel = size_t (*)(uint16_t*, const uint16_t*, const uint16_t*, size_t, ReduceOp);

struct Mismatch {
  bool found = false;
  uint16_t a = 0, b = 0, want = 0, got = 0;
};

// toFloat of every pattern: the functor's own widening, computed once.
template <class H>
std::vector<float> wideningTable() {
  std::vector<float> table(kPatterns);
  for (size_t bits = 0; bits < kPatterns; ++bits) table[bits] = toFloat(H{uint16_t(bits)});
  return table;
}

// SumOp<H>()(a, b) for one a and every b, written as viaFloat is, with the widening looked up.
// The loop is plain so that the compiler vectorizes it (this file is built with -O3).
template <class H>
void referenceRow(const float* widened, uint16_t a, uint16_t* want) {
  const float x = widened[a];
  const bool xIsNaN = x != x;
  for (size_t b = 0; b < kPatterns; ++b) want[b] = fromFloat<H>(x + (xIsNaN ? x : widened[b])).bits;
}

// Rows [first, last) of the table through the kernel and the reference; the first mismatch.
template <class H>
Mismatch checkRows(SumKernel kernel, const float* widened, uint32_t first, uint32_t last) {
  std::vector<uint16_t> row(kPatterns), every(kPatterns), got(kPatterns), want(kPatterns);
  for (size_t b = 0; b < kPatterns; ++b) every[b] = uint16_t(b);
  Mismatch mismatch;
  for (uint32_t a = first; a < last && !mismatch.found; ++a) {
    std::fill(row.begin(), row.end(), uint16_t(a));
    if (kernel(got.data(), row.data(), every.data(), kPatterns, ReduceOp::Sum) != kPatterns) {
      mismatch = {true, uint16_t(a), 0, 0, 0};  // the kernel left elements undone
      break;
    }
    referenceRow<H>(widened, uint16_t(a), want.data());
    if (std::memcmp(got.data(), want.data(), kPatterns * sizeof(uint16_t)) == 0) continue;
    for (size_t b = 0; b < kPatterns; ++b) {
      if (got[b] != want[b]) {
        mismatch = {true, uint16_t(a), uint16_t(b), want[b], got[b]};
        break;
      }
    }
  }
  return mismatch;
}

template <class H>
void expectEverySumMatchesFunctor(SumKernel kernel) {
  if (!halfKernelsAvailable()) GTEST_SKIP() << "this CPU lacks AVX2 or F16C: no kernel to test";
  const std::vector<float> widened = wideningTable<H>();

  // The table-driven reference is the functor: check it against SumOp itself on random pairs
  // and on whole rows of NaN and non-NaN first operands.
  std::vector<uint16_t> want(kPatterns);
  std::mt19937 random(2718);
  for (int i = 0; i < 64; ++i) {
    const uint16_t a = uint16_t(i < 4 ? (i < 2 ? 0x7fff : 0xfe01) : random());
    referenceRow<H>(widened.data(), a, want.data());
    for (size_t b = 0; b < kPatterns; b += (i < 8 ? 1 : 97))
      ASSERT_EQ(want[b], SumOp<H>()(H{a}, H{uint16_t(b)}).bits) << std::hex << "a 0x" << a << " b 0x" << b;
  }

  constexpr unsigned kMostWorkers = 4;
  const unsigned workers = std::max(1u, std::min(kMostWorkers, std::thread::hardware_concurrency()));
  std::array<Mismatch, kMostWorkers> found{};  // not a vector: GCC 12 -O3 warns falsely about its size
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    const uint32_t first = uint32_t(kPatterns * w / workers), last = uint32_t(kPatterns * (w + 1) / workers);
    threads.emplace_back([&, w, first, last] { found[w] = checkRows<H>(kernel, widened.data(), first, last); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const Mismatch& m : found) {
    EXPECT_FALSE(m.found) << std::hex << "a 0x" << m.a << " + b 0x" << m.b << ": functor 0x" << m.want << ", kernel 0x"
                          << m.got;
  }
}

TEST(HalfKernelsExhaustive, Float16SumOfEveryPairMatchesFunctor) {
  expectEverySumMatchesFunctor<Float16>(reduceFloat16Avx2);
}
TEST(HalfKernelsExhaustive, Bfloat16SumOfEveryPairMatchesFunctor) {
  expectEverySumMatchesFunctor<Bfloat16>(reduceBfloat16Avx2);
}

}  // namespace
}  // namespace hetccl
