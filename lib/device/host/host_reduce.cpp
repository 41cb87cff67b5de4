#include "device/host/host_reduce.h"

#include "device/host/half_kernels_avx2.h"
#include "device/reduce_ops.h"

namespace hetccl {
namespace {

// One loop per aliasing shape, each with restrict-qualified pointers, so the compiler
// vectorizes without runtime overlap checks. Restrict is only truthful if no pointer that
// writes is also read through another pointer: hence separate loops for dst == a, dst == b
// and dst == a == b rather than one loop that is "usually" unaliased. (a == b with a distinct
// dst is fine: restrict allows aliasing between pointers that are only read.)
template <class T, class Op>
void reduceDistinct(T* __restrict__ dst, const T* __restrict__ a, const T* __restrict__ b, size_t count, Op op) {
  for (size_t i = 0; i < count; ++i) dst[i] = op(a[i], b[i]);
}
template <class T, class Op>
void reduceIntoFirst(T* __restrict__ inout, const T* __restrict__ b, size_t count, Op op) {
  for (size_t i = 0; i < count; ++i) inout[i] = op(inout[i], b[i]);
}
template <class T, class Op>
void reduceIntoSecond(const T* __restrict__ a, T* __restrict__ inout, size_t count, Op op) {
  for (size_t i = 0; i < count; ++i) inout[i] = op(a[i], inout[i]);
}
template <class T, class Op>
void reduceWithItself(T* inout, size_t count, Op op) {
  for (size_t i = 0; i < count; ++i) inout[i] = op(inout[i], inout[i]);
}

template <class T, class Op>
void reduceTyped(void* dstBytes, const void* aBytes, const void* bBytes, size_t count, Op op) {
  T* dst = static_cast<T*>(dstBytes);
  const T* a = static_cast<const T*>(aBytes);
  const T* b = static_cast<const T*>(bBytes);
  if (dst == a && dst == b) {
    reduceWithItself(dst, count, op);
  } else if (dst == a) {
    reduceIntoFirst(dst, b, count, op);
  } else if (dst == b) {
    reduceIntoSecond(a, dst, count, op);
  } else {
    reduceDistinct(dst, a, b, count, op);
  }
}

template <class T>
void reduceWithOp(void* dst, const void* a, const void* b, size_t count, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return reduceTyped<T>(dst, a, b, count, SumOp<T>());
    case ReduceOp::Prod: return reduceTyped<T>(dst, a, b, count, ProdOp<T>());
    case ReduceOp::Max: return reduceTyped<T>(dst, a, b, count, MaxOp<T>());
    case ReduceOp::Min: return reduceTyped<T>(dst, a, b, count, MinOp<T>());
  }
}

template <class T>
void divideTyped(void* dstBytes, size_t count, uint64_t divisor) {
  T* __restrict__ dst = static_cast<T*>(dstBytes);
  const DivideOp<T> divide{divisor};
  for (size_t i = 0; i < count; ++i) dst[i] = divide(dst[i]);
}

// float16 and bfloat16: whole blocks through the vector kernel where the CPU runs it, the rest
// (all of it on other CPUs) through the portable loop. Offsetting every pointer alike keeps
// dst == a or dst == b as it was.
using HalfReduceKernel = size_t (*)(uint16_t*, const uint16_t*, const uint16_t*, size_t, ReduceOp);
using HalfDivideKernel = size_t (*)(uint16_t*, size_t, uint64_t);

template <class H>
void reduceHalf(void* dstBytes, const void* aBytes, const void* bBytes, size_t count, ReduceOp op,
                HalfReduceKernel kernel) {
  H* dst = static_cast<H*>(dstBytes);
  const H* a = static_cast<const H*>(aBytes);
  const H* b = static_cast<const H*>(bBytes);
  size_t done = 0;
  if (halfKernelsAvailable()) {
    done = kernel(reinterpret_cast<uint16_t*>(dst), reinterpret_cast<const uint16_t*>(a),
                  reinterpret_cast<const uint16_t*>(b), count, op);
  }
  reduceWithOp<H>(dst + done, a + done, b + done, count - done, op);
}

template <class H>
void divideHalf(void* dstBytes, size_t count, uint64_t divisor, HalfDivideKernel kernel) {
  H* dst = static_cast<H*>(dstBytes);
  const size_t done = halfKernelsAvailable() ? kernel(reinterpret_cast<uint16_t*>(dst), count, divisor) : 0;
  divideTyped<H>(dst + done, count - done, divisor);
}

// fp32 accumulation's conversions: the functors' own widening and rounding, element by element.
template <class H>
void widenTyped(float* dst, const H* src, size_t count) {
  for (size_t i = 0; i < count; ++i) dst[i] = toFloat(src[i]);
}
template <class H>
void narrowTyped(H* dst, const float* src, size_t count) {
  for (size_t i = 0; i < count; ++i) dst[i] = fromFloat<H>(src[i]);
}

using HalfWidenKernel = size_t (*)(float*, const uint16_t*, size_t);
using HalfNarrowKernel = size_t (*)(uint16_t*, const float*, size_t);

template <class H>
void convertHalf(void* dstBytes, ElementType to, const void* srcBytes, size_t count, HalfWidenKernel widen,
                 HalfNarrowKernel narrow, bool vector) {
  if (to == ElementType::Float32) {
    float* dst = static_cast<float*>(dstBytes);
    const H* src = static_cast<const H*>(srcBytes);
    const size_t done = vector ? widen(dst, reinterpret_cast<const uint16_t*>(src), count) : 0;
    widenTyped<H>(dst + done, src + done, count - done);
  } else {
    H* dst = static_cast<H*>(dstBytes);
    const float* src = static_cast<const float*>(srcBytes);
    const size_t done = vector ? narrow(reinterpret_cast<uint16_t*>(dst), src, count) : 0;
    narrowTyped<H>(dst + done, src + done, count - done);
  }
}

void convert(void* dst, ElementType to, const void* src, ElementType from, size_t count, bool vector) {
  const ElementType narrow = to == ElementType::Float32 ? from : to;
  if ((to == ElementType::Float32) == (from == ElementType::Float32)) return;
  switch (narrow) {
    case ElementType::Float16:
      return convertHalf<Float16>(dst, to, src, count, widenFloat16Avx2, narrowFloat16Avx2, vector);
    case ElementType::Bfloat16:
      return convertHalf<Bfloat16>(dst, to, src, count, widenBfloat16Avx2, narrowBfloat16Avx2, vector);
    default: return;
  }
}

}  // namespace

void hostConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count) {
  convert(dst, to, src, from, count, halfKernelsAvailable());
}

void hostConvertPortable(void* dst, ElementType to, const void* src, ElementType from, size_t count) {
  convert(dst, to, src, from, count, false);
}

void hostReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op) {
  switch (type) {
    case ElementType::Float16: return reduceHalf<Float16>(dst, a, b, count, op, reduceFloat16Avx2);
    case ElementType::Bfloat16: return reduceHalf<Bfloat16>(dst, a, b, count, op, reduceBfloat16Avx2);
    default: return hostReducePortable(dst, a, b, count, type, op);
  }
}

void hostDivide(void* dst, size_t count, ElementType type, uint64_t divisor) {
  if (divisor == 0) return;  // the device layer rejects it; never divide by zero here
  switch (type) {
    case ElementType::Float16: return divideHalf<Float16>(dst, count, divisor, divideFloat16Avx2);
    case ElementType::Bfloat16: return divideHalf<Bfloat16>(dst, count, divisor, divideBfloat16Avx2);
    default: return hostDividePortable(dst, count, type, divisor);
  }
}

void hostReducePortable(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op) {
  switch (type) {
    case ElementType::Int8: return reduceWithOp<int8_t>(dst, a, b, count, op);
    case ElementType::Uint8: return reduceWithOp<uint8_t>(dst, a, b, count, op);
    case ElementType::Int32: return reduceWithOp<int32_t>(dst, a, b, count, op);
    case ElementType::Uint32: return reduceWithOp<uint32_t>(dst, a, b, count, op);
    case ElementType::Int64: return reduceWithOp<int64_t>(dst, a, b, count, op);
    case ElementType::Uint64: return reduceWithOp<uint64_t>(dst, a, b, count, op);
    case ElementType::Float16: return reduceWithOp<Float16>(dst, a, b, count, op);
    case ElementType::Float32: return reduceWithOp<float>(dst, a, b, count, op);
    case ElementType::Float64: return reduceWithOp<double>(dst, a, b, count, op);
    case ElementType::Bfloat16: return reduceWithOp<Bfloat16>(dst, a, b, count, op);
  }
}

void hostDividePortable(void* dst, size_t count, ElementType type, uint64_t divisor) {
  if (divisor == 0) return;
  switch (type) {
    case ElementType::Int8: return divideTyped<int8_t>(dst, count, divisor);
    case ElementType::Uint8: return divideTyped<uint8_t>(dst, count, divisor);
    case ElementType::Int32: return divideTyped<int32_t>(dst, count, divisor);
    case ElementType::Uint32: return divideTyped<uint32_t>(dst, count, divisor);
    case ElementType::Int64: return divideTyped<int64_t>(dst, count, divisor);
    case ElementType::Uint64: return divideTyped<uint64_t>(dst, count, divisor);
    case ElementType::Float16: return divideTyped<Float16>(dst, count, divisor);
    case ElementType::Float32: return divideTyped<float>(dst, count, divisor);
    case ElementType::Float64: return divideTyped<double>(dst, count, divisor);
    case ElementType::Bfloat16: return divideTyped<Bfloat16>(dst, count, divisor);
  }
}

}  // namespace hetccl
