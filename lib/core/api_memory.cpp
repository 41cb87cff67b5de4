// Device memory and streams of this process's device, for programs that do not talk to CUDA
// or HIP themselves (and for every program on host devices).
#include "core/api_support.h"
#include "core/process_device.h"

using hetccl::Code;
using hetccl::report;

extern "C" {

hetcclResult_t hetcclMemAlloc(void** ptr, size_t size) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!ptr) return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "ptr is NULL"));
    hetccl::Device* device = nullptr;
    hetccl::Status status = hetccl::processDevice(&device);
    if (status.isOk()) status = device->allocate(ptr, size);
    return report(nullptr, status);
  });
}

hetcclResult_t hetcclMemFree(void* ptr) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!ptr) return hetcclSuccess;
    hetccl::Device* device = nullptr;
    hetccl::Status status = hetccl::processDevice(&device);
    if (status.isOk()) status = device->release(ptr);
    return report(nullptr, status);
  });
}

static hetcclResult_t blockingCopy(void* dst, const void* src, size_t bytes, const char* what) {
  if (bytes > 0 && (!dst || !src))
    return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "%s: NULL pointer with %zu bytes", what, bytes));
  hetccl::Device* device = nullptr;
  hetccl::Status status = hetccl::processDevice(&device);
  if (status.isOk() && bytes > 0) status = device->copyAsync(dst, src, bytes, nullptr);
  if (status.isOk()) status = device->synchronizeStream(nullptr);
  return report(nullptr, status);
}

hetcclResult_t hetcclGetDeviceKind(const char** kind) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!kind) return hetccl::report(nullptr, HETCCL_STATUS(hetccl::Code::InvalidArgument, "kind is NULL"));
    hetccl::Device* device = nullptr;
    if (hetcclResult_t failed = hetccl::report(nullptr, hetccl::processDevice(&device))) return failed;
    const bool strictHost = device->kind() == hetccl::DeviceKind::Host && !device->hostReadsMemory();
    *kind = strictHost ? "host-strict" : hetccl::deviceKindName(device->kind());
    return hetcclSuccess;
  });
}

hetcclResult_t hetcclGetDeviceIndex(int* index) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!index) return hetccl::report(nullptr, HETCCL_STATUS(hetccl::Code::InvalidArgument, "index is NULL"));
    hetccl::Device* device = nullptr;
    if (hetcclResult_t failed = hetccl::report(nullptr, hetccl::processDevice(&device))) return failed;
    *index = device->index();
    return hetcclSuccess;
  });
}

hetcclResult_t hetcclMemcpyToDevice(void* dst, const void* src, size_t bytes) {
  return hetccl::atBoundary(__func__,
                            [&]() -> hetcclResult_t { return blockingCopy(dst, src, bytes, "hetcclMemcpyToDevice"); });
}

hetcclResult_t hetcclMemcpyFromDevice(void* dst, const void* src, size_t bytes) {
  return hetccl::atBoundary(
      __func__, [&]() -> hetcclResult_t { return blockingCopy(dst, src, bytes, "hetcclMemcpyFromDevice"); });
}

hetcclResult_t hetcclStreamCreate(hetcclStream_t* stream) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!stream) return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "stream is NULL"));
    hetccl::Device* device = nullptr;
    hetccl::Status status = hetccl::processDevice(&device);
    if (status.isOk()) status = device->createStream(stream);
    return report(nullptr, status);
  });
}

hetcclResult_t hetcclStreamDestroy(hetcclStream_t stream) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!stream) return hetcclSuccess;  // the default stream is never destroyed
    hetccl::Device* device = nullptr;
    hetccl::Status status = hetccl::processDevice(&device);
    if (status.isOk()) status = device->destroyStream(stream);
    return report(nullptr, status);
  });
}

hetcclResult_t hetcclStreamSynchronize(hetcclStream_t stream) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::Device* device = nullptr;
    hetccl::Status status = hetccl::processDevice(&device);
    if (status.isOk()) status = device->synchronizeStream(stream);
    return report(nullptr, status);
  });
}

}  // extern "C"
