#include "device/gpu/device_index.h"

#include <cerrno>
#include <cstdlib>

namespace hetccl {
namespace {

// A whole non-negative decimal number, or false.
bool parseIndex(const char* text, long* value) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtol(text, &end, 10);
  return errno == 0 && *end == '\0' && *value >= 0;
}

}  // namespace

Status chooseDeviceIndex(int visibleDevices, DeviceChoice* choice) {
  if (visibleDevices <= 0)
    return HETCCL_STATUS(Code::DeviceError, "no visible device to choose from");
  if (const char* forced = std::getenv("HETCCL_DEVICE_ID")) {
    long index;
    if (!parseIndex(forced, &index))
      return HETCCL_STATUS(Code::InvalidArgument, "HETCCL_DEVICE_ID=%s: expected a device index",
                           forced);
    if (index >= visibleDevices)
      return HETCCL_STATUS(Code::InvalidArgument,
                           "HETCCL_DEVICE_ID=%ld: only %d device(s) visible (after "
                           "CUDA_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES)",
                           index, visibleDevices);
    choice->index = int(index);
    choice->reason = "HETCCL_DEVICE_ID=" + std::to_string(index);
    return Status::ok();
  }
  // Open MPI, Slurm, MPICH/Intel MPI (Hydra), MVAPICH. The first one set wins.
  static const char* const kLocalRankVariables[] = {
      "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK"};
  for (const char* variable : kLocalRankVariables) {
    long rank;
    if (!parseIndex(std::getenv(variable), &rank)) continue;
    choice->index = int(rank % visibleDevices);
    choice->reason = "local rank " + std::to_string(rank) + " (" + variable + ") mod " +
                     std::to_string(visibleDevices) + " device(s)";
    return Status::ok();
  }
  choice->index = 0;
  choice->reason = "no local rank in the environment";
  return Status::ok();
}

}  // namespace hetccl
