#include "device/host/half_kernels_avx2.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hetccl {

#if defined(__x86_64__)

namespace {
bool cpuRunsAvx2AndF16c() {
  __builtin_cpu_init();  // in case the first call comes from a static constructor
  // libgcc's answer includes the OS check (XCR0 must enable the YMM state for AVX2 to count).
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
}
}  // namespace

bool halfKernelsAvailable() {
  static const bool available = cpuRunsAvx2AndF16c();
  return available;
}

// Only the functions marked with this are compiled for AVX2 and F16C, all of them internal to
// this file: everything else, inline functions from headers included, stays baseline x86-64
// (an inline function compiled here for AVX2 could be the copy the linker keeps for every
// caller). The exported entry points are plain functions that call into them. No FMA: none of
// these operations multiplies and adds, and a fused one would round differently.
#define HETCCL_AVX2_F16C __attribute__((target("avx2,f16c")))

namespace {

// ---- Formats: 16 elements in, as two vectors of 8 floats, and back ---------------------------
// Which element travels in which float lane is each format's own affair: narrow puts the lanes
// back in the order widen took them, and everything between works lane by lane.

// F16C's conversions give toFloat's and toFloat16's bits for every input class, so no class
// needs a fix-up: VCVTPH2PS widens every half exactly (subnormals too) and turns a signaling
// NaN quiet with its payload kept; VCVTPS2PH with an explicit round-to-nearest-even (not
// MXCSR's mode) rounds normals and gradual underflow alike, overflows to ±inf from 65520 on,
// and keeps a NaN's sign and top 10 payload bits with the quiet bit set (0x7e00 | payload).
// Like the functors' float arithmetic, the kernels assume MXCSR's default (no DAZ or FTZ).
// The exhaustive test (all 2^32 sums) and the buffer tests check it against the functors.
struct Float16Format {
  static constexpr uint16_t kInfinity = 0x7c00;
  static constexpr int kNearestEven = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

  HETCCL_AVX2_F16C static void widen(const uint16_t* p, __m256* low, __m256* high) {
    *low = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    *high = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8)));
  }
  HETCCL_AVX2_F16C static void narrow(uint16_t* p, __m256 low, __m256 high) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(low, kNearestEven));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 8), _mm256_cvtps_ph(high, kNearestEven));
  }
};

// bfloat16 is a float's upper half: interleaving zeros below each element widens it. Within each
// 128-bit lane, unpacklo takes elements 0-3 (and 8-11), unpackhi 4-7 (and 12-15), and packus
// puts them back in that order, so no cross-lane shuffle is needed either way.
//
// Unlike toFloat, widening leaves a signaling NaN signaling: the arithmetic quiets it (x86
// returns a NaN operand with its quiet bit set), which gives toFloat's bits, and max and min
// never look at the widened values.
struct Bfloat16Format {
  static constexpr uint16_t kInfinity = 0x7f80;

  HETCCL_AVX2_F16C static void widen(const uint16_t* p, __m256* low, __m256* high) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i zero = _mm256_setzero_si256();
    *low = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, bits));
    *high = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, bits));
  }
  // toBfloat16, lane by lane, into the low 16 bits of each 32-bit lane.
  HETCCL_AVX2_F16C static __m256i roundLanes(__m256 f) {
    const __m256i u = _mm256_castps_si256(f);
    const __m256i upper = _mm256_srli_epi32(u, 16);
    const __m256i keptLsb = _mm256_and_si256(upper, _mm256_set1_epi32(1));
    const __m256i rounded =
        _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), keptLsb), 16);
    const __m256i quietNaN = _mm256_or_si256(upper, _mm256_set1_epi32(0x0040));
    const __m256i magnitude = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
    const __m256i isNaN = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
    return _mm256_blendv_epi8(rounded, quietNaN, isNaN);
  }
  HETCCL_AVX2_F16C static void narrow(uint16_t* p, __m256 low, __m256 high) {
    // Every lane holds 0..0xffff, so packus's unsigned saturation never changes a value.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_packus_epi32(roundLanes(low), roundLanes(high)));
  }
};

// ---- Sum, product, division: in float, as the functors do -----------------------------------
struct VectorAdd {
  HETCCL_AVX2_F16C __m256 operator()(__m256 x, __m256 y) const { return _mm256_add_ps(x, y); }
};
struct VectorMultiply {
  HETCCL_AVX2_F16C __m256 operator()(__m256 x, __m256 y) const { return _mm256_mul_ps(x, y); }
};

