// Which library ran a collective, as hetcclCommGetAlgorithm reports it, against what the test
// entry expects from its environment: HETCCL_TEST_EXPECT_ALGORITHM names the algorithm of an
// all-reduce (e.g. "native:hetccl-nccl" when the island library takes whole operations,
// "hier+hetccl-nccl" when it runs the island steps, "hier" when it was missing).  Without it
// the test has nothing to check and says so.  The data itself is checked by the other tests.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "collective_checks.h"

namespace hetccl_test {
namespace {

const size_t kCount = 1001;  // odd, and not a multiple of 3: the island steps' tails run

// Rank r's element i, for the data of the checks below.
template <typename T>
T elementOf(int rank, size_t i) {
  return static_cast<T>((i * 13 + static_cast<size_t>(rank) * 7) % 101);
}

// An in-place all-reduce of elementOf<T>(this rank, i) on the world communicator; returns the
// result and sets *algorithm to what hetcclCommGetAlgorithm says ran it.
template <typename T>
std::vector<T> allReduceOnWorld(hetcclDataType_t type, hetcclRedOp_t op, std::string* algorithm) {
  const CommPair& p = world();
  std::vector<T> mine(kCount);
  for (size_t i = 0; i < kCount; ++i) mine[i] = elementOf<T>(p.rank(), i);
  DeviceBuffer buffer(kCount * sizeof(T));
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(mine.data());
  buffer.upload(Bytes(bytes, bytes + kCount * sizeof(T)));
  EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), kCount, type, op, p.comm, nullptr), hetcclSuccess)
      << hetcclGetLastError(p.comm);
  EXPECT_EQ(hetcclStreamSynchronize(nullptr), hetcclSuccess);
  const char* name = nullptr;
  EXPECT_EQ(hetcclCommGetAlgorithm(p.comm, &name), hetcclSuccess);
  *algorithm = name ? name : "(null)";
  Bytes result = buffer.download();
  std::vector<T> values(kCount);
  std::memcpy(values.data(), result.data(), kCount * sizeof(T));
  return values;
}

TEST(IslandLibrary, AllReduceRanByTheExpectedLibrary) {
  const char* expected = std::getenv("HETCCL_TEST_EXPECT_ALGORITHM");
  if (!expected || !*expected) GTEST_SKIP() << "HETCCL_TEST_EXPECT_ALGORITHM is not set for this entry";
  std::string algorithm;
  const std::vector<int32_t> sums = allReduceOnWorld<int32_t>(hetcclInt32, hetcclSum, &algorithm);
  EXPECT_EQ(algorithm, expected);
  // A prediction exists only where hetccl planned the operation itself.
  double predicted = -1;
  EXPECT_EQ(hetcclCommGetPredictedTime(world().comm, &predicted), hetcclSuccess);
  if (algorithm.rfind("native", 0) == 0) {
    EXPECT_EQ(predicted, 0) << algorithm;
  } else {
    EXPECT_GT(predicted, 0) << algorithm;
  }
  hetcclResult_t asyncError = hetcclInternalError;  // asks the vendor library too
  EXPECT_EQ(hetcclCommGetAsyncError(world().comm, &asyncError), hetcclSuccess);
  EXPECT_EQ(asyncError, hetcclSuccess);
  for (size_t i = 0; i < kCount; ++i) {
    int32_t sum = 0;
    for (int r = 0; r < world().size(); ++r) sum += elementOf<int32_t>(r, i);
    EXPECT_EQ(sums[i], sum) << "element " << i;
    if (sums[i] != sum) break;
  }
}

// Floating-point max/min keep hetccl's NaN and signed-zero rules, which vendor libraries do
// not promise: they never go to the library, whatever the entry expects for sums.
TEST(IslandLibrary, FloatingPointMaxStaysWithHetccl) {
  const char* expected = std::getenv("HETCCL_TEST_EXPECT_ALGORITHM");
  if (!expected || !*expected) GTEST_SKIP() << "HETCCL_TEST_EXPECT_ALGORITHM is not set for this entry";
  std::string algorithm;
  const std::vector<float> maxima = allReduceOnWorld<float>(hetcclFloat32, hetcclMax, &algorithm);
  EXPECT_EQ(algorithm.find_first_of(":+"), std::string::npos) << algorithm << " (expected one of hetccl's own)";
  for (size_t i = 0; i < kCount; ++i) {
    float best = 0;
    for (int r = 0; r < world().size(); ++r) best = std::max(best, elementOf<float>(r, i));
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
