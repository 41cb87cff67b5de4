// The HIP runtime calls GpuDevice needs, under the vendor-neutral names cuda/cuda_api.h also
// uses. Compiled by the host compiler (g++) with __HIP_PLATFORM_AMD__, so only the runtime
// API header is included here; the kernels are hipcc's (hip_kernels.hip).
#pragma once

#include <hip/hip_runtime_api.h>

#include <string>

#include "device/device.h"

namespace hetccl {

// Launchers compiled by hipcc (hip_kernels.hip); they return the launch's error.
hipError_t hipLaunchReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                           unsigned maxBlocks, hipStream_t stream);
hipError_t hipLaunchDivide(void* x, size_t count, ElementType type, uint64_t divisor, unsigned maxBlocks,
                           hipStream_t stream);
hipError_t hipLaunchConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                            unsigned maxBlocks, hipStream_t stream);

struct HipApi {
  using Error = hipError_t;
  using Stream = hipStream_t;
  using Event = hipEvent_t;
  static constexpr DeviceKind kKind = DeviceKind::Hip;
  static constexpr const char* kName = "HIP";
  // RCCL: the island library, opened at run time (never linked: see core/island_library.h).
  static constexpr const char* kVendorLibrary = "librccl.so.1";
  static constexpr const char* kCountCall = "hipGetDeviceCount";
  static constexpr Error kSuccess = hipSuccess;
  static constexpr Error kNotReady = hipErrorNotReady;

  static const char* errorString(Error e) { return hipGetErrorString(e); }
  static Error deviceCount(int* count) { return hipGetDeviceCount(count); }
  static Error getDevice(int* device) { return hipGetDevice(device); }
  static Error setDevice(int device) { return hipSetDevice(device); }
  static Error multiprocessorCount(int device, int* count) {
    return hipDeviceGetAttribute(count, hipDeviceAttributeMultiprocessorCount, device);
  }
  // "AMD Instinct MI250X, gfx90a:sramecc+:xnack-, PCI 0000:c1:00.0"
  static std::string describe(int device) {
    hipDeviceProp_t properties;
    if (hipGetDeviceProperties(&properties, device) != hipSuccess) return "unknown HIP device";
    char pci[32] = "?";
    (void)hipDeviceGetPCIBusId(pci, sizeof pci, device);
    return std::string(properties.name) + ", " + properties.gcnArchName + ", PCI " + pci;
  }

  static Error malloc(void** ptr, size_t bytes) { return hipMalloc(ptr, bytes); }
  static Error free(void* ptr) { return hipFree(ptr); }
  // Portable: pinned for every device the process touches, like the CUDA backend's.
  static Error mallocHost(void** ptr, size_t bytes) { return hipHostMalloc(ptr, bytes, hipHostMallocPortable); }
  static Error freeHost(void* ptr) { return hipHostFree(ptr); }
  // Pinned and mapped, for stream flags (see cuda_api.h). Coherent (fine-grained) whatever the
  // environment's default: the device must see the host's writes while a stream waits, not
  // only at the next kernel boundary, which is all that coarse-grained memory promises.
  static Error hostAllocMapped(void** ptr, size_t bytes) {
    return hipHostMalloc(ptr, bytes, hipHostMallocMapped | hipHostMallocPortable | hipHostMallocCoherent);
  }
  static Error hostDevicePointer(void** devicePtr, void* hostPtr) {
    return hipHostGetDevicePointer(devicePtr, hostPtr, 0);
  }

  // Stream memory operations are runtime calls in HIP; a device says whether it has them.
  static bool streamMemOpsAvailable(int device, std::string* why) {
    int supported = 0;
    const Error error = hipDeviceGetAttribute(&supported, hipDeviceAttributeCanUseStreamWaitValue, device);
    if (error != hipSuccess) {
      *why = std::string("hipDeviceGetAttribute(hipDeviceAttributeCanUseStreamWaitValue) failed: ") +
             hipGetErrorString(error);
      return false;
    }
    if (supported == 0) *why = "the device does not support hipStreamWaitValue64";
    return supported != 0;
  }
  // hipStreamWaitValueGte with every bit of the mask: *ptr >= value. The address is the mapped
  // one (on AMD the same as the host's: pinned host memory has one address everywhere).
  static Error streamWaitValue64(Stream stream, void* devicePtr, uint64_t value) {
    return hipStreamWaitValue64(stream, devicePtr, value, hipStreamWaitValueGte, ~uint64_t(0));
  }

  // Non-blocking: never serialized with the null stream (see cuda_api.h).
  static Error streamCreate(Stream* stream) { return hipStreamCreateWithFlags(stream, hipStreamNonBlocking); }
  static Error streamDestroy(Stream stream) { return hipStreamDestroy(stream); }
  static Error streamSynchronize(Stream stream) { return hipStreamSynchronize(stream); }
  static Error streamWaitEvent(Stream stream, Event event) { return hipStreamWaitEvent(stream, event, 0); }
  static Error streamQuery(Stream stream) { return hipStreamQuery(stream); }
  static Error eventCreate(Event* event) { return hipEventCreateWithFlags(event, hipEventDisableTiming); }
  static Error eventDestroy(Event event) { return hipEventDestroy(event); }
  static Error eventRecord(Event event, Stream stream) { return hipEventRecord(event, stream); }
  static Error eventQuery(Event event) { return hipEventQuery(event); }
  static Error eventSynchronize(Event event) { return hipEventSynchronize(event); }

  static Error memcpyAsync(void* dst, const void* src, size_t bytes, Stream stream) {
    return hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, stream);
  }
  static Error launchReduce(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                            unsigned maxBlocks, Stream stream) {
    return hipLaunchReduce(dst, a, b, count, type, op, maxBlocks, stream);
  }
  static Error launchDivide(void* x, size_t count, ElementType type, uint64_t divisor, unsigned maxBlocks,
                            Stream stream) {
    return hipLaunchDivide(x, count, type, divisor, maxBlocks, stream);
  }
  static Error launchConvert(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                             unsigned maxBlocks, Stream stream) {
    return hipLaunchConvert(dst, to, src, from, count, maxBlocks, stream);
  }
};

}  // namespace hetccl
