// The Device interface's defaults, shared by every backend.
#include "device/device.h"

namespace hetccl {

const char* deviceKindName(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Host: return "host";
    case DeviceKind::Cuda: return "cuda";
    case DeviceKind::Hip: return "hip";
  }
  return "unknown";
}

Status Device::createInlineStream(StreamHandle* stream) {
  if (stream != nullptr) *stream = nullptr;
  return HETCCL_STATUS(Code::InvalidUsage, "%s devices have no inline streams (the host cannot touch their memory)",
                       deviceKindName(kind()));
}

}  // namespace hetccl
