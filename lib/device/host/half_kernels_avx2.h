// float16 and bfloat16 reduction kernels for x86-64 CPUs with AVX2 and F16C, chosen at run time
// (the baseline x86-64 target the library is built for has neither, so the portable loops
// convert in software at a fraction of memory speed). Each kernel gives exactly the bits of
// device/reduce_ops.h's functors, NaN payloads included; the functors stay the reference.
//
// Kernels work on whole blocks of kHalfKernelBlock elements and return how many they did; the
// caller finishes the remainder with the portable loop. Call them only when
// halfKernelsAvailable() is true: on another CPU they fault. On a non-x86 build they do nothing
// and report 0 elements done.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/element.h"

namespace hetccl {

constexpr size_t kHalfKernelBlock = 16;  // one 256-bit vector of 16-bit elements

// True when this CPU and its OS run AVX2 and F16C; asked once, then remembered.
bool halfKernelsAvailable();

// dst[i] = a[i] (op) b[i] for the first count - count % kHalfKernelBlock elements; dst may be a
// or b exactly (or both). Avg reduces as Sum, as in hostReduce.
size_t reduceFloat16Avx2(uint16_t* dst, const uint16_t* a, const uint16_t* b, size_t count, ReduceOp op);
size_t reduceBfloat16Avx2(uint16_t* dst, const uint16_t* a, const uint16_t* b, size_t count, ReduceOp op);

// x[i] = DivideOp{divisor}(x[i]) over the same whole blocks; divisor must not be 0.
size_t divideFloat16Avx2(uint16_t* x, size_t count, uint64_t divisor);
size_t divideBfloat16Avx2(uint16_t* x, size_t count, uint64_t divisor);

// fp32 accumulation's conversions (Device::convertAsync) over the same whole blocks: widening
// gives toFloat's bits (a NaN quieted, payload kept), narrowing toFloat16's / toBfloat16's.
size_t widenFloat16Avx2(float* dst, const uint16_t* src, size_t count);
size_t widenBfloat16Avx2(float* dst, const uint16_t* src, size_t count);
size_t narrowFloat16Avx2(uint16_t* dst, const float* src, size_t count);
size_t narrowBfloat16Avx2(uint16_t* dst, const float* src, size_t count);

}  // namespace hetccl
