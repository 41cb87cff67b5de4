// Reduction semantics, defined once for every backend: the host backend includes this header,
// and the CUDA and HIP kernels are compiled from it by nvcc and hipcc. Whatever a backend
// computes must be bit-identical to what these functions compute, so that an all-reduce over a
// mix of vendors gives the same bits on every rank.
//
// Device-code rules: only inline functions and templates, no std:: containers or algorithms, no
// exceptions, no std::memcpy (bit casts use __builtin_memcpy). The conversions work on bits,
// and their float operations are immune to flush-to-zero (see each); the reductions are not,
// so kernels must be built without flush-to-zero or fast-math (nvcc -ftz=false
// -prec-div=true, no -ffast-math), and only in the default round-to-nearest mode.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define HETCCL_HOST_DEVICE __host__ __device__
#else
#define HETCCL_HOST_DEVICE
#endif

namespace hetccl {

// IEEE 754 binary16 and bfloat16 storage: plain bits, so the layout is the same whatever the
// vendor's own half types are (__half, hip_bfloat16 ...), and arithmetic is never done in them.
struct Float16 {
  uint16_t bits;
};
struct Bfloat16 {
  uint16_t bits;
};
static_assert(sizeof(Float16) == 2 && std::is_trivially_copyable<Float16>::value, "layout");
static_assert(sizeof(Bfloat16) == 2 && std::is_trivially_copyable<Bfloat16>::value, "layout");

HETCCL_HOST_DEVICE inline uint32_t floatBits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}
HETCCL_HOST_DEVICE inline float floatFromBits(uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}
HETCCL_HOST_DEVICE inline uint64_t doubleBits(double d) {
  uint64_t u;
  __builtin_memcpy(&u, &d, sizeof u);
  return u;
}

// ---- Conversions ---------------------------------------------------------------------------
// Each conversion computes every case and then selects one, instead of branching, so that a
// loop over them vectorizes on the host (and does not diverge on a GPU).
//
// Widening is exact. A NaN keeps its sign and payload and gets its quiet bit set, as hardware
// conversions (F16C, PTX cvt) do.
HETCCL_HOST_DEVICE inline float toFloat(Float16 h) {
  const uint32_t sign = uint32_t(h.bits & 0x8000u) << 16;
  const uint32_t exponent = (h.bits >> 10) & 0x1fu;
  const uint32_t mantissa = h.bits & 0x3ffu;
  const uint32_t normal = ((exponent + 112u) << 23) | (mantissa << 13);  // rebias 15 -> 127
  const uint32_t infOrNaN = 0x7f800000u | (mantissa << 13) | (mantissa ? 0x00400000u : 0u);
  // Zero and subnormals are mantissa * 2^-24: an exact product whose result is a normal float
  // (or zero), so flush-to-zero modes cannot touch it.
  const uint32_t subnormal = floatBits(float(mantissa) * 5.9604644775390625e-8f);
  const uint32_t magnitude = exponent == 0 ? subnormal : exponent == 0x1f ? infOrNaN : normal;
  return floatFromBits(sign | magnitude);
}

HETCCL_HOST_DEVICE inline float toFloat(Bfloat16 h) {
  const uint32_t u = uint32_t(h.bits) << 16;  // bfloat16 is the upper half of a float
  const uint32_t quiet = (u & 0x7fffffffu) > 0x7f800000u ? 0x00400000u : 0u;
  return floatFromBits(u | quiet);
}

