// fp32 accumulation's conversions (hostConvert, HostDevice::convertAsync): float16/bfloat16 to
// float32 for every one of the 2^16 bit patterns, and float32 back for every class of float
// (rounding ties, overflow, gradual underflow, NaN payloads), against device/reduce_ops.h's
// toFloat / fromFloat applied here element by element.  Bits must be equal; lengths leave
// tails and starts are unaligned, so both the vector kernels and the portable loop run.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "device/host/host_device.h"
#include "device/host/host_reduce.h"
#include "device/reduce_ops.h"

namespace hetccl {
namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

template <class H>
constexpr ElementType typeOf() {
  return std::is_same<H, Float16>::value ? ElementType::Float16 : ElementType::Bfloat16;
}

// Every bit pattern, then a tail of 7 more, from offsets 0 and 1.
template <class H>
void expectWideningMatchesToFloat(void (*convert)(void*, ElementType, const void*, ElementType, size_t)) {
  const size_t count = 65536 + 7;
  for (size_t offset : {size_t(0), size_t(1)}) {
    std::vector<uint16_t> narrow(count + offset);
    for (size_t i = 0; i < narrow.size(); ++i) narrow[i] = uint16_t(i);
    std::vector<float> wide(count + offset + 1, floatOf(0xdeadbeef));
    convert(wide.data() + offset, ElementType::Float32, narrow.data() + offset, typeOf<H>(), count);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(bitsOf(wide[offset + i]), bitsOf(toFloat(H{narrow[offset + i]})))
          << std::hex << "0x" << narrow[offset + i] << " offset " << offset;
    ASSERT_EQ(bitsOf(wide.back()), 0xdeadbeefu) << "wrote past the end";
  }
}

// Floats of every class: each float16/bfloat16 value widened, and its neighbours and midpoints
// (the ties), the largest finite floats, infinities, subnormals and NaNs with payloads that
// narrowing must truncate; then random bits.
std::vector<float> narrowingInputs() {
  std::vector<uint32_t> bits;
  for (uint32_t h = 0; h < 65536; h += 7) {
    const uint32_t fromHalf = bitsOf(toFloat(Float16{uint16_t(h)}));
    const uint32_t fromBfloat = h << 16;
    for (uint32_t base : {fromHalf, fromBfloat})
      for (uint32_t delta : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x7fffu, 0x8000u, 0x8001u}) bits.push_back(base + delta);
  }
  for (uint32_t special : {0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x00000001u, 0x80000001u, 0x007fffffu,
                           0x7f800001u, 0x7fbfffffu, 0x7fc00000u, 0xffc00001u, 0x7fffffffu, 0x477fe000u, 0x477ff000u})
    bits.push_back(special);
  std::mt19937 random(11);
  for (int i = 0; i < 200000; ++i) bits.push_back(random());
  std::vector<float> floats(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) floats[i] = floatOf(bits[i]);
  return floats;
}

template <class H>
void expectNarrowingMatchesFromFloat(void (*convert)(void*, ElementType, const void*, ElementType, size_t)) {
  const std::vector<float> inputs = narrowingInputs();
  for (size_t offset : {size_t(0), size_t(3)}) {
    const size_t count = inputs.size() - offset;
    std::vector<uint16_t> narrow(count + 1, 0xdead);
    convert(narrow.data(), typeOf<H>(), inputs.data() + offset, ElementType::Float32, count);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(narrow[i], fromFloat<H>(inputs[offset + i]).bits)
          << std::hex << "float 0x" << bitsOf(inputs[offset + i]) << " offset " << offset;
    ASSERT_EQ(narrow.back(), 0xdead) << "wrote past the end";
  }
}

TEST(HalfConversions, Float16WideningMatchesToFloatForEveryValue) {
  expectWideningMatchesToFloat<Float16>(hostConvert);
  expectWideningMatchesToFloat<Float16>(hostConvertPortable);
}
TEST(HalfConversions, Bfloat16WideningMatchesToFloatForEveryValue) {
  expectWideningMatchesToFloat<Bfloat16>(hostConvert);
  expectWideningMatchesToFloat<Bfloat16>(hostConvertPortable);
}
TEST(HalfConversions, Float16NarrowingMatchesFromFloat) {
  expectNarrowingMatchesFromFloat<Float16>(hostConvert);
  expectNarrowingMatchesFromFloat<Float16>(hostConvertPortable);
}
TEST(HalfConversions, Bfloat16NarrowingMatchesFromFloat) {
  expectNarrowingMatchesFromFloat<Bfloat16>(hostConvert);
  expectNarrowingMatchesFromFloat<Bfloat16>(hostConvertPortable);
}

// The device call: on a stream, and only the two directions of fp32 accumulation, refused
// otherwise (the same messages on every backend: device/argument_checks.h).
TEST(HalfConversions, DeviceConvertsOnAStreamAndRefusesOtherPairs) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  void* narrow = nullptr;
  void* wide = nullptr;
  ASSERT_TRUE(device.allocate(&narrow, 64 * 2).isOk());
  ASSERT_TRUE(device.allocate(&wide, 64 * 4).isOk());
  auto* halves = static_cast<uint16_t*>(narrow);
  for (int i = 0; i < 64; ++i) halves[i] = Bfloat16{toBfloat16(float(i) + 0.5f)}.bits;
  ASSERT_TRUE(device.convertAsync(wide, ElementType::Float32, narrow, ElementType::Bfloat16, 64, stream).isOk());
  ASSERT_TRUE(device.synchronizeStream(stream).isOk());
  EXPECT_EQ(static_cast<float*>(wide)[63], 63.5f);
  EXPECT_EQ(device.convertAsync(wide, ElementType::Float64, narrow, ElementType::Bfloat16, 64, stream).code(),
            Code::InvalidArgument);
  EXPECT_EQ(device.convertAsync(wide, ElementType::Float32, narrow, ElementType::Float32, 64, stream).code(),
            Code::InvalidArgument);
  EXPECT_EQ(device.convertAsync(wide, ElementType::Float32, wide, ElementType::Float16, 64, stream).code(),
            Code::InvalidArgument);  // overlapping
  EXPECT_EQ(device.convertAsync(nullptr, ElementType::Float32, narrow, ElementType::Float16, 64, stream).code(),
            Code::InvalidArgument);
  EXPECT_TRUE(device.convertAsync(nullptr, ElementType::Float32, nullptr, ElementType::Float16, 0, stream).isOk());
  EXPECT_TRUE(device.release(narrow).isOk());
  EXPECT_TRUE(device.release(wide).isOk());
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

}  // namespace
}  // namespace hetccl
