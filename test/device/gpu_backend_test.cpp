// A GPU backend (HETCCL_TEST_BACKEND: "cuda" or "hip"), loaded as hetccl loads it, against the
// host backend: every type x op bit for bit on awkward sizes and alignments, copies in every
// direction, streams and events, and errors. Without a device (or driver) every test skips
// with the module's reason; a module that fails to load at all is a failure.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "base/element.h"
#include "device/backend_loader.h"
#include "device/host/host_reduce.h"

namespace hetccl {
namespace {

class GpuBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    loadStatus() = loadDeviceBackend(HETCCL_TEST_BACKEND, &device());
    if (loadStatus().isOk())
      std::printf("[ device   ] %s\n", device()->description().c_str());
    else
      std::printf("[ no device] %s\n", loadStatus().message().c_str());
  }
  static void TearDownTestSuite() { device().reset(); }
  void SetUp() override {
    // No driver or no GPU: DeviceError, a skip. Anything else (module missing, symbol
    // missing, a runtime library that does not resolve) is a broken build: a failure.
    if (loadStatus().code() == Code::DeviceError) GTEST_SKIP() << loadStatus().message();
    ASSERT_TRUE(loadStatus().isOk()) << loadStatus().message();
  }

  static std::unique_ptr<Device>& device() {
    static std::unique_ptr<Device> instance;
    return instance;
  }
  static Status& loadStatus() {
    static Status status;
    return status;
  }

  // A device buffer freed at the end of the test.
  void* deviceBuffer(size_t bytes) {
    void* ptr = nullptr;
    EXPECT_TRUE(device()->allocate(&ptr, bytes).isOk());
    owned_.emplace_back(ptr, [](void* p) { (void)device()->release(p); });
    return ptr;
  }
  void upload(void* dst, const std::vector<uint8_t>& src) {
    ASSERT_TRUE(device()->copyAsync(dst, src.data(), src.size(), nullptr).isOk());
    ASSERT_TRUE(device()->synchronizeStream(nullptr).isOk());
  }
  std::vector<uint8_t> download(const void* src, size_t bytes) {
    std::vector<uint8_t> out(bytes);
    EXPECT_TRUE(device()->copyAsync(out.data(), src, bytes, nullptr).isOk());
    EXPECT_TRUE(device()->synchronizeStream(nullptr).isOk());
    return out;
  }

 private:
  std::vector<std::unique_ptr<void, void (*)(void*)>> owned_;
};

// True when an element of `type` (little-endian bytes at p) is a NaN.
bool isNaN(ElementType type, const uint8_t* p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, elementSize(type));
  switch (type) {
    case ElementType::Float16: return (bits & 0x7fff) > 0x7c00;
    case ElementType::Bfloat16: return (bits & 0x7fff) > 0x7f80;
    case ElementType::Float32: return (bits & 0x7fffffff) > 0x7f800000;
    case ElementType::Float64: return (bits & 0x7fffffffffffffff) > 0x7ff0000000000000;
    default: return false;
  }
}

// Bit-for-bit equality, except that an arithmetic NaN may carry any payload: hardware does not
// agree on it (x86 propagates an operand's payload, NVIDIA GPUs return the canonical NaN), and
// reduce_ops.h does not pin it down. Max and min select an operand and stay exact (`exactNaN`).
::testing::AssertionResult sameElements(ElementType type, const uint8_t* expected, const uint8_t* got, size_t count,
                                        bool exactNaN) {
  const size_t size = elementSize(type);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* e = expected + i * size;
    const uint8_t* g = got + i * size;
    if (std::memcmp(e, g, size) == 0) continue;
    if (!exactNaN && isNaN(type, e) && isNaN(type, g)) continue;
    uint64_t eBits = 0, gBits = 0;
    std::memcpy(&eBits, e, size);
    std::memcpy(&gBits, g, size);
    return ::testing::AssertionFailure() << "element " << i << " of " << count << ": expected 0x" << std::hex << eBits
                                         << ", got 0x" << gBits;
  }
  return ::testing::AssertionSuccess();
}

// Random bits: every float class (NaN payloads, infinities, subnormals, ±0) turns up, and the
// functors define a unique result for each, so the comparison is exact.
std::vector<uint8_t> randomBytes(size_t bytes, uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<uint8_t> out(bytes);
  for (size_t i = 0; i < bytes; i += 4) {  // four bytes per draw: big buffers stay quick
    const uint32_t word = random();
    std::memcpy(out.data() + i, &word, bytes - i < 4 ? bytes - i : 4);
  }
  return out;
}

