// HETCCL_CHECK_CALLS=1: ranks that make different calls (count, type, op, root, collective) all
// fail the same way, with hetcclInvalidUsage naming both calls and their ranks, before any data
// moves -- inline or queued -- and matching calls still give the right result.  Run in the
// failure entries (HETCCL_TEST_FAILURES=1) with the others that make their own communicators.
#include <mpi.h>

#include <string>
#include <vector>

#include "failure_test_support.h"

namespace hetccl_test {
namespace {

hetcclComm_t checkingCommunicator(const char* inlineBytes) {
  return communicatorWithSettings({{"HETCCL_CHECK_CALLS", "1"}, {"HETCCL_INLINE_BYTES", inlineBytes}});
}

// Rank 0 all-reduces `count0` elements of `type0`, the others `count` of `type`; every rank must
// see hetcclInvalidUsage naming both calls (the call's own result inline, the async error when
// queued), and the communicator stays failed.
void expectMismatchCaught(const char* inlineBytes, size_t count0, hetcclDataType_t type0, size_t count,
                          hetcclDataType_t type, const char* expectedText) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  hetcclComm_t comm = checkingCommunicator(inlineBytes);
  ASSERT_NE(comm, nullptr);
  const bool first = world().rank() == 0;
  const size_t n = first ? count0 : count;
  DeviceBuffer buffer(n * 8);
  const hetcclResult_t result =
      hetcclAllReduce(buffer.data(), buffer.data(), n, first ? type0 : type, hetcclSum, comm, userStream());
  EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
  hetcclResult_t async = hetcclSuccess;
  EXPECT_EQ(hetcclCommGetAsyncError(comm, &async), hetcclSuccess);
  if (result == hetcclSuccess)
    EXPECT_EQ(async, hetcclInvalidUsage) << "queued: reported asynchronously";
  else
    EXPECT_EQ(result, hetcclInvalidUsage);
  // Either way the next call reports it, with both calls named.
  EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), n, first ? type0 : type, hetcclSum, comm, userStream()),
            hetcclInvalidUsage);
  const std::string message = hetcclGetLastError(comm);
  EXPECT_NE(message.find("ranks disagree on the call"), std::string::npos) << message;
  EXPECT_NE(message.find(expectedText), std::string::npos) << message;
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
}

TEST(CallCheck, DifferentCountsFailEveryRankInline) {
  expectMismatchCaught("64K", 1000, hetcclFloat32, 2000, hetcclFloat32, "rank 0 called allreduce of 1000 float");
}

TEST(CallCheck, DifferentCountsFailEveryRankQueued) {
  expectMismatchCaught("0", 1000, hetcclFloat32, 1001, hetcclFloat32, "allreduce of 1001 float");
}

TEST(CallCheck, SameSizeDifferentTypesFailEveryRank) {
  expectMismatchCaught("64K", 500, hetcclFloat32, 500, hetcclInt32, "allreduce of 500 int32");
}

TEST(CallCheck, MatchingCallsStillGiveTheRightResult) {
  SKIP_UNLESS_FAILURE_TESTS();
  hetcclComm_t comm = checkingCommunicator("64K");
  ASSERT_NE(comm, nullptr);
  const int p = world().size();
  for (size_t count : {size_t{3}, size_t{100000}}) {
    std::vector<int32_t> mine(count, world().rank() + 1);
    DeviceBuffer buffer(count * sizeof(int32_t));
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(mine.data());
    buffer.upload(Bytes(bytes, bytes + count * sizeof(int32_t)));
    EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), count, hetcclInt32, hetcclSum, comm, userStream()),
              hetcclSuccess)
        << hetcclGetLastError(comm);
    EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
    const Bytes result = buffer.download();
    const int32_t* values = reinterpret_cast<const int32_t*>(result.data());
    EXPECT_EQ(values[0], p * (p + 1) / 2);
    EXPECT_EQ(values[count - 1], p * (p + 1) / 2);
  }
  hetcclResult_t async = hetcclInternalError;
  EXPECT_EQ(hetcclCommGetAsyncError(comm, &async), hetcclSuccess);
  EXPECT_EQ(async, hetcclSuccess);
  EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
}

}  // namespace
}  // namespace hetccl_test
