// The body of a GPU module's factory (backend_module.h): open the device, or explain why not.
// Exceptions (std::bad_alloc) must not cross the C boundary, so they become the reason too.
#pragma once

#include <cstdio>
#include <exception>
#include <memory>

#include "device/gpu/gpu_device.h"

namespace hetccl {

template <class Api>
Device* createGpuDeviceForModule(char* error, size_t errorSize) noexcept {
  auto fail = [&](const char* reason) -> Device* {
    if (error != nullptr && errorSize > 0) std::snprintf(error, errorSize, "%s", reason);
    return nullptr;
  };
  try {
    std::unique_ptr<Device> device;
    const Status status = GpuDevice<Api>::create(&device);
    if (!status.isOk()) return fail(status.message().c_str());
    return device.release();
  } catch (const std::exception& exception) {
    return fail(exception.what());
  }
}

}  // namespace hetccl
