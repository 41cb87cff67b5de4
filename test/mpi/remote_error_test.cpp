// A rank whose communicator fails, is aborted, or is destroyed while peers wait for it tells them
// over the control channel: the
// peers waiting in an operation with it fail with hetcclRemoteError naming it within about a
// second, instead of waiting for their own timeout (set to 30 s or off here, so a pass proves the
// announcement).  Run in the failure entries (HETCCL_TEST_FAILURES=1).
#include <mpi.h>

#include <chrono>
#include <string>
#include <thread>

#include "failure_test_support.h"

namespace hetccl_test {
namespace {

hetcclComm_t communicatorWithTimeout(int seconds) {
  return communicatorWithSettings({{"HETCCL_TIMEOUT", std::to_string(seconds)}});
}

// `waiter` all-reduces 256 floats that rank 0 never joins; returns when the call has returned.
void expectRemoteErrorFromRank0(hetcclComm_t comm, double within) {
  DeviceBuffer buffer(256 * sizeof(float));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), 256, hetcclFloat32, hetcclSum, comm, userStream()),
            hetcclRemoteError);
  EXPECT_LT(secondsSince(start), within);
  const std::string message = hetcclGetLastError(comm);
  EXPECT_NE(message.find("rank 0 failed"), std::string::npos) << message;
}

TEST(RemoteError, APeersAbortMidOperationFailsTheOthersWaitingForIt) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  hetcclComm_t comm = communicatorWithTimeout(0);  // never time out: only the announcement ends it
  ASSERT_NE(comm, nullptr);
  if (world().rank() == 0) {
    // Rank 0 is in an operation of its own (a receive nobody sends: queued, never done) when
    // it aborts; the others are waiting for it in an all-reduce by then.
    DeviceBuffer received(64);
    EXPECT_EQ(hetcclRecv(received.data(), 64, hetcclUint8, 1, comm, userStream()), hetcclSuccess);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(hetcclCommAbort(comm), hetcclSuccess);
    EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);  // released by the abort
  } else {
    expectRemoteErrorFromRank0(comm, 1.8);
    EXPECT_NE(std::string(hetcclGetLastError(comm)).find("aborted"), std::string::npos) << hetcclGetLastError(comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world().rank() != 0) {
    EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  }
}

TEST(RemoteError, APeersTimeoutFailsTheOthersBeforeTheirs) {
  SKIP_UNLESS_FAILURE_TESTS();
  const int p = world().size();
  if (p < 3) GTEST_SKIP() << "needs a rank that times out, one that waits, and one that never calls";
  // Rank 0 gives up after 1 s, the others would wait 30 s; the last rank never calls.
  hetcclComm_t comm = communicatorWithTimeout(world().rank() == 0 ? 1 : 30);
  ASSERT_NE(comm, nullptr);
  DeviceBuffer buffer(256 * sizeof(float));
  if (world().rank() == 0) {
    EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), 256, hetcclFloat32, hetcclSum, comm, userStream()),
              hetcclTimeout);
  } else if (world().rank() < p - 1) {
    expectRemoteErrorFromRank0(comm, 3.0);
    EXPECT_NE(std::string(hetcclGetLastError(comm)).find("timeout"), std::string::npos) << hetcclGetLastError(comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
}

TEST(RemoteError, APeerThatDestroysItsCommunicatorFailsTheOthersWaitingForIt) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  // A timeout far beyond the 1.8 s allowed: the notice ends it.  The ring, because every rank
  // sends before it receives there, so the leaver finds its left neighbour's message waiting
  // (in plans where a rank waits for the leaver before sending it anything, only the timeout
  // ends the wait).
  hetcclComm_t comm = communicatorWithSettings({{"HETCCL_TIMEOUT", "10"}, {"HETCCL_ALGO", "ring"}});
  ASSERT_NE(comm, nullptr);
  DeviceBuffer buffer(256 * sizeof(float));
  // One collective together first: the leaver's count must be compared, not just its leaving.
  ASSERT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), 256, hetcclFloat32, hetcclSum, comm, userStream()),
            hetcclSuccess);
  ASSERT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
  if (world().rank() == 0) {
    // Instead of the second all-reduce: destroyed once the others' first messages of it have
    // arrived, which is how the leaver sees who waits for it (the ranks those wait for hear it
    // from them).
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  } else {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), 256, hetcclFloat32, hetcclSum, comm, userStream()),
              hetcclRemoteError);
    EXPECT_LT(secondsSince(start), 1.8);
    const std::string message = hetcclGetLastError(comm);
    EXPECT_NE(message.find("rank 0 left"), std::string::npos) << message;
    EXPECT_NE(message.find("after 1 collectives"), std::string::npos) << message;
    EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);  // the stream is released
    EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(RemoteError, APeerThatLeavesAfterItsLastCollectiveDoesNotFailPeersStillInIt) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  hetcclComm_t comm = communicatorWithTimeout(0);
  ASSERT_NE(comm, nullptr);
  // Rank 0 roots a small broadcast, is done with it as soon as its sends are out, and leaves
  // while the others have not even called theirs: they still receive it.
  const size_t count = 1000;
  DeviceBuffer buffer(count * 4);
  buffer.upload(Bytes(buffer.bytes(), world().rank() == 0 ? 7 : 0xff));
  if (world().rank() == 0) {
    EXPECT_EQ(hetcclBroadcast(buffer.data(), buffer.data(), count, hetcclInt32, 0, comm, userStream()), hetcclSuccess);
    EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(hetcclBroadcast(buffer.data(), buffer.data(), count, hetcclInt32, 0, comm, userStream()), hetcclSuccess)
        << hetcclGetLastError(comm);
    EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
    EXPECT_EQ(buffer.download(), Bytes(buffer.bytes(), 7));
    EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace hetccl_test