// float -> binary16, round to nearest, ties to even; overflow to ±inf; gradual underflow.
HETCCL_HOST_DEVICE inline Float16 toFloat16(float f) {
  const uint32_t u = floatBits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t magnitude = u & 0x7fffffffu;
  const uint32_t quietNaN = 0x7e00u | ((magnitude >> 13) & 0x3ffu);  // keeps the payload's top
  // Normal half (|f| >= 2^-14): rebias the exponent (-112 << 23) and round away the 13 low
  // bits: adding 0xfff plus the kept LSB carries exactly when the dropped part is above half,
  // or exactly half with an odd LSB. A carry out of the mantissa increments the exponent.
  const uint32_t normal = (magnitude + 0xc8000fffu + ((magnitude >> 13) & 1u)) >> 13;
  // Subnormal half (|f| < 2^-14): in 0.5 + |f| the float's last place is 2^-24, the half
  // subnormal step, so the float addition itself rounds |f| to it (RNE), and the low bits of
  // the sum are the half's bits (0x400, the smallest normal, when it rounds up that far). Both
  // 0.5 and the sum are normal, so flush-to-zero can only drop float subnormal inputs, which
  // round to zero anyway.
  const uint32_t subnormal = floatBits(floatFromBits(magnitude) + 0.5f) - 0x3f000000u;
  uint32_t result = magnitude >= 0x38800000u ? normal : subnormal;
  // 65520 = halfway between the largest half (65504) and 2^16: it and all above round to inf.
  result = magnitude >= 0x477ff000u ? 0x7c00u : result;
  result = magnitude > 0x7f800000u ? quietNaN : result;
  return Float16{uint16_t(sign | result)};
}

// float -> bfloat16, round to nearest, ties to even. bfloat16 has float's exponent range, so
// subnormals and overflow need no special case: the carry of the rounding does the work.
HETCCL_HOST_DEVICE inline Bfloat16 toBfloat16(float f) {
  const uint32_t u = floatBits(f);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quietNaN = (u >> 16) | 0x0040u;
  return Bfloat16{uint16_t((u & 0x7fffffffu) > 0x7f800000u ? quietNaN : rounded)};
}

template <class H>
HETCCL_HOST_DEVICE H fromFloat(float f);
template <>
HETCCL_HOST_DEVICE inline Float16 fromFloat<Float16>(float f) {
  return toFloat16(f);
}
template <>
HETCCL_HOST_DEVICE inline Bfloat16 fromFloat<Bfloat16>(float f) {
  return toBfloat16(f);
}

