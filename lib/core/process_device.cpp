#include "core/process_device.h"

#include <memory>
#include <mutex>
#include <string>

#include "base/log.h"
#include "base/setting_modes.h"
#include "base/settings_reader.h"
#include "device/backend_loader.h"
#include "device/host/host_device.h"

namespace hetccl {

namespace {

Status selectDevice(std::unique_ptr<Device>* device) {
  DeviceRequest request = DeviceRequest::Auto;
  HETCCL_TRY(readEnum(SettingId::Device, &request));
  HostStreamMode streams = HostStreamMode::Worker;
  HETCCL_TRY(readEnum(SettingId::HostStreams, &streams));
  const bool inlineStreams = streams == HostStreamMode::Inline;
  if (request == DeviceRequest::Host || request == DeviceRequest::HostStrict) {
    const bool strict = request == DeviceRequest::HostStrict;
    *device = makeHostDevice(strict, inlineStreams);
    HETCCL_INFO("device: %s (HETCCL_DEVICE=%s)", strict ? "host-strict" : "host", strict ? "host-strict" : "host");
    return Status::ok();
  }
  // Asked for by name: failing to open it is an error.
  if (request == DeviceRequest::Cuda || request == DeviceRequest::Hip) {
    HETCCL_TRY(loadDeviceBackend(request == DeviceRequest::Cuda ? "cuda" : "hip", device));
    HETCCL_INFO("device: %s", (*device)->description().c_str());
    return Status::ok();
  }
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
  *device = makeHostDevice(false, inlineStreams);
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
