// libhetccl-device-cuda.so's one export: the CUDA device (GpuDevice over the CUDA runtime).
#include "device/backend_module.h"
#include "device/cuda/cuda_api.h"
#include "device/gpu/module_factory.h"

extern "C" __attribute__((visibility("default"))) hetccl::Device* hetcclCreateDevice_v1(char* error, size_t errorSize) {
  return hetccl::createGpuDeviceForModule<hetccl::CudaApi>(error, errorSize);
}
