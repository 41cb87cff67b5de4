// Which of the visible GPUs this process drives. One process drives one device (docs/ARCHITECTURE.md), so
// ranks sharing a node must spread over its devices: by HETCCL_DEVICE_ID when the user says,
// else by the node-local rank that the launcher exports, modulo the devices this process sees
// (CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES are applied by the runtimes before counting).
#pragma once

#include <string>

#include "base/status.h"

namespace hetccl {

struct DeviceChoice {
  int index = 0;
  std::string reason;  // "HETCCL_DEVICE_ID=1", "local rank 5 (SLURM_LOCALID) mod 4 devices", ...
};

Status chooseDeviceIndex(int visibleDevices, DeviceChoice* choice);

}  // namespace hetccl
