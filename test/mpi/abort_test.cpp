// hetcclCommAbort from another thread, as PyTorch's watchdog does with NCCL (poll
// ncclCommGetAsyncError, then abort): the call stuck inside the communicator returns within a
// second, a queued operation's stream is released, nothing is freed while in use; and a second
// thread's operation on a communicator already in use is refused with hetcclInvalidUsage
// instead of racing.  Only rank 0 calls the operations (the peers never join, so without the
// abort they would wait forever: HETCCL_TIMEOUT is 0 here); the others wait at an MPI barrier.
// Then, that an aborted communicator leaves nothing behind that disturbs the next one.  They
// take seconds, so they run only in their own CTest entries (HETCCL_TEST_FAILURES=1).
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "failure_test_support.h"
#include "reference.h"

namespace hetccl_test {
namespace {

// Never timing out (only the abort ends a stuck call), inline up to `inlineBytes`.
hetcclComm_t communicatorWith(const char* inlineBytes) {
  return communicatorWithSettings({{"HETCCL_TIMEOUT", "0"}, {"HETCCL_INLINE_BYTES", inlineBytes}});
}

// A watchdog thread: polls the communicator's async error for `pollFor`, then aborts it; returns
// when the abort has returned (the time it took in *abortSeconds).
std::thread watchdog(hetcclComm_t comm, std::chrono::milliseconds pollFor, double* abortSeconds) {
  return std::thread([=] {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < pollFor) {
      hetcclResult_t async = hetcclInternalError;
      EXPECT_EQ(hetcclCommGetAsyncError(comm, &async), hetcclSuccess);
      EXPECT_EQ(async, hetcclSuccess);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const auto aborting = std::chrono::steady_clock::now();
    EXPECT_EQ(hetcclCommAbort(comm), hetcclSuccess) << hetcclGetLastError(nullptr);
    *abortSeconds = secondsSince(aborting);
  });
}

TEST(Abort, WatchdogUnblocksACallStuckInside) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  hetcclComm_t comm = communicatorWith("64K");  // small: runs inline, on this thread
  ASSERT_NE(comm, nullptr);
  DeviceBuffer buffer(256 * sizeof(float));
  if (world().rank() == 0) {
    double abortSeconds = -1;
    std::thread dog = watchdog(comm, std::chrono::milliseconds(500), &abortSeconds);
    const auto start = std::chrono::steady_clock::now();
    const hetcclResult_t result =
        hetcclAllReduce(buffer.data(), buffer.data(), 256, hetcclFloat32, hetcclSum, comm, userStream());
    const double took = secondsSince(start);
    dog.join();
    EXPECT_NE(result, hetcclSuccess) << "the peers never joined: the call cannot have succeeded";
    EXPECT_LT(took, 1.5) << "the abort must end the call within a second of itself";
    EXPECT_GE(abortSeconds, 0);
    EXPECT_LT(abortSeconds, 1.0);
    int count = 0;
    EXPECT_EQ(hetcclCommCount(comm, &count), hetcclInvalidArgument) << "aborted: no longer a communicator";
  }
  // The peers never call: their communicator is simply destroyed after the barrier.
  MPI_Barrier(MPI_COMM_WORLD);
  if (world().rank() != 0) {
    EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  }
}

TEST(Abort, WatchdogReleasesTheStreamOfAQueuedOperation) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  hetcclComm_t comm = communicatorWith("0");  // nothing inline: queued for the progress thread
  ASSERT_NE(comm, nullptr);
  DeviceBuffer buffer(256 * sizeof(float));
  if (world().rank() == 0) {
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), 256, hetcclFloat32, hetcclSum, comm, userStream()),
                hetcclSuccess);
    double abortSeconds = -1;
    std::thread dog = watchdog(comm, std::chrono::milliseconds(300), &abortSeconds);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);  // released by the abort
    const double took = secondsSince(start);
    dog.join();
    EXPECT_LT(took, 1.5);
    EXPECT_LT(abortSeconds, 1.0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world().rank() != 0) {
    EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  }
}

