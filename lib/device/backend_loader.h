// Loads a GPU backend module (libhetccl-device-<name>.so, see backend_module.h) and opens the
// process's device with it. Modules are loaded with RTLD_LOCAL, never into the global
// namespace: the CUDA and HIP modules (and the NCCL and RCCL they will carry) define the same
// symbols.
//
// Search order: the directory libhetccl itself was loaded from (an installed or build tree
// keeps the modules next to the library), then the dynamic loader's default search
// (LD_LIBRARY_PATH, the caller's RUNPATH, the system directories).
#pragma once

#include <memory>

#include "base/status.h"
#include "device/device.h"

namespace hetccl {

// `name` is a backend name ("cuda", "hip"). Errors: SystemError when no module could be loaded
// or it lacks the factory symbol (each attempt's dlerror is in the message), DeviceError when
// the module loaded but found no usable device (its reason is in the message).
Status loadDeviceBackend(const char* name, std::unique_ptr<Device>* device);

}  // namespace hetccl