// ---- Scalar operations ---------------------------------------------------------------------
namespace reduce_math {

// Integers wrap modulo 2^bits like C unsigned arithmetic. Signed values go through the unsigned
// type (signed overflow is undefined behaviour); WrapType is at least unsigned int, so that
// small types promote to an unsigned type rather than to int (whose products could overflow).
template <class T>
using WrapType = decltype(static_cast<typename std::make_unsigned<T>::type>(0) + 0u);

template <class T>
HETCCL_HOST_DEVICE inline T add(T a, T b) {
  static_assert(std::is_integral<T>::value, "no sum defined for this type");
  return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
}
template <class T>
HETCCL_HOST_DEVICE inline T multiply(T a, T b) {
  static_assert(std::is_integral<T>::value, "no product defined for this type");
  return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
}
template <class T>
HETCCL_HOST_DEVICE inline T maximum(T a, T b) {
  return a < b ? b : a;
}
template <class T>
HETCCL_HOST_DEVICE inline T minimum(T a, T b) {
  return b < a ? b : a;
}

HETCCL_HOST_DEVICE inline float add(float a, float b) { return a + b; }
HETCCL_HOST_DEVICE inline double add(double a, double b) { return a + b; }
HETCCL_HOST_DEVICE inline float multiply(float a, float b) { return a * b; }
HETCCL_HOST_DEVICE inline double multiply(double a, double b) { return a * b; }

// IEEE 754-2019 maximum/minimum: NaN if either operand is NaN, and -0 < +0. Both rules make
// the result independent of operand order (except which NaN payload survives), which
// fmax/fmin (NaN-ignoring, either zero) and `a < b ? b : a` do not guarantee.
HETCCL_HOST_DEVICE inline bool signBit(float x) { return (floatBits(x) >> 31) != 0; }
HETCCL_HOST_DEVICE inline bool signBit(double x) { return (doubleBits(x) >> 63) != 0; }
// True when `a` is the maximum (a NaN `a` counts as the maximum).
template <class F>
HETCCL_HOST_DEVICE inline bool firstIsMaximum(F a, F b) {
  if (a != a) return true;
  if (b != b) return false;
  if (a == b) return !signBit(a);  // equal values differ only as ±0: +0 wins
  return a > b;
}
template <class F>
HETCCL_HOST_DEVICE inline bool firstIsMinimum(F a, F b) {
  if (a != a) return true;
  if (b != b) return false;
  if (a == b) return signBit(a);  // -0 wins
  return a < b;
}
HETCCL_HOST_DEVICE inline float maximum(float a, float b) { return firstIsMaximum(a, b) ? a : b; }
HETCCL_HOST_DEVICE inline double maximum(double a, double b) { return firstIsMaximum(a, b) ? a : b; }
HETCCL_HOST_DEVICE inline float minimum(float a, float b) { return firstIsMinimum(a, b) ? a : b; }
HETCCL_HOST_DEVICE inline double minimum(double a, double b) { return firstIsMinimum(a, b) ? a : b; }

// Half and bfloat16 sum and product: widen both to float, operate once in float, round once
// with RNE. The double rounding is innocuous (the result equals the correctly rounded exact
// result) because float's 24-bit significand is >= 2p+2 for binary16 (p = 11: 24) and for
// bfloat16 (p = 8: 18) (Figueroa, "When is double rounding innocuous?", 1995). That argument
// is about normal numbers; bfloat16 shares float's exponent range, so its subnormals need one
// more: there both formats are fixed-point, float 16 bits finer. A sum of two bfloat16 that
// lands there is a multiple of 2^-133, exact in float. A product has at most 16 significant
// bits, so it is exact in float unless it is below 2^-134 (half the smallest bfloat16), and
// then float's rounding cannot lift it above 2^-134, so both paths give the same bfloat16.
//
// When both operands are NaN, IEEE 754 leaves open whose payload survives. x86 returns the first
// operand's, but a compiler may swap the operands of a commutative instruction, so that the
// portable loops and the host's vector kernels could disagree. Where a is NaN the operation
// therefore runs on (a, a): the result is a's NaN, quieted, whatever the operand order. (A GPU
// may return its canonical NaN instead; the GPU tests accept any NaN from arithmetic.)
template <class H, class FloatOp>
HETCCL_HOST_DEVICE inline H viaFloat(H a, H b, FloatOp floatOp) {
  const float x = toFloat(a);
  const float y = x != x ? x : toFloat(b);
  return fromFloat<H>(floatOp(x, y));
}
struct FloatAdd {
  HETCCL_HOST_DEVICE float operator()(float a, float b) const { return a + b; }
};
struct FloatMultiply {
  HETCCL_HOST_DEVICE float operator()(float a, float b) const { return a * b; }
};
HETCCL_HOST_DEVICE inline Float16 add(Float16 a, Float16 b) { return viaFloat(a, b, FloatAdd()); }
HETCCL_HOST_DEVICE inline Bfloat16 add(Bfloat16 a, Bfloat16 b) { return viaFloat(a, b, FloatAdd()); }
HETCCL_HOST_DEVICE inline Float16 multiply(Float16 a, Float16 b) { return viaFloat(a, b, FloatMultiply()); }
HETCCL_HOST_DEVICE inline Bfloat16 multiply(Bfloat16 a, Bfloat16 b) { return viaFloat(a, b, FloatMultiply()); }
// Max and min return one of the operands unchanged: no rounding, and a NaN keeps its bits.
HETCCL_HOST_DEVICE inline Float16 maximum(Float16 a, Float16 b) {
  return firstIsMaximum(toFloat(a), toFloat(b)) ? a : b;
}
HETCCL_HOST_DEVICE inline Bfloat16 maximum(Bfloat16 a, Bfloat16 b) {
  return firstIsMaximum(toFloat(a), toFloat(b)) ? a : b;
}
HETCCL_HOST_DEVICE inline Float16 minimum(Float16 a, Float16 b) {
  return firstIsMinimum(toFloat(a), toFloat(b)) ? a : b;
}
HETCCL_HOST_DEVICE inline Bfloat16 minimum(Bfloat16 a, Bfloat16 b) {
  return firstIsMinimum(toFloat(a), toFloat(b)) ? a : b;
}

// Average's final division. Integers truncate toward zero like C, signed as signed; the
// quotient is taken on the magnitude in 64 bits so that any divisor (even one larger than the
// type's range, which a narrow `T(divisor)` would corrupt) gives the exact truncated quotient.
template <class T>
HETCCL_HOST_DEVICE inline T divide(T x, uint64_t divisor) {
  static_assert(std::is_integral<T>::value, "no division defined for this type");
  if constexpr (std::is_signed<T>::value) {
    if (x < 0) {
      const uint64_t magnitude = uint64_t(0) - uint64_t(x);  // also right for the minimum
      return static_cast<T>(uint64_t(0) - magnitude / divisor);
    }
  }
  return static_cast<T>(uint64_t(x) / divisor);
}
HETCCL_HOST_DEVICE inline float divide(float x, uint64_t divisor) { return x / float(divisor); }
HETCCL_HOST_DEVICE inline double divide(double x, uint64_t divisor) { return x / double(divisor); }
// One float division rounded once more: innocuous as for sum and product (p' >= 2p+2 covers
// division too) while the divisor is exact in float (<= 2^24). For bfloat16 subnormal
// quotients k*2^-133/d, a quotient off a halfway point is off by >= 2^-134/d, more than float's
// half-step 2^-150 while d <= 2^16: far above any rank count.
HETCCL_HOST_DEVICE inline Float16 divide(Float16 x, uint64_t divisor) { return toFloat16(toFloat(x) / float(divisor)); }
HETCCL_HOST_DEVICE inline Bfloat16 divide(Bfloat16 x, uint64_t divisor) {
  return toBfloat16(toFloat(x) / float(divisor));
}

}  // namespace reduce_math