TEST(Abort, ASecondThreadInsideTheSameCommunicatorIsRefused) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  hetcclComm_t comm = communicatorWith("64K");
  ASSERT_NE(comm, nullptr);
  DeviceBuffer first(256 * sizeof(float)), second(256 * sizeof(float));
  if (world().rank() == 0) {
    // The first call runs inline and waits for the peers, which join after 600 ms; meanwhile a
    // second thread's call on the same communicator must be refused at once.
    std::atomic<bool> started{false};
    hetcclResult_t firstResult = hetcclInternalError;
    std::thread owner([&] {
      started = true;
      firstResult = hetcclAllReduce(first.data(), first.data(), 256, hetcclFloat32, hetcclSum, comm, userStream());
    });
    while (!started) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(hetcclAllReduce(second.data(), second.data(), 256, hetcclFloat32, hetcclSum, comm, userStream()),
              hetcclInvalidUsage);
    EXPECT_LT(secondsSince(start), 0.2);
    EXPECT_NE(std::string(hetcclGetLastError(comm)).find("another thread"), std::string::npos)
        << hetcclGetLastError(comm);
    owner.join();
    EXPECT_EQ(firstResult, hetcclSuccess) << hetcclGetLastError(comm);
    hetcclResult_t async = hetcclInternalError;
    EXPECT_EQ(hetcclCommGetAsyncError(comm, &async), hetcclSuccess);
    EXPECT_EQ(async, hetcclSuccess) << "a refused call does not poison the communicator";
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    EXPECT_EQ(hetcclAllReduce(first.data(), first.data(), 256, hetcclFloat32, hetcclSum, comm, userStream()),
              hetcclSuccess);
  }
  EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
}

// Rank 0's aborted all-reduce left messages on their way to its peers, and their leaving
// notices go to a rank that no longer listens: none of it may reach the next communicator
// (Open MPI hands a message for a freed communicator to the next one with the same context id,
// core/retirement.h), which must compute exactly what MPI does.
TEST(Abort, TheNextCommunicatorIsNotDisturbedByWhatTheAbortedOneLeftBehind) {
  SKIP_UNLESS_FAILURE_TESTS();
  if (world().size() < 2) GTEST_SKIP() << "needs a peer";
  const TypeInfo& type = typeInfo(hetcclInt32);
  const size_t count = 300;
  for (int round = 0; round < 3; ++round) {
    hetcclComm_t aborted = communicatorWith("0");
    ASSERT_NE(aborted, nullptr);
    DeviceBuffer lonely(count * type.size);
    if (world().rank() == 0) {
      EXPECT_EQ(hetcclAllReduce(lonely.data(), lonely.data(), count, hetcclInt32, hetcclSum, aborted, userStream()),
                hetcclSuccess);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // its first messages are out
      EXPECT_EQ(hetcclCommAbort(aborted), hetcclSuccess);
      EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (world().rank() != 0) {
      EXPECT_EQ(hetcclCommDestroy(aborted), hetcclSuccess);
    }

    hetcclComm_t next = communicatorWith("0");
    ASSERT_NE(next, nullptr);
    const Bytes input = makeInput(type, hetcclSum, world().size(), world().rank(), count, 40 + round);
    DeviceBuffer buffer(count * type.size);
    buffer.upload(input);
    ASSERT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), count, hetcclInt32, hetcclSum, next, userStream()),
              hetcclSuccess)
        << hetcclGetLastError(next);
    ASSERT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
    expectSameBits(type, referenceAllReduce(type, hetcclSum, input, count, MPI_COMM_WORLD), buffer.download(),
                   "round " + std::to_string(round));
    EXPECT_EQ(hetcclCommDestroy(next), hetcclSuccess);
  }
}

}  // namespace
}  // namespace hetccl_test
