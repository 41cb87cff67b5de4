// libhetccl-device-hip.so's one export: the HIP device (GpuDevice over the HIP runtime).
#include "device/backend_module.h"
#include "device/gpu/module_factory.h"
#include "device/hip/hip_api.h"

extern "C" __attribute__((visibility("default"))) hetccl::Device* hetcclCreateDevice_v1(char* error, size_t errorSize) {
  return hetccl::createGpuDeviceForModule<hetccl::HipApi>(error, errorSize);
}
