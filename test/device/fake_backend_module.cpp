// Stand-ins for GPU backend modules, so the loader's every outcome is tested without a GPU.
// One source, three modules (CMakeLists.txt): FAKE_HOST_DEVICE opens a host device through the
// module boundary, FAKE_NO_DEVICE reports that it found none, FAKE_NO_FACTORY lacks the
// factory symbol (a module of another interface version).
#include <cstdio>

#include "device/backend_module.h"
#include "device/host/host_device.h"

#if defined(FAKE_HOST_DEVICE)
extern "C" __attribute__((visibility("default"))) hetccl::Device* hetcclCreateDevice_v1(char* error, size_t errorSize) {
  return hetccl::makeHostDevice().release();
}
#elif defined(FAKE_NO_DEVICE)
extern "C" __attribute__((visibility("default"))) hetccl::Device* hetcclCreateDevice_v1(char* error, size_t errorSize) {
  std::snprintf(error, errorSize, "fake backend: no device here");
  return nullptr;
}
#elif defined(FAKE_NO_FACTORY)
extern "C" __attribute__((visibility("default"))) int hetcclCreateDevice_v0() { return 0; }
#else
#error "define FAKE_HOST_DEVICE, FAKE_NO_DEVICE or FAKE_NO_FACTORY"
#endif
