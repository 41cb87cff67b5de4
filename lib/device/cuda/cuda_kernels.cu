// The CUDA instantiation of the shared GPU kernels (device/gpu/reduce_kernels.h). Built with
// -ftz=false -prec-div=true -prec-sqrt=true -fmad=false (see CMakeLists.txt): the host
// backend's bits, not merely close to them.
#include <cuda_runtime.h>

#include "device/cuda/cuda_api.h"
#include "device/gpu/reduce_kernels.h"

namespace hetccl {

cudaError_t cudaLaunchReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                             unsigned maxBlocks, cudaStream_t stream) {
  (void)cudaGetLastError();  // forget an earlier failed call's error (say, a cudaMalloc)
  if (!gpu::launchReduce(dst, a, b, count, type, op, maxBlocks, stream)) return cudaErrorInvalidValue;
  return cudaGetLastError();  // a bad configuration or a missing kernel image shows up here
}

cudaError_t cudaLaunchDivide(void* x, size_t count, ElementType type, uint64_t divisor, unsigned maxBlocks,
                             cudaStream_t stream) {
  (void)cudaGetLastError();
  if (!gpu::launchDivide(x, count, type, divisor, maxBlocks, stream)) return cudaErrorInvalidValue;
  return cudaGetLastError();
}

cudaError_t cudaLaunchConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                              unsigned maxBlocks, cudaStream_t stream) {
  (void)cudaGetLastError();
  if (!gpu::launchConvert(dst, to, src, from, count, maxBlocks, stream)) return cudaErrorInvalidValue;
  return cudaGetLastError();
}

}  // namespace hetccl
