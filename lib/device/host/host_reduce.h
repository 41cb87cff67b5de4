// The host backend's elementwise reduction and average division: the functors of
// device/reduce_ops.h applied in plain loops the compiler can vectorize, and for float16 and
// bfloat16, where the CPU has AVX2 and F16C, vector kernels that give the same bits
// (half_kernels_avx2.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/element.h"

namespace hetccl {

// dst[i] = a[i] (op) b[i] for i < count. dst may be a or b exactly (or both), never a partial
// overlap. Avg reduces as Sum (hostDivide finishes it). Arguments are the caller's to check:
// an invalid type or op does nothing.
void hostReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op);

// dst[i] = dst[i] / divisor with DivideOp's rounding. divisor must not be 0.
void hostDivide(void* dst, size_t count, ElementType type, uint64_t divisor);

// dst[i] = src[i] converted: float16/bfloat16 to float32 or back (Device::convertAsync), through
// the vector kernels where the CPU has them. A pair outside those does nothing.
void hostConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count);

// The same three through the portable loops alone, whatever the CPU: the reference the vector
// kernels are tested against and the baseline the benchmark measures them by.
void hostReducePortable(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op);
void hostDividePortable(void* dst, size_t count, ElementType type, uint64_t divisor);
void hostConvertPortable(void* dst, ElementType to, const void* src, ElementType from, size_t count);

}  // namespace hetccl
