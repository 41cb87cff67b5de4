// The number grammars of lib/base (integers, bandwidths, durations, lists) and the emulated
// links built on them.
#include <gtest/gtest.h>

#include "base/numbers.h"
#include "base/quantities.h"
#include "core/emulation.h"

namespace hetccl {
namespace {

TEST(Numbers, IntegersAreDigitsWithAnOptionalMinusInRange) {
  long long value = 7;
  EXPECT_TRUE(parseInteger("42", &value));
  EXPECT_EQ(value, 42);
  EXPECT_TRUE(parseInteger("-3", -5, 5, &value));
  EXPECT_EQ(value, -3);
  for (const char* bad : {"", "+1", " 1", "1 ", "1.5", "0x10", "abc", "99999999999999999999"}) {
    value = 7;
    EXPECT_FALSE(parseInteger(bad, &value)) << bad;
    EXPECT_EQ(value, 7) << bad;
  }
  EXPECT_FALSE(parseInteger("6", -5, 5, &value));
  EXPECT_FALSE(parseInteger("4294967297", 1, 64, &value));
}

TEST(Quantities, BandwidthsInBytesOrBits) {
  double bytesPerSecond = 0;
  EXPECT_TRUE(parseBandwidth("8GB/s", &bytesPerSecond));
  EXPECT_DOUBLE_EQ(bytesPerSecond, 8e9);
  EXPECT_TRUE(parseBandwidth("200Gb/s", &bytesPerSecond));
  EXPECT_DOUBLE_EQ(bytesPerSecond, 25e9);
  EXPECT_TRUE(parseBandwidth("0.125GB/s", &bytesPerSecond));
  EXPECT_DOUBLE_EQ(bytesPerSecond, 0.125e9);
  for (const char* bad : {"", "8", "8GB", "0GB/s", "-1GB/s", "inf GB/s", "nanGB/s", "8 GB/s", "GB/s"})
    EXPECT_FALSE(parseBandwidth(bad, &bytesPerSecond)) << bad;
  // Finite as written, infinite in bytes per second: a link that would cost nothing.
  for (const char* huge : {"1e300TB/s", "1e306Tb/s", "1.7e308KB/s"})
    EXPECT_FALSE(parseBandwidth(huge, &bytesPerSecond)) << huge;
}

TEST(Quantities, DurationsFromSecondsToNanoseconds) {
  double seconds = -1;
  EXPECT_TRUE(parseDuration("20us", &seconds));
  EXPECT_DOUBLE_EQ(seconds, 20e-6);
  EXPECT_TRUE(parseDuration("0s", &seconds));
  EXPECT_DOUBLE_EQ(seconds, 0);
  EXPECT_TRUE(parseDuration("1.5ms", &seconds));
  EXPECT_DOUBLE_EQ(seconds, 1.5e-3);
  for (const char* bad : {"", "20", "20 us", "-1us", "20min"}) EXPECT_FALSE(parseDuration(bad, &seconds)) << bad;
}

TEST(Quantities, SplitKeepsEmptyParts) {
  EXPECT_EQ(splitText("a:b::c", ':'), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(splitText("a,", ','), (std::vector<std::string>{"a", ""}));
  EXPECT_TRUE(splitText("", ',').empty());
}

TEST(EmulatedLinks, IntraAndInterParsedAndPaced) {
  EmulatedLinks links;
  ASSERT_TRUE(parseEmulatedLinks("intra:8GB/s:2us,inter:1GB/s:20us", &links).isOk());
  EXPECT_TRUE(links.intraIsland.paced);
  EXPECT_DOUBLE_EQ(links.intraIsland.bytesPerSecond, 8e9);
  EXPECT_DOUBLE_EQ(links.intraIsland.latencySeconds, 2e-6);
  EXPECT_DOUBLE_EQ(links.interIsland.bytesPerSecond, 1e9);
  ASSERT_TRUE(parseEmulatedLinks("inter:100Mb/s:1ms", &links).isOk());
  EXPECT_FALSE(links.intraIsland.paced);
  EXPECT_DOUBLE_EQ(links.interIsland.bytesPerSecond, 12.5e6);
}

TEST(EmulatedLinks, BadEntriesNameTheVariableAndTheEntry) {
  EmulatedLinks links;
  for (const char* bad :
       {"inter:1GB/s", "inter:1GB/s:20us,", "cross:1GB/s:20us", "inter:1GB:20us", "inter:0GB/s:1us"}) {
    const Status status = parseEmulatedLinks(bad, &links);
    EXPECT_EQ(status.code(), Code::InvalidArgument) << bad;
    EXPECT_NE(status.message().find("HETCCL_EMULATE_LINKS="), std::string::npos) << status.message();
  }
}

}  // namespace
}  // namespace hetccl
