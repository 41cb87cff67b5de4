// Which GPU a rank drives (lib/device/gpu/device_index.h): HETCCL_DEVICE_ID when set (and
// valid), else the first launcher's node-local rank modulo the visible devices.  Every test
// starts without any of those variables, whatever the caller has set.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/settings_table.h"
#include "device/gpu/device_index.h"

namespace hetccl {
namespace {

class DeviceIndex : public ::testing::Test {
 protected:
  DeviceIndex() {
    for (const SettingSpec& spec : settingsTable()) {
      if (spec.id != SettingId::DeviceId && spec.section != SettingSection::Launcher) continue;
      const char* old = std::getenv(spec.name);
      saved_.push_back({spec.name, old != nullptr, old ? old : ""});
      unsetenv(spec.name);
    }
  }
  ~DeviceIndex() override {
    for (const Saved& s : saved_) s.wasSet ? setenv(s.name.c_str(), s.value.c_str(), 1) : unsetenv(s.name.c_str());
  }

 private:
  struct Saved {
    std::string name;
    bool wasSet;
    std::string value;
  };
  std::vector<Saved> saved_;
};

TEST_F(DeviceIndex, ForcedIndexWinsAndMustBeVisible) {
  setenv("HETCCL_DEVICE_ID", "2", 1);
  setenv("SLURM_LOCALID", "1", 1);
  DeviceChoice choice;
  ASSERT_TRUE(chooseDeviceIndex(4, &choice).isOk());
  EXPECT_EQ(choice.index, 2);
  EXPECT_EQ(choice.reason, "HETCCL_DEVICE_ID=2");
  EXPECT_EQ(chooseDeviceIndex(2, &choice).code(), Code::InvalidArgument);
}

TEST_F(DeviceIndex, NegativeOrMalformedForcedIndexIsAnError) {
  for (const char* bad : {"-5", "one", "1.0"}) {
    setenv("HETCCL_DEVICE_ID", bad, 1);
    DeviceChoice choice;
    const Status status = chooseDeviceIndex(4, &choice);
    EXPECT_EQ(status.code(), Code::InvalidArgument) << bad;
    EXPECT_NE(status.message().find(std::string("HETCCL_DEVICE_ID=") + bad + ": expected an integer >= 0"),
              std::string::npos)
        << status.message();
  }
}

TEST_F(DeviceIndex, FirstLauncherLocalRankModuloDevices) {
  setenv("SLURM_LOCALID", "5", 1);
  setenv("MPI_LOCALRANKID", "2", 1);
  DeviceChoice choice;
  ASSERT_TRUE(chooseDeviceIndex(4, &choice).isOk());
  EXPECT_EQ(choice.index, 1);
  EXPECT_EQ(choice.reason, "local rank 5 (SLURM_LOCALID) mod 4 device(s)");
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);  // Open MPI's comes first in the table
  ASSERT_TRUE(chooseDeviceIndex(4, &choice).isOk());
  EXPECT_EQ(choice.index, 3);
}

TEST_F(DeviceIndex, WithoutALocalRankTheFirstDevice) {
  DeviceChoice choice;
  ASSERT_TRUE(chooseDeviceIndex(4, &choice).isOk());
  EXPECT_EQ(choice.index, 0);
  EXPECT_EQ(chooseDeviceIndex(0, &choice).code(), Code::DeviceError);
}

// The launcher's variables are not hetccl's: one it cannot use is passed over for the next.
TEST_F(DeviceIndex, MalformedLauncherLocalRankIsPassedOver) {
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x", 1);
  setenv("SLURM_LOCALID", "-2", 1);
  setenv("MPI_LOCALRANKID", "3", 1);
  DeviceChoice choice;
  ASSERT_TRUE(chooseDeviceIndex(2, &choice).isOk());
  EXPECT_EQ(choice.index, 1);
  EXPECT_EQ(choice.reason, "local rank 3 (MPI_LOCALRANKID) mod 2 device(s)");
}

}  // namespace
}  // namespace hetccl