// reduce_math::viaFloat's second operand: y, or x where x is NaN, so that two NaNs give x's
// payload whichever operand order the compiler gives the (commutative) instruction.
HETCCL_AVX2_F16C inline __m256 secondOperand(__m256 x, __m256 y) {
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

template <class Format, class Op>
HETCCL_AVX2_F16C size_t arithmeticBlocks(uint16_t* dst, const uint16_t* a, const uint16_t* b, size_t count, Op op) {
  const size_t whole = count - count % kHalfKernelBlock;
  for (size_t i = 0; i < whole; i += kHalfKernelBlock) {
    __m256 aLow, aHigh, bLow, bHigh;
    Format::widen(a + i, &aLow, &aHigh);
    Format::widen(b + i, &bLow, &bHigh);  // both read before dst is written: dst may be a or b
    Format::narrow(dst + i, op(aLow, secondOperand(aLow, bLow)), op(aHigh, secondOperand(aHigh, bHigh)));
  }
  return whole;
}

template <class Format>
HETCCL_AVX2_F16C size_t divideBlocks(uint16_t* x, size_t count, uint64_t divisor) {
  const __m256 divisorVector = _mm256_set1_ps(float(divisor));  // DivideOp's float(divisor)
  const size_t whole = count - count % kHalfKernelBlock;
  for (size_t i = 0; i < whole; i += kHalfKernelBlock) {
    __m256 low, high;
    Format::widen(x + i, &low, &high);
    Format::narrow(x + i, _mm256_div_ps(low, divisorVector), _mm256_div_ps(high, divisorVector));
  }
  return whole;
}

// ---- Max and min: a choice of operand, made on the bits -------------------------------------
// Both formats are sign and magnitude: flipping the magnitude bits of negative values makes
// signed 16-bit integers that order like the values, -0 just below +0 as IEEE 754-2019's
// maximum and minimum want. NaNs are picked out first (a NaN a wins, then a NaN b), as in
// firstIsMaximum / firstIsMinimum; the winner's bits pass through unchanged.
HETCCL_AVX2_F16C inline __m256i orderKey(__m256i bits) {
  const __m256i negative = _mm256_srai_epi16(bits, 15);
  return _mm256_xor_si256(bits, _mm256_and_si256(negative, _mm256_set1_epi16(0x7fff)));
}

template <class Format, bool kMaximum>
HETCCL_AVX2_F16C size_t selectionBlocks(uint16_t* dst, const uint16_t* a, const uint16_t* b, size_t count) {
  const __m256i magnitudeMask = _mm256_set1_epi16(0x7fff);
  const __m256i infinity = _mm256_set1_epi16(int16_t(Format::kInfinity));
  const size_t whole = count - count % kHalfKernelBlock;
  for (size_t i = 0; i < whole; i += kHalfKernelBlock) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
    const __m256i xIsNaN = _mm256_cmpgt_epi16(_mm256_and_si256(x, magnitudeMask), infinity);
    const __m256i yIsNaN = _mm256_cmpgt_epi16(_mm256_and_si256(y, magnitudeMask), infinity);
    const __m256i xKey = orderKey(x), yKey = orderKey(y);
    const __m256i xBeats = kMaximum ? _mm256_cmpgt_epi16(xKey, yKey) : _mm256_cmpgt_epi16(yKey, xKey);
    const __m256i takeX = _mm256_or_si256(xIsNaN, _mm256_andnot_si256(yIsNaN, xBeats));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_blendv_epi8(y, x, takeX));
  }
  return whole;
}

template <class Format>
HETCCL_AVX2_F16C size_t reduceBlocks(uint16_t* dst, const uint16_t* a, const uint16_t* b, size_t count, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return arithmeticBlocks<Format>(dst, a, b, count, VectorAdd());
    case ReduceOp::Prod: return arithmeticBlocks<Format>(dst, a, b, count, VectorMultiply());
    case ReduceOp::Max: return selectionBlocks<Format, true>(dst, a, b, count);
    case ReduceOp::Min: return selectionBlocks<Format, false>(dst, a, b, count);
  }
  return 0;
}

