#include "core/process_device.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "base/log.h"
#include "device/backend_loader.h"
#include "device/host/host_device.h"

namespace hetccl {

namespace {

Status selectDevice(std::unique_ptr<Device>* device) {
  const char* requested = std::getenv("HETCCL_DEVICE");
  std::string kind = requested && *requested ? requested : "auto";
  if (kind == "host") {
    *device = makeHostDevice();
    HETCCL_INFO("device: host (HETCCL_DEVICE=host)");
    return Status::ok();
  }
  if (kind == "cuda" || kind == "hip") {  // asked for by name: failing to open it is an error
    HETCCL_TRY(loadDeviceBackend(kind.c_str(), device));
    HETCCL_INFO("device: %s", (*device)->description().c_str());
    return Status::ok();
  }
  if (kind != "auto")
    return HETCCL_STATUS(Code::InvalidArgument,
                         "HETCCL_DEVICE=%s: expected auto, host, cuda or hip", kind.c_str());
  // auto: the first GPU backend whose module loads and finds a device, else the host. A
  // machine without GPUs (or without the modules) is normal here, so only INFO says why.
  for (const char* backend : {"cuda", "hip"}) {
    const Status loaded = loadDeviceBackend(backend, device);
    if (loaded.isOk()) {
      HETCCL_INFO("device: %s (HETCCL_DEVICE=auto)", (*device)->description().c_str());
      return Status::ok();
    }
    HETCCL_INFO("device: no %s device (%s)", backend, loaded.message().c_str());
  }
  *device = makeHostDevice();
  HETCCL_INFO("device: host (HETCCL_DEVICE=auto, no GPU backend available)");
  return Status::ok();
}

}  // namespace

Status processDevice(Device** device) {
  // The device lives as long as the process: buffers from hetcclMemAlloc may outlive every
  // communicator.
  static std::once_flag once;
  static std::unique_ptr<Device> instance;
  static Status selection;
  std::call_once(once, [] { selection = selectDevice(&instance); });
  if (!selection.isOk()) return selection;
  *device = instance.get();
  return Status::ok();
}

}  // namespace hetccl
