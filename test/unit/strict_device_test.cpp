// The strict host device (HETCCL_DEVICE=host-strict): its device memory moves only through the
// device's own copies and reductions, exactly as on a GPU, and a host access to it dies at once
// with a message saying so.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "device/host/host_device.h"

namespace hetccl {
namespace {

TEST(StrictHostDevice, MovesAndReducesDeviceMemoryThroughItsStreams) {
  HostDevice device(true);
  EXPECT_FALSE(device.hostReadsMemory());
  EXPECT_EQ(device.description().rfind("host-strict", 0), 0u);
  const size_t count = 1000;
  void *a = nullptr, *b = nullptr;
  ASSERT_TRUE(device.allocate(&a, count * sizeof(int32_t)).isOk());
  ASSERT_TRUE(device.allocate(&b, count * sizeof(int32_t)).isOk());
  std::vector<int32_t> left(count), right(count), result(count, 0);
  for (size_t i = 0; i < count; ++i) {
    left[i] = static_cast<int32_t>(i);
    right[i] = static_cast<int32_t>(3 * i + 1);
  }
  ASSERT_TRUE(device.copyAsync(a, left.data(), count * sizeof(int32_t), nullptr).isOk());
  ASSERT_TRUE(device.copyAsync(b, right.data(), count * sizeof(int32_t), nullptr).isOk());
  ASSERT_TRUE(device.reduceAsync(a, a, b, count, ElementType::Int32, ReduceOp::Sum, nullptr).isOk());
  // A shift inside one allocation (an interior pointer is device memory too).
  ASSERT_TRUE(device.copyAsync(static_cast<char*>(b) + 8, a, 16, nullptr).isOk());
  ASSERT_TRUE(device.copyAsync(result.data(), a, count * sizeof(int32_t), nullptr).isOk());
  std::vector<int32_t> shifted(6);
  ASSERT_TRUE(device.copyAsync(shifted.data(), b, shifted.size() * sizeof(int32_t), nullptr).isOk());
  ASSERT_TRUE(device.synchronizeStream(nullptr).isOk());
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(result[i], static_cast<int32_t>(4 * i + 1)) << i;
  EXPECT_EQ(shifted, (std::vector<int32_t>{1, 4, 1, 5, 9, 13}));
  EXPECT_TRUE(device.release(a).isOk());
  EXPECT_TRUE(device.release(b).isOk());
}

TEST(StrictHostDevice, RefusesRangesOutsideALiveAllocation) {
  HostDevice device(true);
  void* buffer = nullptr;
  ASSERT_TRUE(device.allocate(&buffer, 100).isOk());
  std::vector<char> host(200);
  const Status pastEnd = device.copyAsync(host.data(), buffer, 101, nullptr);
  EXPECT_EQ(pastEnd.code(), Code::InvalidArgument);
  EXPECT_NE(pastEnd.message().find("run past the end"), std::string::npos) << pastEnd.message();
  ASSERT_TRUE(device.release(buffer).isOk());
  EXPECT_EQ(device.copyAsync(host.data(), buffer, 10, nullptr).code(), Code::InvalidArgument) << "freed";
  EXPECT_EQ(device.release(buffer).code(), Code::InvalidArgument) << "freed twice";
  // Host memory still passes through as it is.
  std::vector<char> other(200, 7);
  ASSERT_TRUE(device.copyAsync(host.data(), other.data(), 200, nullptr).isOk());
  ASSERT_TRUE(device.synchronizeStream(nullptr).isOk());
  EXPECT_EQ(host, other);
}

TEST(StrictHostDeviceDeathTest, AHostReadOfDeviceMemoryDiesNamingIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  HostDevice device(true);
  void* buffer = nullptr;
  ASSERT_TRUE(device.allocate(&buffer, 64).isOk());
  EXPECT_DEATH(
      {
        volatile char first = *static_cast<volatile char*>(buffer);
        (void)first;
      },
      "host-strict device: the host touched device memory at");
  EXPECT_DEATH(std::memset(buffer, 0, 64), "the host touched device memory");
  ASSERT_TRUE(device.release(buffer).isOk());
}

TEST(StrictHostDeviceDeathTest, AStalePointerToFreedDeviceMemoryDiesToo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  HostDevice device(true);
  void* buffer = nullptr;
  ASSERT_TRUE(device.allocate(&buffer, 64).isOk());
  ASSERT_TRUE(device.release(buffer).isOk());
  EXPECT_DEATH(
      {
        volatile char first = *static_cast<volatile char*>(buffer);
        (void)first;
      },
      "the host touched device memory");
}

}  // namespace
}  // namespace hetccl
