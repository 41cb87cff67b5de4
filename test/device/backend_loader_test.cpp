// loadDeviceBackend's outcomes, on any machine: a missing module, a bad name, a module without
// the factory, a module without a device, and a working module (a host device behind the
// module boundary); and HETCCL_DEVICE=auto, which must always end with some device.
#include "device/backend_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/process_device.h"

namespace hetccl {
namespace {

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

TEST(BackendLoader, MissingModuleIsAClearSystemError) {
  std::unique_ptr<Device> device;
  const Status status = loadDeviceBackend("no-such-backend", &device);
  EXPECT_EQ(status.code(), Code::SystemError);
  EXPECT_TRUE(contains(status.message(), "libhetccl-device-no-such-backend.so")) << status.message();
  EXPECT_TRUE(contains(status.message(), "cannot open shared object file")) << status.message();
  EXPECT_EQ(device, nullptr);
}

TEST(BackendLoader, RejectsNamesThatAreNotPlainWords) {
  std::unique_ptr<Device> device;
  for (const char* name : {"", "../lib/x", "cuda/../hip", "CUDA", "a b"})
    EXPECT_EQ(loadDeviceBackend(name, &device).code(), Code::InvalidArgument) << name;
  EXPECT_EQ(loadDeviceBackend(nullptr, &device).code(), Code::InvalidArgument);
  EXPECT_EQ(loadDeviceBackend("host", nullptr).code(), Code::InvalidArgument);
}

TEST(BackendLoader, ModuleWithoutFactoryNamesTheSymbol) {
  std::unique_ptr<Device> device;
  const Status status = loadDeviceBackend("fake-nofactory", &device);
  EXPECT_EQ(status.code(), Code::SystemError);
  EXPECT_TRUE(contains(status.message(), "hetcclCreateDevice_v1")) << status.message();
  EXPECT_EQ(device, nullptr);
}

TEST(BackendLoader, ModuleWithoutDeviceGivesItsReason) {
  std::unique_ptr<Device> device;
  const Status status = loadDeviceBackend("fake-nodevice", &device);
  EXPECT_EQ(status.code(), Code::DeviceError);
  EXPECT_TRUE(contains(status.message(), "fake backend: no device here")) << status.message();
  EXPECT_EQ(device, nullptr);
}

TEST(BackendLoader, WorkingModuleGivesAUsableDevice) {
  std::unique_ptr<Device> device;
  const Status status = loadDeviceBackend("fake-host", &device);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(device->kind(), DeviceKind::Host);
  void* buffer = nullptr;
  ASSERT_TRUE(device->allocate(&buffer, 4 * sizeof(int32_t)).isOk());
  const int32_t values[4] = {1, 2, 3, 4};
  int32_t result[4] = {};
  ASSERT_TRUE(device->copyAsync(buffer, values, sizeof values, nullptr).isOk());
  ASSERT_TRUE(device->reduceAsync(buffer, buffer, buffer, 4, ElementType::Int32, ReduceOp::Sum, nullptr).isOk());
  ASSERT_TRUE(device->copyAsync(result, buffer, sizeof result, nullptr).isOk());
  ASSERT_TRUE(device->synchronizeStream(nullptr).isOk());
  EXPECT_EQ(result[3], 8);
  EXPECT_TRUE(device->release(buffer).isOk());
  device.reset();  // deleted through the module's vtable; the module stays loaded
  // A second load of the same module works (dlopen counts references).
  EXPECT_TRUE(loadDeviceBackend("fake-host", &device).isOk());
}

// auto tries every GPU backend, then falls back to the host: it never fails on a machine that
// lacks GPUs, drivers or modules.
TEST(ProcessDevice, AutoAlwaysFindsADevice) {
  unsetenv("HETCCL_DEVICE");
  Device* device = nullptr;
  const Status status = processDevice(&device);
  ASSERT_TRUE(status.isOk()) << status.message();
  ASSERT_NE(device, nullptr);
  std::printf("[ auto     ] %s: %s\n", deviceKindName(device->kind()), device->description().c_str());
}

}  // namespace
}  // namespace hetccl