// ---- Functors (what kernels and the host loops are instantiated with) ----------------------
// Avg reduces with SumOp; DivideOp is applied once at the end.
template <class T>
struct SumOp {
  HETCCL_HOST_DEVICE T operator()(T a, T b) const { return reduce_math::add(a, b); }
};
template <class T>
struct ProdOp {
  HETCCL_HOST_DEVICE T operator()(T a, T b) const { return reduce_math::multiply(a, b); }
};
template <class T>
struct MaxOp {
  HETCCL_HOST_DEVICE T operator()(T a, T b) const { return reduce_math::maximum(a, b); }
};
template <class T>
struct MinOp {
  HETCCL_HOST_DEVICE T operator()(T a, T b) const { return reduce_math::minimum(a, b); }
};
template <class T>
struct DivideOp {
  uint64_t divisor;
  HETCCL_HOST_DEVICE T operator()(T x) const { return reduce_math::divide(x, divisor); }
};

// dst[i] = op(a[i], b[i]) for i = begin, begin + stride, ... < end. A GPU kernel calls it with
// a grid-stride (begin = thread index, stride = total threads); the host with stride 1.
// dst may be a or b exactly: every element is read before it is written.
template <class T, class Op>
HETCCL_HOST_DEVICE inline void reduceRange(T* dst, const T* a, const T* b, size_t begin, size_t end, size_t stride,
                                           Op op) {
  for (size_t i = begin; i < end; i += stride) dst[i] = op(a[i], b[i]);
}

// x[i] = op(x[i]) over the same index pattern, for DivideOp.
template <class T, class Op>
HETCCL_HOST_DEVICE inline void transformRange(T* x, size_t begin, size_t end, size_t stride, Op op) {
  for (size_t i = begin; i < end; i += stride) x[i] = op(x[i]);
}

}  // namespace hetccl
