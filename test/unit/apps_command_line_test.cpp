// The command-line layer every tool uses (apps/common): getopt_long's forms, the messages a
// user gets, the usage lines, and the value readers' ranges.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "common/byte_size_option.h"
#include "common/command_line.h"
#include "common/option_values.h"
#include "common/size_sweep.h"

namespace hetccl_apps {
namespace {

constexpr int kLong = kLongOnlyKey;

const std::vector<Flag> kFlags{
    {'b', "minbytes", "SIZE", "smallest size"}, {'e', "maxbytes", "SIZE", "largest size\nsecond line"},
    {kLong, "algo", "LIST", "algorithms"},      {kLong + 1, "json", nullptr, "JSON"},
    {'h', "help", nullptr, "this text"},
};

struct Parsed {
  bool ok = false;
  std::vector<Argument> arguments;
  std::string error;
};

Parsed parse(std::vector<const char*> words) {
  words.insert(words.begin(), "tool");
  Parsed p;
  p.ok = parseCommandLine(static_cast<int>(words.size()), words.data(), kFlags, &p.arguments, &p.error);
  return p;
}

TEST(AppsCommandLine, EveryFormInOrder) {
  const Parsed p = parse({"first", "-b8", "-e", "1M", "--maxbytes=2M", "--algo", "ring", "--json", "second", "--max",
                          "3M", "--", "-b", "--json"});
  ASSERT_TRUE(p.ok) << p.error;
  const std::vector<std::pair<int, std::string>> expected{{Argument::kOperand, "first"},
                                                          {'b', "8"},
                                                          {'e', "1M"},
                                                          {'e', "2M"},
                                                          {kLong, "ring"},
                                                          {kLong + 1, ""},
                                                          {Argument::kOperand, "second"},
                                                          {'e', "3M"},
                                                          {Argument::kOperand, "-b"},
                                                          {Argument::kOperand, "--json"}};  // after "--": operands
  ASSERT_EQ(p.arguments.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(p.arguments[i].key, expected[i].first) << i;
    EXPECT_EQ(p.arguments[i].value, expected[i].second) << i;
  }
  // Messages name the flag as the user wrote it.
  EXPECT_EQ(p.arguments[1].spelling, "-b");
  EXPECT_EQ(p.arguments[3].spelling, "--maxbytes");
  EXPECT_EQ(p.arguments[7].spelling, "--maxbytes");  // a prefix, spelled out
}

TEST(AppsCommandLine, ErrorsSayWhatAndWhere) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases{
      {{"-x"}, "unknown argument '-x'"},
      {{"--bogus"}, "unknown argument '--bogus'"},
      {{"--bogus=1"}, "unknown argument '--bogus'"},
      {{"-b"}, "option '-b' needs a value"},
      {{"--algo"}, "option '--algo' needs a value"},
      {{"--help=1"}, "option '--help' takes no value"},
      {{"--json=yes"}, "option '--json' takes no value"},
      {{"--m", "1"}, "ambiguous option '--m' (--minbytes, --maxbytes)"},
      {{"-hx"}, "unknown argument '-x'"},
  };
  for (const auto& [words, message] : cases) {
    const Parsed p = parse(words);
    EXPECT_FALSE(p.ok) << message;
    EXPECT_EQ(p.error, message);
  }
}

// getopt keeps state in globals: a parse that failed halfway must not leak into the next.
TEST(AppsCommandLine, ParsesAfresh) {
  EXPECT_FALSE(parse({"-bx", "-x"}).ok);
  const Parsed p = parse({"-b", "4"});
  ASSERT_TRUE(p.ok) << p.error;
  ASSERT_EQ(p.arguments.size(), 1u);
  EXPECT_EQ(p.arguments[0].value, "4");
  EXPECT_TRUE(parse({}).ok);
}

TEST(AppsCommandLine, UsageLinesAreAligned) {
  EXPECT_EQ(describeFlags(kFlags),
            "  -b, --minbytes SIZE  smallest size\n"
            "  -e, --maxbytes SIZE  largest size\n"
            "                       second line\n"
            "      --algo LIST      algorithms\n"
            "      --json           JSON\n"
            "  -h, --help           this text\n");
}

// hetccl-perf and hetccl-sim sweep sizes alike: -b, -e, -f with each tool's defaults.
TEST(AppsSizeSweep, FlagsAndSizes) {
  EXPECT_EQ(describeFlags(sizeSweepFlags("1K", "1G", "4")),
            "  -b, --minbytes SIZE  smallest size in bytes, K/M/G suffixes (default 1K)\n"
            "  -e, --maxbytes SIZE  largest size in bytes (default 1G)\n"
            "  -f, --stepfactor N   multiply the size by N each step (default 4)\n");
  EXPECT_EQ(sweepSizes(1, 64, 4), (std::vector<size_t>{1, 4, 16, 64}));
  EXPECT_EQ(sweepSizes(10, 35, 2, 10), (std::vector<size_t>{10, 20, 30}));  // by increment
  EXPECT_EQ(sweepSizes(8, 4, 2), (std::vector<size_t>{}));
  const size_t top = ~size_t{0};
  EXPECT_EQ(sweepSizes(top - 1, top, 2, 1), (std::vector<size_t>{top - 1, top}));  // no wrap
}

// The grammars are base/numbers.h's (tested with the settings); here, the words for a range.
TEST(AppsOptionValues, RangesInWords) {
  EXPECT_EQ(describeIntegerRange(0, 1), "0 or 1");
  EXPECT_EQ(describeIntegerRange(1, 64), "an integer from 1 to 64");
  EXPECT_EQ(describeIntegerRange(2, INT_MAX), "an integer >= 2");
}

TEST(AppsOptionValues, ReadersNameFlagValueAndExpectation) {
  const Argument depth{1, "--depth", "65"};
  int d = 0;
  EXPECT_EQ(readInteger(depth, 1, 64, &d), "invalid value for --depth: '65' (an integer from 1 to 64)");
  for (const char* bad : {"", " 1", "+1", "1x", "1.5", "0x10", "99999999999999999999"})
    EXPECT_NE(readInteger(Argument{1, "--depth", bad}, 1, 64, &d), "") << bad;
  EXPECT_EQ(readInteger(Argument{1, "--depth", "64"}, 1, 64, &d), "");
  EXPECT_EQ(d, 64);
  double x = 0;
  EXPECT_EQ(readPositiveReal(Argument{1, "--lr", "1e-3"}, &x), "");
  EXPECT_DOUBLE_EQ(x, 1e-3);
  for (const char* bad : {"0", "-1", "inf", "nan", "1e999", "x", ""})
    EXPECT_NE(readPositiveReal(Argument{1, "--lr", bad}, &x), "") << bad;
  size_t bytes = 0;
  EXPECT_EQ(readByteSize(Argument{'b', "-b", "64K"}, 1, &bytes), "");
  EXPECT_EQ(bytes, 64u << 10);
  EXPECT_NE(readByteSize(Argument{'b', "-b", "0"}, 1, &bytes).find("at least 1"), std::string::npos);
  EXPECT_EQ(readByteSize(Argument{'i', "-i", "0"}, 0, &bytes), "");
  std::string text;
  EXPECT_EQ(readText(Argument{'J', "-J", ""}, &text), "invalid value for -J: '' (a non-empty value)");
}

}  // namespace
}  // namespace hetccl_apps
