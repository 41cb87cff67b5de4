// The CUDA runtime calls GpuDevice needs, under the vendor-neutral names it uses (hip/hip_api.h
// has the same shape), so one device implementation serves both vendors. Runtime API only:
// the module links the static cudart and never libcuda, whose absence (no driver) must be a
// Status, not a binary that will not load. The few driver functions it needs (stream memory
// operations, which the runtime lacks) are looked up at run time in cuda_device.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "device/device.h"

namespace hetccl {

// Launchers compiled by nvcc (cuda_kernels.cu); they return the launch's error.
cudaError_t cudaLaunchReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                             unsigned maxBlocks, cudaStream_t stream);
cudaError_t cudaLaunchDivide(void* x, size_t count, ElementType type, uint64_t divisor, unsigned maxBlocks,
                             cudaStream_t stream);
cudaError_t cudaLaunchConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                              unsigned maxBlocks, cudaStream_t stream);

// Stream memory operations, from the driver through the runtime's entry-point query
// (cuda_device.cpp). Whether `device` can make a stream wait for a 64-bit value; if not, *why
// says what is missing (the driver's entry points or the device's support).
bool cudaDriverStreamMemOpsAvailable(int device, std::string* why);
// cuStreamWaitValue64(stream, devicePtr, value, CU_STREAM_WAIT_VALUE_GEQ), its error as the
// runtime's (the codes are the same); cudaErrorNotSupported when the driver lacks it.
cudaError_t cudaDriverStreamWaitValue64(cudaStream_t stream, void* devicePtr, uint64_t value);

struct CudaApi {
  using Error = cudaError_t;
  using Stream = cudaStream_t;
  using Event = cudaEvent_t;
  static constexpr DeviceKind kKind = DeviceKind::Cuda;
  static constexpr const char* kName = "CUDA";
  // NCCL: the island library, opened at run time (never linked: see core/island_library.h).
  static constexpr const char* kVendorLibrary = "libnccl.so.2";
  static constexpr const char* kCountCall = "cudaGetDeviceCount";
  static constexpr Error kSuccess = cudaSuccess;
  static constexpr Error kNotReady = cudaErrorNotReady;

  static const char* errorString(Error e) { return cudaGetErrorString(e); }
  static Error deviceCount(int* count) { return cudaGetDeviceCount(count); }
  static Error getDevice(int* device) { return cudaGetDevice(device); }
  static Error setDevice(int device) { return cudaSetDevice(device); }
  static Error multiprocessorCount(int device, int* count) {
    return cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, device);
  }
  // "NVIDIA H200, sm_90, PCI 0000:19:00.0"
  static std::string describe(int device) {
    cudaDeviceProp properties;
    if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) return "unknown CUDA device";
    char pci[32] = "?";
    (void)cudaDeviceGetPCIBusId(pci, sizeof pci, device);
    return std::string(properties.name) + ", sm_" + std::to_string(properties.major) +
           std::to_string(properties.minor) + ", PCI " + pci;
  }

  static Error malloc(void** ptr, size_t bytes) { return cudaMalloc(ptr, bytes); }
  static Error free(void* ptr) { return cudaFree(ptr); }
  // Portable: pinned for every context, so a bounce buffer serves any stream of the process.
  static Error mallocHost(void** ptr, size_t bytes) { return cudaHostAlloc(ptr, bytes, cudaHostAllocPortable); }
  static Error freeHost(void* ptr) { return cudaFreeHost(ptr); }
  // Pinned and mapped into the device's address space, for stream flags: the host writes them,
  // streams wait on them through hostDevicePointer's address. Freed with freeHost.
  static Error hostAllocMapped(void** ptr, size_t bytes) {
    return cudaHostAlloc(ptr, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  }
  static Error hostDevicePointer(void** devicePtr, void* hostPtr) {
    return cudaHostGetDevicePointer(devicePtr, hostPtr, 0);
  }

  // Waiting for host-written values: the driver's stream memory operations.
  static bool streamMemOpsAvailable(int device, std::string* why) {
    return cudaDriverStreamMemOpsAvailable(device, why);
  }
  // Work enqueued on `stream` later runs once the 64 bits at devicePtr are >= value.
  static Error streamWaitValue64(Stream stream, void* devicePtr, uint64_t value) {
    return cudaDriverStreamWaitValue64(stream, devicePtr, value);
  }

  // Non-blocking: hetccl's streams never serialize with the legacy default stream, as the
  // host backend's streams never do either.
  static Error streamCreate(Stream* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking); }
  static Error streamDestroy(Stream stream) { return cudaStreamDestroy(stream); }
  static Error streamSynchronize(Stream stream) { return cudaStreamSynchronize(stream); }
  static Error streamWaitEvent(Stream stream, Event event) { return cudaStreamWaitEvent(stream, event, 0); }
  static Error streamQuery(Stream stream) { return cudaStreamQuery(stream); }
  // Timing off: such events are cheaper to record and to wait on.
  static Error eventCreate(Event* event) { return cudaEventCreateWithFlags(event, cudaEventDisableTiming); }
  static Error eventDestroy(Event event) { return cudaEventDestroy(event); }
  static Error eventRecord(Event event, Stream stream) { return cudaEventRecord(event, stream); }
  static Error eventQuery(Event event) { return cudaEventQuery(event); }
  static Error eventSynchronize(Event event) { return cudaEventSynchronize(event); }

  // cudaMemcpyDefault: unified addressing tells device from (pinned or pageable) host memory.
  static Error memcpyAsync(void* dst, const void* src, size_t bytes, Stream stream) {
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
  }
  static Error launchReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                            unsigned maxBlocks, Stream stream) {
    return cudaLaunchReduce(dst, a, b, count, type, op, maxBlocks, stream);
  }
  static Error launchDivide(void* x, size_t count, ElementType type, uint64_t divisor, unsigned maxBlocks,
                            Stream stream) {
    return cudaLaunchDivide(x, count, type, divisor, maxBlocks, stream);
  }
  static Error launchConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                             unsigned maxBlocks, Stream stream) {
    return cudaLaunchConvert(dst, to, src, from, count, maxBlocks, stream);
  }
};

}  // namespace hetccl
