// The HIP instantiation of the shared GPU kernels (device/gpu/reduce_kernels.h). Built by hipcc
// with -ffp-contract=off and without flush-to-zero (see CMakeLists.txt), so AMD GPUs give the
// host backend's bits, as NVIDIA ones do.
#include <hip/hip_runtime.h>

#include "device/gpu/reduce_kernels.h"
#include "device/hip/hip_api.h"

namespace hetccl {

hipError_t hipLaunchReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                           unsigned maxBlocks, hipStream_t stream) {
  (void)hipGetLastError();  // forget an earlier failed call's error (say, a hipMalloc)
  if (!gpu::launchReduce(dst, a, b, count, type, op, maxBlocks, stream)) return hipErrorInvalidValue;
  return hipGetLastError();  // a bad configuration or a missing code object shows up here
}

hipError_t hipLaunchDivide(void* x, size_t count, ElementType type, uint64_t divisor, unsigned maxBlocks,
                           hipStream_t stream) {
  (void)hipGetLastError();
  if (!gpu::launchDivide(x, count, type, divisor, maxBlocks, stream)) return hipErrorInvalidValue;
  return hipGetLastError();
}

hipError_t hipLaunchConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                            unsigned maxBlocks, hipStream_t stream) {
  (void)hipGetLastError();
  if (!gpu::launchConvert(dst, to, src, from, count, maxBlocks, stream)) return hipErrorInvalidValue;
  return hipGetLastError();
}

}  // namespace hetccl
