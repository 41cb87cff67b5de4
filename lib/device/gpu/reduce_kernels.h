// The reduction, division and conversion kernels of every GPU backend, written once over the functors of
// device/reduce_ops.h and compiled by each vendor's toolchain (cuda/cuda_kernels.cu with nvcc,
// hip/hip_kernels.hip with hipcc). Include the vendor's runtime header first: it defines
// __global__, the <<<>>> launch and the built-in thread indices this file uses.
//
// Nothing here computes: every element goes through reduceRange/transformRange with a
// reduce_ops.h functor, so the GPU gives the host backend's bits (given the no-flush-to-zero,
// no-contraction flags the build passes).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "base/element.h"
#include "device/reduce_ops.h"

namespace hetccl {
namespace gpu {

// 16 bytes of elements: one vector load per operand per thread instead of up to 16 narrow ones,
// which is what lets 1- and 2-byte types reach memory bandwidth. The storage is the runtime's
// uint4 because compilers load and store that as one vector; an array of T copies lane by lane.
constexpr size_t kPackBytes = 16;
template <class T>
struct alignas(kPackBytes) Pack {
  static constexpr int kCount = int(kPackBytes / sizeof(T));
  uint4 raw;
};
static_assert(sizeof(uint4) == kPackBytes, "uint4 is the 16-byte vector");

// Applies an element functor to every lane of a pack: still the reduce_ops.h arithmetic. The
// lanes are unpacked in registers (the memcpys compile to nothing).
template <class T, class Op>
struct PackReduce {
  Op op;
  __device__ Pack<T> operator()(Pack<T> a, Pack<T> b) const {
    T x[Pack<T>::kCount], y[Pack<T>::kCount];
    __builtin_memcpy(x, &a.raw, kPackBytes);
    __builtin_memcpy(y, &b.raw, kPackBytes);
    for (int i = 0; i < Pack<T>::kCount; ++i) x[i] = op(x[i], y[i]);
    Pack<T> out;
    __builtin_memcpy(&out.raw, x, kPackBytes);
    return out;
  }
};
template <class T, class Op>
struct PackTransform {
  Op op;
  __device__ Pack<T> operator()(Pack<T> p) const {
    T x[Pack<T>::kCount];
    __builtin_memcpy(x, &p.raw, kPackBytes);
    for (int i = 0; i < Pack<T>::kCount; ++i) x[i] = op(x[i]);
    Pack<T> out;
    __builtin_memcpy(&out.raw, x, kPackBytes);
    return out;
  }
};

// Grid-stride indices: any grid covers any count, so the grid can be sized to the device
// (enough blocks to fill it) rather than to the data.
__device__ inline size_t threadIndex() { return size_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline size_t threadCount() { return size_t(gridDim.x) * blockDim.x; }

// Every pointer 16-byte aligned: whole packs first, then the last count % kCount elements.
template <class T, class Op>
__global__ void reducePackedKernel(T* dst, const T* a, const T* b, size_t count, Op op) {
  const size_t packs = count / Pack<T>::kCount;
  reduceRange(reinterpret_cast<Pack<T>*>(dst), reinterpret_cast<const Pack<T>*>(a), reinterpret_cast<const Pack<T>*>(b),
              threadIndex(), packs, threadCount(), PackReduce<T, Op>{op});
  reduceRange(dst, a, b, packs * Pack<T>::kCount + threadIndex(), count, threadCount(), op);
}
// Any alignment (a sub-range at an odd offset): one element at a time.
template <class T, class Op>
__global__ void reduceKernel(T* dst, const T* a, const T* b, size_t count, Op op) {
  reduceRange(dst, a, b, threadIndex(), count, threadCount(), op);
}
template <class T, class Op>
__global__ void transformPackedKernel(T* x, size_t count, Op op) {
  const size_t packs = count / Pack<T>::kCount;
  transformRange(reinterpret_cast<Pack<T>*>(x), threadIndex(), packs, threadCount(), PackTransform<T, Op>{op});
  transformRange(x, packs * Pack<T>::kCount + threadIndex(), count, threadCount(), op);
}
template <class T, class Op>
__global__ void transformKernel(T* x, size_t count, Op op) {
  transformRange(x, threadIndex(), count, threadCount(), op);
}

// Blocks of 256 threads, at most `maxBlocks` of them (the backend passes a few per
// multiprocessor: enough to hide memory latency, few enough that each thread loops).
constexpr unsigned kThreadsPerBlock = 256;
inline unsigned blocksFor(size_t work, unsigned maxBlocks) {
  const size_t wanted = (work + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return unsigned(wanted < maxBlocks ? (wanted > 0 ? wanted : 1) : maxBlocks);
}
inline bool packAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kPackBytes == 0; }

template <class T, class Op, class Stream>
void launchReduceTyped(void* dstBytes, const void* aBytes, const void* bBytes, size_t count, Op op, unsigned maxBlocks,
                       Stream stream) {
  T* dst = static_cast<T*>(dstBytes);
  const T* a = static_cast<const T*>(aBytes);
  const T* b = static_cast<const T*>(bBytes);
  if (packAligned(dst) && packAligned(a) && packAligned(b)) {
    const unsigned blocks = blocksFor(count / Pack<T>::kCount, maxBlocks);
    reducePackedKernel<T, Op><<<blocks, kThreadsPerBlock, 0, stream>>>(dst, a, b, count, op);
  } else {
    reduceKernel<T, Op><<<blocksFor(count, maxBlocks), kThreadsPerBlock, 0, stream>>>(dst, a, b, count, op);
  }
}

template <class T, class Stream>
bool launchReduceOp(void* dst, const void* a, const void* b, size_t count, ReduceOp op, unsigned maxBlocks,
                    Stream stream) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:  // the division is a separate launch (launchDivide)
      launchReduceTyped<T>(dst, a, b, count, SumOp<T>(), maxBlocks, stream);
      return true;
    case ReduceOp::Prod: launchReduceTyped<T>(dst, a, b, count, ProdOp<T>(), maxBlocks, stream); return true;
    case ReduceOp::Max: launchReduceTyped<T>(dst, a, b, count, MaxOp<T>(), maxBlocks, stream); return true;
    case ReduceOp::Min: launchReduceTyped<T>(dst, a, b, count, MinOp<T>(), maxBlocks, stream); return true;
  }
  return false;
}

// Enqueues dst[i] = a[i] (op) b[i] on `stream`. False for a type or op outside the enums;
// launch errors are the caller's to collect (cudaGetLastError / hipGetLastError).
template <class Stream>
bool launchReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                  unsigned maxBlocks, Stream stream) {
  switch (type) {
    case ElementType::Int8: return launchReduceOp<int8_t>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Uint8: return launchReduceOp<uint8_t>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Int32: return launchReduceOp<int32_t>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Uint32: return launchReduceOp<uint32_t>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Int64: return launchReduceOp<int64_t>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Uint64: return launchReduceOp<uint64_t>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Float16: return launchReduceOp<Float16>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Float32: return launchReduceOp<float>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Float64: return launchReduceOp<double>(dst, a, b, count, op, maxBlocks, stream);
    case ElementType::Bfloat16: return launchReduceOp<Bfloat16>(dst, a, b, count, op, maxBlocks, stream);
  }
  return false;
}