const ElementType kTypes[] = {ElementType::Int8,    ElementType::Uint8,   ElementType::Int32,   ElementType::Uint32,
                              ElementType::Int64,   ElementType::Uint64,  ElementType::Float16, ElementType::Float32,
                              ElementType::Float64, ElementType::Bfloat16};
const ReduceOp kOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg};
// Around the 16-byte pack boundaries, one past a block of 256 threads, and a count large
// enough that every thread of a full grid loops (1M + 3 elements).
const size_t kCounts[] = {1, 7, 15, 16, 17, 31, 257, 4099, (size_t(1) << 20) + 3};

TEST_F(GpuBackendTest, DescribesItself) {
  EXPECT_STREQ(deviceKindName(device()->kind()), HETCCL_TEST_BACKEND);
  EXPECT_FALSE(device()->description().empty());
}

// offset (in elements) 0 takes the packed kernels; 1 the element-wise ones.
TEST_F(GpuBackendTest, ReduceMatchesHostForEveryTypeAndOp) {
  for (ElementType type : kTypes) {
    const size_t size = elementSize(type);
    for (size_t count : kCounts) {
      for (size_t offset : {size_t(0), size_t(1)}) {
        const size_t bytes = (count + offset) * size;
        const auto a = randomBytes(bytes, uint32_t(count * 31 + size));
        const auto b = randomBytes(bytes, uint32_t(count * 17 + size + 1));
        char* deviceA = static_cast<char*>(deviceBuffer(bytes));
        char* deviceB = static_cast<char*>(deviceBuffer(bytes));
        char* deviceDst = static_cast<char*>(deviceBuffer(bytes));
        upload(deviceA, a);
        upload(deviceB, b);
        for (ReduceOp op : kOps) {
          std::vector<uint8_t> expected(bytes);
          hostReduce(expected.data() + offset * size, a.data() + offset * size, b.data() + offset * size, count, type,
                     op);
          ASSERT_TRUE(device()
                          ->reduceAsync(deviceDst + offset * size, deviceA + offset * size, deviceB + offset * size,
                                        count, type, op, nullptr)
                          .isOk());
          const auto got = download(deviceDst, bytes);
          const bool selects = op == ReduceOp::Max || op == ReduceOp::Min;
          ASSERT_TRUE(sameElements(type, expected.data() + offset * size, got.data() + offset * size, count, selects))
              << elementTypeName(type) << " " << reduceOpName(op) << " count " << count << " offset " << offset;
        }
      }
    }
  }
}

TEST_F(GpuBackendTest, ReduceInPlaceIntoEitherOperandOrBoth) {
  const size_t count = 4099;
  for (ElementType type : kTypes) {
    const size_t bytes = count * elementSize(type);
    const auto a = randomBytes(bytes, 1), b = randomBytes(bytes, 2);
    std::vector<uint8_t> intoA(bytes), intoB(bytes), intoBoth(bytes);
    hostReduce(intoA.data(), a.data(), b.data(), count, type, ReduceOp::Max);
    hostReduce(intoB.data(), a.data(), b.data(), count, type, ReduceOp::Max);
    hostReduce(intoBoth.data(), a.data(), a.data(), count, type, ReduceOp::Max);
    void* x = deviceBuffer(bytes);
    void* y = deviceBuffer(bytes);
    upload(x, a);
    upload(y, b);
    ASSERT_TRUE(device()->reduceAsync(x, x, y, count, type, ReduceOp::Max, nullptr).isOk());
    EXPECT_EQ(download(x, bytes), intoA) << elementTypeName(type) << " dst == a";
    upload(x, a);
    ASSERT_TRUE(device()->reduceAsync(y, x, y, count, type, ReduceOp::Max, nullptr).isOk());
    EXPECT_EQ(download(y, bytes), intoB) << elementTypeName(type) << " dst == b";
    ASSERT_TRUE(device()->reduceAsync(x, x, x, count, type, ReduceOp::Max, nullptr).isOk());
    EXPECT_EQ(download(x, bytes), intoBoth) << elementTypeName(type) << " dst == a == b";
  }
}

TEST_F(GpuBackendTest, DivideMatchesHost) {
  for (ElementType type : kTypes) {
    const size_t size = elementSize(type);
    for (size_t count : {size_t(17), size_t(4099), (size_t(1) << 20) + 3}) {
      for (uint64_t divisor : {uint64_t(2), uint64_t(3), uint64_t(7), uint64_t(1000), uint64_t(1) << 40}) {
        for (size_t offset : {size_t(0), size_t(1)}) {
          const size_t bytes = (count + offset) * size;
          const auto x = randomBytes(bytes, uint32_t(count + divisor));
          auto expected = x;
          hostDivide(expected.data() + offset * size, count, type, divisor);
          char* deviceX = static_cast<char*>(deviceBuffer(bytes));
          upload(deviceX, x);
          ASSERT_TRUE(device()->divideAsync(deviceX + offset * size, count, type, divisor, nullptr).isOk());
          ASSERT_TRUE(sameElements(type, expected.data(), download(deviceX, bytes).data(), count + offset, false))
              << elementTypeName(type) << " / " << divisor << " count " << count << " offset " << offset;
        }
      }
    }
  }
}