// ---- Conversions for fp32 accumulation: elements in their own order ------------------------
// Unlike the reductions, these store the floats, so lanes must hold elements in order: float16
// through F16C (whose bits Float16Format documents), bfloat16 by zero-extending each element
// and shifting it into a float's upper half, with toFloat's quieting of a signaling NaN.
HETCCL_AVX2_F16C inline __m256 widenBfloat16Lanes(const uint16_t* p) {
  const __m256i u = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16);
  const __m256i magnitude = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
  const __m256i isNaN = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
  return _mm256_castsi256_ps(_mm256_or_si256(u, _mm256_and_si256(isNaN, _mm256_set1_epi32(0x00400000))));
}

template <bool kBfloat16>
HETCCL_AVX2_F16C size_t widenBlocks(float* dst, const uint16_t* src, size_t count) {
  const size_t whole = count - count % kHalfKernelBlock;
  for (size_t i = 0; i < whole; i += 8) {
    const __m256 f = kBfloat16 ? widenBfloat16Lanes(src + i)
                               : _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    _mm256_storeu_ps(dst + i, f);
  }
  return whole;
}

HETCCL_AVX2_F16C size_t narrowFloat16Blocks(uint16_t* dst, const float* src, size_t count) {
  const size_t whole = count - count % kHalfKernelBlock;
  for (size_t i = 0; i < whole; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i), Float16Format::kNearestEven));
  return whole;
}

HETCCL_AVX2_F16C size_t narrowBfloat16Blocks(uint16_t* dst, const float* src, size_t count) {
  const size_t whole = count - count % kHalfKernelBlock;
  for (size_t i = 0; i < whole; i += kHalfKernelBlock) {
    const __m256i low = Bfloat16Format::roundLanes(_mm256_loadu_ps(src + i));
    const __m256i high = Bfloat16Format::roundLanes(_mm256_loadu_ps(src + i + 8));
    // packus interleaves the 128-bit lanes (low 0-3, high 0-3, low 4-7, high 4-7): put the
    // 64-bit quarters back in element order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(low, high), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  return whole;
}

}  // namespace

size_t widenFloat16Avx2(float* dst, const uint16_t* src, size_t count) { return widenBlocks<false>(dst, src, count); }
size_t widenBfloat16Avx2(float* dst, const uint16_t* src, size_t count) { return widenBlocks<true>(dst, src, count); }
size_t narrowFloat16Avx2(uint16_t* dst, const float* src, size_t count) { return narrowFloat16Blocks(dst, src, count); }
size_t narrowBfloat16Avx2(uint16_t* dst, const float* src, size_t count) {
  return narrowBfloat16Blocks(dst, src, count);
}

size_t reduceFloat16Avx2(uint16_t* dst, const uint16_t* a, const uint16_t* b, size_t count, ReduceOp op) {
  return reduceBlocks<Float16Format>(dst, a, b, count, op);
}
size_t reduceBfloat16Avx2(uint16_t* dst, const uint16_t* a, const uint16_t* b, size_t count, ReduceOp op) {
  return reduceBlocks<Bfloat16Format>(dst, a, b, count, op);
}
size_t divideFloat16Avx2(uint16_t* x, size_t count, uint64_t divisor) {
  return divideBlocks<Float16Format>(x, count, divisor);
}
size_t divideBfloat16Avx2(uint16_t* x, size_t count, uint64_t divisor) {
  return divideBlocks<Bfloat16Format>(x, count, divisor);
}

#else  // not x86-64: no kernels, the portable loops do everything

bool halfKernelsAvailable() { return false; }
size_t reduceFloat16Avx2(uint16_t*, const uint16_t*, const uint16_t*, size_t, ReduceOp) { return 0; }
size_t reduceBfloat16Avx2(uint16_t*, const uint16_t*, const uint16_t*, size_t, ReduceOp) { return 0; }
size_t divideFloat16Avx2(uint16_t*, size_t, uint64_t) { return 0; }
size_t divideBfloat16Avx2(uint16_t*, size_t, uint64_t) { return 0; }
size_t widenFloat16Avx2(float*, const uint16_t*, size_t) { return 0; }
size_t widenBfloat16Avx2(float*, const uint16_t*, size_t) { return 0; }
size_t narrowFloat16Avx2(uint16_t*, const float*, size_t) { return 0; }
size_t narrowBfloat16Avx2(uint16_t*, const float*, size_t) { return 0; }

#endif

}  // namespace hetccl