template <class T, class Stream>
void launchDivideTyped(void* xBytes, size_t count, uint64_t divisor, unsigned maxBlocks, Stream stream) {
  T* x = static_cast<T*>(xBytes);
  const DivideOp<T> op{divisor};
  if (packAligned(x)) {
    const unsigned blocks = blocksFor(count / Pack<T>::kCount, maxBlocks);
    transformPackedKernel<T><<<blocks, kThreadsPerBlock, 0, stream>>>(x, count, op);
  } else {
    transformKernel<T><<<blocksFor(count, maxBlocks), kThreadsPerBlock, 0, stream>>>(x, count, op);
  }
}

// Enqueues x[i] = x[i] / divisor (DivideOp) on `stream`. False for a type outside the enum.
template <class Stream>
bool launchDivide(void* x, size_t count, ElementType type, uint64_t divisor, unsigned maxBlocks, Stream stream) {
  switch (type) {
    case ElementType::Int8: launchDivideTyped<int8_t>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Uint8: launchDivideTyped<uint8_t>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Int32: launchDivideTyped<int32_t>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Uint32: launchDivideTyped<uint32_t>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Int64: launchDivideTyped<int64_t>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Uint64: launchDivideTyped<uint64_t>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Float16: launchDivideTyped<Float16>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Float32: launchDivideTyped<float>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Float64: launchDivideTyped<double>(x, count, divisor, maxBlocks, stream); break;
    case ElementType::Bfloat16: launchDivideTyped<Bfloat16>(x, count, divisor, maxBlocks, stream); break;
    default: return false;
  }
  return true;
}

// fp32 accumulation's conversions: one element per thread and grid stride, through
// reduce_ops.h's toFloat and fromFloat (a conversion pass is a small share of the collective
// it frames, so no packs).
template <class From, class To>
struct ConvertElement;
template <class H>
struct ConvertElement<H, float> {
  __device__ float operator()(H x) const { return toFloat(x); }
};
template <class H>
struct ConvertElement<float, H> {
  __device__ H operator()(float x) const { return fromFloat<H>(x); }
};

template <class From, class To>
__global__ void convertKernel(To* dst, const From* src, size_t count) {
  const ConvertElement<From, To> convert;
  for (size_t i = threadIndex(); i < count; i += threadCount()) dst[i] = convert(src[i]);
}

template <class From, class To, class Stream>
void launchConvertTyped(void* dst, const void* src, size_t count, unsigned maxBlocks, Stream stream) {
  convertKernel<From, To><<<blocksFor(count, maxBlocks), kThreadsPerBlock, 0, stream>>>(
      static_cast<To*>(dst), static_cast<const From*>(src), count);
}

// Enqueues dst[i] = src[i] converted from `from` to `to` on `stream`: float16/bfloat16 to
// float32 or back. False for any other pair.
template <class Stream>
bool launchConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count, unsigned maxBlocks,
                   Stream stream) {
  using E = ElementType;
  if (to == E::Float32 && from == E::Float16)
    launchConvertTyped<Float16, float>(dst, src, count, maxBlocks, stream);
  else if (to == E::Float32 && from == E::Bfloat16)
    launchConvertTyped<Bfloat16, float>(dst, src, count, maxBlocks, stream);
  else if (to == E::Float16 && from == E::Float32)
    launchConvertTyped<float, Float16>(dst, src, count, maxBlocks, stream);
  else if (to == E::Bfloat16 && from == E::Float32)
    launchConvertTyped<float, Bfloat16>(dst, src, count, maxBlocks, stream);
  else
    return false;
  return true;
}

}  // namespace gpu
}  // namespace hetccl
