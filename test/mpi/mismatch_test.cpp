// Mismatched calls without HETCCL_CHECK_CALLS end, never hang: rank 0 and the others call
// different things, and every rank's call ends within the timeout plus a margin, with one of
// the documented results -- an MPI error where the sizes disagree (hetcclSystemError), a
// remote error on the peers it tells (hetcclRemoteError), a timeout, or, where the sizes happen
// to agree, success with meaningless data (what HETCCL_CHECK_CALLS exists for, tested in
// call_check_test.cpp).  Run in the failure entries (HETCCL_TEST_FAILURES=1).
#include <mpi.h>

#include <chrono>
#include <set>
#include <string>

#include "failure_test_support.h"

namespace hetccl_test {
namespace {

constexpr int kTimeoutSeconds = 2;

struct Mismatch {
  const char* name;
  bool broadcastOnRank0;  // rank 0 broadcasts where the others all-reduce
  size_t count0, count;   // elements on rank 0 and on the others (small: eager messages)
  hetcclDataType_t type0, type;
};

void expectEveryRankEnds(const Mismatch& m) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  hetcclComm_t comm = communicatorWithSettings({{"HETCCL_TIMEOUT", std::to_string(kTimeoutSeconds)}});
  ASSERT_NE(comm, nullptr);
  const bool first = world().rank() == 0;
  const size_t count = first ? m.count0 : m.count;
  DeviceBuffer buffer(count * 8);
  const auto start = std::chrono::steady_clock::now();
  hetcclResult_t result = first && m.broadcastOnRank0
                              ? hetcclBroadcast(buffer.data(), buffer.data(), count, m.type0, 0, comm, userStream())
                              : hetcclAllReduce(buffer.data(), buffer.data(), count, first ? m.type0 : m.type,
                                                hetcclSum, comm, userStream());
  if (result == hetcclSuccess) {
    EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
    hetcclResult_t async = hetcclSuccess;
    EXPECT_EQ(hetcclCommGetAsyncError(comm, &async), hetcclSuccess);
    result = async;
  }
  const double took = secondsSince(start);
  const std::set<hetcclResult_t> documented{hetcclSuccess, hetcclSystemError, hetcclRemoteError, hetcclTimeout};
  EXPECT_TRUE(documented.count(result)) << m.name << ": rank " << world().rank() << " ended with "
                                        << hetcclGetErrorString(result) << ": " << hetcclGetLastError(comm);
  EXPECT_LT(took, kTimeoutSeconds + 2.0) << m.name << ": rank " << world().rank();
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
}

TEST(Mismatch, CountsThatDoubleEndOnEveryRank) {
  expectEveryRankEnds({"100 vs 200 floats", false, 100, 200, hetcclFloat32, hetcclFloat32});
}
TEST(Mismatch, CountsOffByOneEndOnEveryRank) {
  expectEveryRankEnds({"100 vs 101 floats", false, 100, 101, hetcclFloat32, hetcclFloat32});
}
TEST(Mismatch, TypesOfDifferentSizesEndOnEveryRank) {
  expectEveryRankEnds({"float vs double", false, 100, 100, hetcclFloat32, hetcclFloat64});
}
TEST(Mismatch, DifferentCollectivesEndOnEveryRank) {
  expectEveryRankEnds({"broadcast vs all-reduce", true, 100, 100, hetcclFloat32, hetcclFloat32});
}

}  // namespace
}  // namespace hetccl_test