TEST_F(GpuBackendTest, CopiesBetweenPageableHostPinnedHostAndDevice) {
  const size_t bytes = (size_t(3) << 20) + 5;
  const auto data = randomBytes(bytes, 7);
  void* pinned = nullptr;
  ASSERT_TRUE(device()->allocateHost(&pinned, bytes).isOk());
  std::memcpy(pinned, data.data(), bytes);
  char* first = static_cast<char*>(deviceBuffer(bytes));
  char* second = static_cast<char*>(deviceBuffer(bytes));
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device()->createStream(&stream).isOk());
  ASSERT_TRUE(device()->copyAsync(first, pinned, bytes, stream).isOk());          // pinned -> device
  ASSERT_TRUE(device()->copyAsync(second + 1, first, bytes - 1, stream).isOk());  // device -> device
  std::vector<uint8_t> back(bytes - 1);
  ASSERT_TRUE(device()->copyAsync(back.data(), second + 1, bytes - 1, stream).isOk());  // -> pageable
  ASSERT_TRUE(device()->synchronizeStream(stream).isOk());
  EXPECT_EQ(0, std::memcmp(back.data(), data.data(), bytes - 1));
  std::memset(pinned, 0, bytes);
  ASSERT_TRUE(device()->copyAsync(pinned, first, bytes, stream).isOk());  // device -> pinned
  ASSERT_TRUE(device()->synchronizeStream(stream).isOk());
  EXPECT_EQ(0, std::memcmp(pinned, data.data(), bytes));
  EXPECT_TRUE(device()->destroyStream(stream).isOk());
  EXPECT_TRUE(device()->releaseHost(pinned).isOk());
}

// A producer stream's event orders a consumer stream: the consumer's copy sees the reduction.
TEST_F(GpuBackendTest, EventsOrderWorkAcrossStreams) {
  const size_t count = size_t(8) << 20;  // 32 MiB of floats: long enough to still be running
  const size_t bytes = count * sizeof(float);
  std::vector<uint8_t> ones(bytes);
  for (size_t i = 0; i < count; ++i) {
    const float one = 1.0f;
    std::memcpy(ones.data() + i * sizeof(float), &one, sizeof one);
  }
  void* x = deviceBuffer(bytes);
  void* copy = deviceBuffer(bytes);
  upload(x, ones);
  StreamHandle producer = nullptr, consumer = nullptr;
  ASSERT_TRUE(device()->createStream(&producer).isOk());
  ASSERT_TRUE(device()->createStream(&consumer).isOk());
  for (int i = 0; i < 10; ++i)  // x = 1024
    ASSERT_TRUE(device()->reduceAsync(x, x, x, count, ElementType::Float32, ReduceOp::Sum, producer).isOk());
  std::unique_ptr<DeviceEvent> produced;
  ASSERT_TRUE(device()->recordEvent(producer, &produced).isOk());
  ASSERT_TRUE(device()->streamWaitEvent(consumer, *produced).isOk());
  ASSERT_TRUE(device()->copyAsync(copy, x, bytes, consumer).isOk());
  std::unique_ptr<DeviceEvent> consumed;
  ASSERT_TRUE(device()->recordEvent(consumer, &consumed).isOk());
  ASSERT_TRUE(consumed->synchronize().isOk());
  EXPECT_TRUE(consumed->query());
  EXPECT_TRUE(produced->query());
  const auto result = download(copy, bytes);
  float first, last;
  std::memcpy(&first, result.data(), sizeof first);
  std::memcpy(&last, result.data() + bytes - sizeof last, sizeof last);
  EXPECT_EQ(first, 1024.0f);
  EXPECT_EQ(last, 1024.0f);
  EXPECT_TRUE(device()->destroyStream(consumer).isOk());
  EXPECT_TRUE(device()->destroyStream(producer).isOk());
  EXPECT_TRUE(produced->query());  // an event outlives its stream
}

