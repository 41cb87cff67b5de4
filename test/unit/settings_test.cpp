// Settings: byte sizes with suffixes, environment over defaults, config over environment,
// and clear errors for bad values.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/byte_size.h"
#include "core/settings.h"
#include "transport/mpi_transport.h"

namespace hetccl {
namespace {

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) { hadOld_ = true; old_ = old; }
    setenv(name, value, 1);
  }
  ~ScopedEnv() { hadOld_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  bool hadOld_ = false;
  std::string old_;
};

TEST(Settings, ParsesByteSizes) {
  size_t bytes = 0;
  EXPECT_TRUE(parseByteSize("4096", &bytes)); EXPECT_EQ(bytes, 4096u);
  EXPECT_TRUE(parseByteSize("512K", &bytes)); EXPECT_EQ(bytes, 512u << 10);
  EXPECT_TRUE(parseByteSize("2M", &bytes)); EXPECT_EQ(bytes, 2u << 20);
  EXPECT_TRUE(parseByteSize("1g", &bytes)); EXPECT_EQ(bytes, size_t{1} << 30);
  EXPECT_TRUE(parseByteSize("8MB", &bytes)); EXPECT_EQ(bytes, 8u << 20);
  for (const char* bad : {"", "-1", "12X", "M", "1.5M", "99999999999999999999"})
    EXPECT_FALSE(parseByteSize(bad, &bytes)) << bad;
}

TEST(Settings, DefaultsWithoutEnvironment) {
  Settings s;
  ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
  EXPECT_EQ(s.chunkBytes, size_t{1} << 20);
  EXPECT_EQ(s.pipelineDepth, 4);
  EXPECT_EQ(s.algorithm, "auto");
}

TEST(Settings, EnvironmentOverridesDefaultsAndConfigOverridesEnvironment) {
  ScopedEnv chunk("HETCCL_CHUNK_BYTES", "64K"), depth("HETCCL_PIPELINE_DEPTH", "7");
  Settings s;
  ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
  EXPECT_EQ(s.chunkBytes, 64u << 10);
  EXPECT_EQ(s.pipelineDepth, 7);
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.pipelineDepth = 2;
  ASSERT_TRUE(loadSettings(&config, &s).isOk());
  EXPECT_EQ(s.pipelineDepth, 2);
  EXPECT_EQ(s.chunkBytes, 64u << 10);  // left undefined in the config
}

TEST(Settings, BadValuesAreInvalidArgumentsNamingTheVariable) {
  {
    ScopedEnv bad("HETCCL_CHUNK_BYTES", "lots");
    Settings s;
    Status status = loadSettings(nullptr, &s);
    EXPECT_EQ(status.code(), Code::InvalidArgument);
    EXPECT_NE(status.message().find("HETCCL_CHUNK_BYTES"), std::string::npos) << status.message();
  }
  {
    ScopedEnv bad("HETCCL_PIPELINE_DEPTH", "0");
    Settings s;
    EXPECT_EQ(loadSettings(nullptr, &s).code(), Code::InvalidArgument);
  }
  {
    ScopedEnv bad("HETCCL_ALGO", "butterfly");
    Settings s;
    Status status = loadSettings(nullptr, &s);
    EXPECT_EQ(status.code(), Code::InvalidArgument);
    EXPECT_NE(status.message().find("butterfly"), std::string::npos);
  }
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.magic = 0;
  Settings s;
  EXPECT_EQ(loadSettings(&config, &s).code(), Code::InvalidArgument);
}

TEST(MpiTransport, SplitsMessagesAboveTheLimit) {
  EXPECT_EQ(messagePieceCount(0, 1000), 1u);
  EXPECT_EQ(messagePieceCount(1000, 1000), 1u);
  EXPECT_EQ(messagePieceCount(1001, 1000), 2u);
  // Above INT_MAX with the default 1 GiB pieces: 5 GiB + 1 byte takes 6 pieces.
  EXPECT_EQ(messagePieceCount((size_t{5} << 30) + 1, kDefaultMaxMessageBytes), 6u);
}

}  // namespace
}  // namespace hetccl
