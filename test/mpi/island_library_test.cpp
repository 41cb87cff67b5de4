// Which library ran a collective, as hetcclCommGetAlgorithm reports it, against what the test
// entry expects from its environment: HETCCL_TEST_EXPECT_ALGORITHM names the algorithm of an
// all-reduce (e.g. "native:hetccl-nccl" when the island library takes whole operations,
// "hier+hetccl-nccl" when it runs the island steps, "hier" when it was missing).  Without it
// the test has nothing to check and says so.  The data itself is checked by the other tests.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "collective_checks.h"

namespace hetccl_test {
namespace {

TEST(IslandLibrary, AllReduceRanByTheExpectedLibrary) {
  const char* expected = std::getenv("HETCCL_TEST_EXPECT_ALGORITHM");
  if (!expected || !*expected) GTEST_SKIP() << "HETCCL_TEST_EXPECT_ALGORITHM is not set for this entry";
  const CommPair& p = world();
  const size_t count = 1001;  // odd, and not a multiple of 3: the island steps' tails run
  std::vector<int32_t> mine(count);
  for (size_t i = 0; i < count; ++i) mine[i] = static_cast<int32_t>(i * 7 + p.rank());
  DeviceBuffer buffer(count * sizeof(int32_t));
  buffer.upload(Bytes(reinterpret_cast<unsigned char*>(mine.data()),
                      reinterpret_cast<unsigned char*>(mine.data()) + count * sizeof(int32_t)));
  EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), count, hetcclInt32, hetcclSum, p.comm, nullptr), hetcclSuccess)
      << hetcclGetLastError(p.comm);
  EXPECT_EQ(hetcclStreamSynchronize(nullptr), hetcclSuccess);
  const char* algorithm = nullptr;
  EXPECT_EQ(hetcclCommGetAlgorithm(p.comm, &algorithm), hetcclSuccess);
  EXPECT_EQ(std::string(algorithm ? algorithm : "(null)"), expected);
  hetcclResult_t asyncError = hetcclInternalError;  // asks the vendor library too
  EXPECT_EQ(hetcclCommGetAsyncError(p.comm, &asyncError), hetcclSuccess);
  EXPECT_EQ(asyncError, hetcclSuccess);
  Bytes result = buffer.download();
  const int32_t* sums = reinterpret_cast<const int32_t*>(result.data());
  const int32_t ranks = p.size(), rankSum = ranks * (ranks - 1) / 2;
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(sums[i], static_cast<int32_t>(i * 7) * ranks + rankSum) << "element " << i;
    if (sums[i] != static_cast<int32_t>(i * 7) * ranks + rankSum) break;
  }
}

// Floating-point max/min keep hetccl's NaN and signed-zero rules, which vendor libraries do
// not promise: they never go to the library, whatever the entry expects for sums.
TEST(IslandLibrary, FloatingPointMaxStaysWithHetccl) {
  const char* expected = std::getenv("HETCCL_TEST_EXPECT_ALGORITHM");
  if (!expected || !*expected) GTEST_SKIP() << "HETCCL_TEST_EXPECT_ALGORITHM is not set for this entry";
  const CommPair& p = world();
  const size_t count = 1001;
  std::vector<float> mine(count);
  for (size_t i = 0; i < count; ++i) mine[i] = static_cast<float>((i * 13 + static_cast<size_t>(p.rank()) * 7) % 101);
  DeviceBuffer buffer(count * sizeof(float));
  buffer.upload(Bytes(reinterpret_cast<unsigned char*>(mine.data()),
                      reinterpret_cast<unsigned char*>(mine.data()) + count * sizeof(float)));
  EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), count, hetcclFloat32, hetcclMax, p.comm, nullptr), hetcclSuccess)
      << hetcclGetLastError(p.comm);
  EXPECT_EQ(hetcclStreamSynchronize(nullptr), hetcclSuccess);
  const char* algorithm = nullptr;
  EXPECT_EQ(hetcclCommGetAlgorithm(p.comm, &algorithm), hetcclSuccess);
  const std::string name = algorithm ? algorithm : "";
  EXPECT_EQ(name.find_first_of(":+"), std::string::npos) << name << " (expected one of hetccl's own)";
  Bytes result = buffer.download();
  const float* maxima = reinterpret_cast<const float*>(result.data());
  for (size_t i = 0; i < count; ++i) {
    float best = 0;
    for (int r = 0; r < p.size(); ++r) best = std::max(best, static_cast<float>((i * 13 + static_cast<size_t>(r) * 7) % 101));
    EXPECT_EQ(maxima[i], best) << "element " << i;
    if (maxima[i] != best) break;
  }
}

// HETCCL_TEST_EXPECT_WARNING: text this rank's log (HETCCL_DEBUG_FILE, with %p for the
// process id) must hold, e.g. the warning that an island's library is missing.
TEST(IslandLibrary, LogHoldsTheExpectedWarning) {
  const char* expected = std::getenv("HETCCL_TEST_EXPECT_WARNING");
  const char* pattern = std::getenv("HETCCL_DEBUG_FILE");
  if (!expected || !*expected || !pattern) GTEST_SKIP() << "HETCCL_TEST_EXPECT_WARNING is not set for this entry";
  std::string path = pattern;
  const size_t at = path.find("%p");
  if (at != std::string::npos) path.replace(at, 2, std::to_string(getpid()));
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_NE(text.str().find(expected), std::string::npos) << path << " holds:\n" << text.str();
}

}  // namespace
}  // namespace hetccl_test
