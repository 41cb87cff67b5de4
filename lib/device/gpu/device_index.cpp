#include "device/gpu/device_index.h"

#include <string>

#include "base/settings_reader.h"

namespace hetccl {

Status chooseDeviceIndex(int visibleDevices, DeviceChoice* choice) {
  if (visibleDevices <= 0) return HETCCL_STATUS(Code::DeviceError, "no visible device to choose from");
  long long index = 0;
  bool forced = false;
  HETCCL_TRY(readInteger(SettingId::DeviceId, &index, &forced));
  if (forced) {
    if (index >= visibleDevices)
      return HETCCL_STATUS(Code::InvalidArgument,
                           "HETCCL_DEVICE_ID=%lld: only %d device(s) visible (after "
                           "CUDA_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES)",
                           index, visibleDevices);
    choice->index = static_cast<int>(index);
    choice->reason = "HETCCL_DEVICE_ID=" + std::to_string(index);
    return Status::ok();
  }
  // The launcher section of the settings table, in its order: the first one set wins.
  for (const SettingSpec& spec : settingsTable()) {
    if (spec.section != SettingSection::Launcher) continue;
    long long rank = 0;
    bool set = false;
    // The launchers' variables are not hetccl's to judge: one we cannot use is passed over,
    // as if unset, and the next launcher's is tried.
    if (!readInteger(spec.id, &rank, &set).isOk() || !set || rank < 0) continue;
    choice->index = static_cast<int>(rank % visibleDevices);
    choice->reason = "local rank " + std::to_string(rank) + " (" + spec.name + ") mod " +
                     std::to_string(visibleDevices) + " device(s)";
    return Status::ok();
  }
  choice->index = 0;
  choice->reason = "no local rank in the environment";
  return Status::ok();
}

}  // namespace hetccl
