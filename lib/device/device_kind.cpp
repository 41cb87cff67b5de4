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

}  // namespace hetccl
