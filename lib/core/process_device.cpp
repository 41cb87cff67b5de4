#include "core/process_device.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "core/log.h"
#include "device/host/host_device.h"

namespace hetccl {

namespace {

Status selectDevice(std::unique_ptr<Device>* device) {
  const char* requested = std::getenv("HETCCL_DEVICE");
  std::string kind = requested && *requested ? requested : "auto";
  // GPU backends arrive as loadable modules; until one is built in, auto means host.
  if (kind == "auto" || kind == "host") {
    *device = makeHostDevice();
    HETCCL_INFO("device: host (HETCCL_DEVICE=%s)", kind.c_str());
    return Status::ok();
  }
  if (kind == "cuda" || kind == "hip")
    return HETCCL_STATUS(Code::InvalidArgument,
                         "HETCCL_DEVICE=%s: this build of hetccl has no %s backend (available: host)",
                         kind.c_str(), kind.c_str());
  return HETCCL_STATUS(Code::InvalidArgument, "HETCCL_DEVICE=%s: expected auto, host, cuda or hip",
                       kind.c_str());
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
