// The device this process drives.  One process drives one device (docs/ARCHITECTURE.md), and
// hetcclMemAlloc has no communicator argument (as ncclMemAlloc), so the device is chosen once
// per process, on first use, by HETCCL_DEVICE=auto|host|cuda|hip.
#pragma once

#include "base/status.h"
#include "device/device.h"

namespace hetccl {

Status processDevice(Device** device);

}  // namespace hetccl
