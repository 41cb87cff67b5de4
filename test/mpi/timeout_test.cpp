// HETCCL_TIMEOUT: an operation whose peers never join ends with hetcclTimeout on every rank that
// called it, within the timeout plus a margin, whether it ran inline (the call returns the
// error) or on the progress thread (the stream is released and the communicator reports it);
// the message names the peer waited for; the communicator is poisoned, and later calls return
// at once.  Only rank 0 calls; the others wait at an MPI barrier for it.  These tests take
// seconds, so they run only in their own CTest entries (HETCCL_TEST_FAILURES=1).
#include <mpi.h>

#include <chrono>
#include <string>

#include "failure_test_support.h"

namespace hetccl_test {
namespace {

constexpr int kTimeoutSeconds = 2;
constexpr double kMarginSeconds = 2.0;

// A communicator with the test's timeout, inline up to `inlineBytes`.
hetcclComm_t communicatorWith(const char* inlineBytes) {
  return communicatorWithSettings(
      {{"HETCCL_TIMEOUT", std::to_string(kTimeoutSeconds)}, {"HETCCL_INLINE_BYTES", inlineBytes}});
}

// Rank 0 all-reduces 256 floats (1 KiB: eager sends, nothing left half-sent) that nobody joins.
void expectTimeoutWhenPeersNeverCall(const char* inlineBytes, bool expectInline) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  hetcclComm_t comm = communicatorWith(inlineBytes);
  ASSERT_NE(comm, nullptr);
  const size_t count = 256;
  DeviceBuffer buffer(count * sizeof(float));
  if (world().rank() == 0) {
    const auto start = std::chrono::steady_clock::now();
    const hetcclResult_t result =
        hetcclAllReduce(buffer.data(), buffer.data(), count, hetcclFloat32, hetcclSum, comm, userStream());
    if (expectInline) {
      EXPECT_EQ(result, hetcclTimeout) << hetcclGetLastError(comm);
    } else {
      EXPECT_EQ(result, hetcclSuccess) << "a queued operation's call returns before it runs";
      EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess) << "the stream must be released";
    }
    const double took = secondsSince(start);
    EXPECT_GE(took, kTimeoutSeconds - 0.1);
    EXPECT_LT(took, kTimeoutSeconds + kMarginSeconds);
    hetcclResult_t async = hetcclSuccess;
    EXPECT_EQ(hetcclCommGetAsyncError(comm, &async), hetcclSuccess);
    EXPECT_EQ(async, hetcclTimeout);
    // Poisoned: the next call fails at once, with the reason.
    const auto again = std::chrono::steady_clock::now();
    EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), count, hetcclFloat32, hetcclSum, comm, userStream()),
              hetcclTimeout);
    EXPECT_LT(secondsSince(again), 0.5);
    const std::string message = hetcclGetLastError(comm);
    EXPECT_NE(message.find("HETCCL_TIMEOUT"), std::string::npos) << message;
    EXPECT_NE(message.find("waiting for rank"), std::string::npos) << message;
    EXPECT_NE(message.find("allreduce of 256 "), std::string::npos) << message;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
}

TEST(Timeout, InlineCallReturnsTimeoutWhenPeersNeverCall) { expectTimeoutWhenPeersNeverCall("64K", true); }

TEST(Timeout, QueuedOperationTimesOutAndReleasesTheStream) { expectTimeoutWhenPeersNeverCall("0", false); }

}  // namespace
}  // namespace hetccl_test