// What the progress engine relies on: a stream held by a host-written flag runs nothing
// enqueued after the wait until the host raises the flag (cuStreamWaitValue64 /
// hipStreamWaitValue64 on mapped pinned memory), queryStream tells pending from idle, and a
// recycled flag keeps counting from its last value.
TEST_F(GpuBackendTest, AStreamWaitsForAHostWrittenFlag) {
  std::unique_ptr<StreamFlag> flag;
  const Status made = device()->createStreamFlag(&flag);
  if (!made.isOk()) GTEST_SKIP() << "no stream flags on this device (hetccl runs in caller mode): " << made.message();
  const uint64_t base = flag->value();
  const size_t count = 1024;
  std::vector<uint8_t> ones(count * sizeof(float));
  for (size_t i = 0; i < count; ++i) {
    const float one = 1.0f;
    std::memcpy(ones.data() + i * sizeof(float), &one, sizeof one);
  }
  void* x = deviceBuffer(ones.size());
  upload(x, ones);
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device()->createStream(&stream).isOk());
  ASSERT_TRUE(device()->streamWaitFlag(stream, *flag, base + 2).isOk());
  ASSERT_TRUE(device()->reduceAsync(x, x, x, count, ElementType::Float32, ReduceOp::Sum, stream).isOk());  // x = 2
  bool idle = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(device()->queryStream(stream, &idle).isOk());
  EXPECT_FALSE(idle) << "the stream ran past a wait for a flag nobody raised";
  flag->raise(base + 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(device()->queryStream(stream, &idle).isOk());
  EXPECT_FALSE(idle) << "released at base + 1 while waiting for base + 2";
  flag->raise(base + 2);
  ASSERT_TRUE(device()->synchronizeStream(stream).isOk());
  ASSERT_TRUE(device()->queryStream(stream, &idle).isOk());
  EXPECT_TRUE(idle);
  float first;
  const auto result = download(x, sizeof first);
  std::memcpy(&first, result.data(), sizeof first);
  EXPECT_EQ(first, 2.0f);
  EXPECT_EQ(flag->value(), base + 2);
  EXPECT_TRUE(device()->destroyStream(stream).isOk());
  flag.reset();
  std::unique_ptr<StreamFlag> again;  // the recycled one, or a fresh one at 0
  ASSERT_TRUE(device()->createStreamFlag(&again).isOk());
  EXPECT_TRUE(again->value() == base + 2 || again->value() == 0) << again->value();
}

TEST_F(GpuBackendTest, RejectsBadArgumentsAndReportsRuntimeErrors) {
  void* x = deviceBuffer(64);
  EXPECT_EQ(device()->reduceAsync(x, x, x, 4, ElementType(42), ReduceOp::Sum, nullptr).code(), Code::InvalidArgument);
  EXPECT_EQ(device()->reduceAsync(x, x, x, 4, ElementType::Int32, ReduceOp(9), nullptr).code(), Code::InvalidArgument);
  EXPECT_EQ(device()->reduceAsync(nullptr, x, x, 4, ElementType::Int32, ReduceOp::Sum, nullptr).code(),
            Code::InvalidArgument);
  EXPECT_EQ(
      device()->reduceAsync(static_cast<char*>(x) + 4, x, x, 4, ElementType::Int32, ReduceOp::Sum, nullptr).code(),
      Code::InvalidArgument);
  EXPECT_EQ(device()->divideAsync(x, 4, ElementType::Int32, 0, nullptr).code(), Code::InvalidArgument);
  EXPECT_EQ(device()->copyAsync(static_cast<char*>(x) + 1, x, 8, nullptr).code(), Code::InvalidArgument);
  EXPECT_EQ(device()->destroyStream(nullptr).code(), Code::InvalidArgument);
  EXPECT_TRUE(device()->reduceAsync(x, x, x, 0, ElementType::Int32, ReduceOp::Sum, nullptr).isOk());
  void* huge = nullptr;
  const Status outOfMemory = device()->allocate(&huge, size_t(1) << 60);  // 1 EiB
  EXPECT_EQ(outOfMemory.code(), Code::DeviceError);
  EXPECT_NE(outOfMemory.message().find("error"), std::string::npos) << outOfMemory.message();
  EXPECT_EQ(huge, nullptr);
  // The failed allocation must not poison later work (a launch checks the runtime's last
  // error, which the failed allocation set).
  EXPECT_TRUE(device()->reduceAsync(x, x, x, 4, ElementType::Int32, ReduceOp::Sum, nullptr).isOk());
  EXPECT_TRUE(device()->divideAsync(x, 4, ElementType::Int32, 3, nullptr).isOk());
  EXPECT_TRUE(device()->synchronizeStream(nullptr).isOk());
  void* fine = nullptr;
  EXPECT_TRUE(device()->allocate(&fine, 1024).isOk());
  EXPECT_TRUE(device()->release(fine).isOk());
}

}  // namespace
}  // namespace hetccl
