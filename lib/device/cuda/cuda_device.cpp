// libhetccl-device-cuda.so's one export: the CUDA device (GpuDevice over the CUDA runtime), and
// the driver functions it needs that the runtime lacks.
//
// cudaTypedefs.h (and the cuda.h it includes) give the driver's types, enums and function
// pointer types only: its functions are never called by name, which would link libcuda. They
// are looked up through the runtime's entry-point query instead, so the module still loads
// without a driver, and an old driver shows up as a Status.
#include <cudaTypedefs.h>

#include <string>

#include "device/backend_module.h"
#include "device/cuda/cuda_api.h"
#include "device/gpu/module_factory.h"

namespace hetccl {
namespace {

// The driver ABI to look up, fixed rather than the toolkit's: it is the one the PFN_..._vNNNNN
// types below describe (cuStreamWaitValue64's _v2 of CUDA 11.7, cuDeviceGet's and
// cuDeviceGetAttribute's of CUDA 2.0), whichever toolkit builds the module.
constexpr unsigned kDriverAbiVersion = 12000;

struct DriverEntries {
  PFN_cuDeviceGet_v2000 deviceGet = nullptr;
  PFN_cuDeviceGetAttribute_v2000 deviceGetAttribute = nullptr;
  PFN_cuStreamWaitValue64_v11070 streamWaitValue64 = nullptr;
  std::string missing;  // empty when every entry was found; otherwise why not
};

// cudaEnableDefault: the legacy default stream's variants, like every runtime call of this
// module (not built for per-thread default streams), so stream 0 means the same to both.
template <class Function>
void lookUp(const char* symbol, Function* function, std::string* missing) {
  void* address = nullptr;
#if CUDART_VERSION >= 12050
  const cudaError_t error = cudaGetDriverEntryPointByVersion(symbol, &address, kDriverAbiVersion, cudaEnableDefault);
#else
  // Deprecated from CUDA 12.5 in favour of the call above; before it, the only one, and it
  // looks up the ABI of the runtime's own version (12.0 to 12.4: the same entries).
  const cudaError_t error = cudaGetDriverEntryPoint(symbol, &address, cudaEnableDefault);
#endif
  if (error != cudaSuccess || address == nullptr) {
    if (!missing->empty()) *missing += ", ";
    *missing += symbol;
    if (error != cudaSuccess) *missing += std::string(" (") + cudaGetErrorString(error) + ")";
    return;
  }
  *function = reinterpret_cast<Function>(address);
}

// Looked up once, by the first caller (a function-local static: thread-safe initialization).
const DriverEntries& driverEntries() {
  static const DriverEntries entries = [] {
    DriverEntries found;
    lookUp("cuDeviceGet", &found.deviceGet, &found.missing);
    lookUp("cuDeviceGetAttribute", &found.deviceGetAttribute, &found.missing);
    lookUp("cuStreamWaitValue64", &found.streamWaitValue64, &found.missing);
    if (!found.missing.empty()) found.missing = "the CUDA driver lacks " + found.missing;
    return found;
  }();
  return entries;
}

}  // namespace

bool cudaDriverStreamMemOpsAvailable(int device, std::string* why) {
  const DriverEntries& driver = driverEntries();
  if (!driver.missing.empty()) {
    *why = driver.missing;
    return false;
  }
  // The runtime's device numbers are the driver's ordinals; cuDeviceGet makes the handle.
  CUdevice handle = 0;
  int supported = 0;
  CUresult error = driver.deviceGet(&handle, device);
  if (error == CUDA_SUCCESS)
    error = driver.deviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, handle);
  if (error != CUDA_SUCCESS) {
    *why = "querying CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS failed: CUDA driver error " +
           std::to_string(int(error));
    return false;
  }
  if (supported == 0) *why = "the device does not support 64-bit stream memory operations";
  return supported != 0;
}

cudaError_t cudaDriverStreamWaitValue64(cudaStream_t stream, void* devicePtr, uint64_t value) {
  const DriverEntries& driver = driverEntries();
  if (driver.streamWaitValue64 == nullptr) return cudaErrorNotSupported;
  // A cudaStream_t is a CUstream. The driver's error codes are the runtime's for the same
  // failures (invalid value 1, invalid handle 400, not supported 801, ...), so
  // cudaGetErrorString describes them.
  return cudaError_t(
      driver.streamWaitValue64(stream, CUdeviceptr(uintptr_t(devicePtr)), cuuint64_t(value), CU_STREAM_WAIT_VALUE_GEQ));
}

}  // namespace hetccl

extern "C" __attribute__((visibility("default"))) hetccl::Device* hetcclCreateDevice_v1(char* error, size_t errorSize) {
  return hetccl::createGpuDeviceForModule<hetccl::CudaApi>(error, errorSize);
}
