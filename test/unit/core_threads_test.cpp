// The core without MPI: communicators made over the in-process bootstrap, one thread per rank,
// used through the public API -- creation, the inline and the engine paths, emulated islands
// and their algorithms, groups of collectives and point-to-point, the call check, a peer that
// leaves, an abort from a watchdog thread, split.  Also run under ThreadSanitizer
// (scripts/run-tsan-tests.sh).  Sums of int32 are exact in any order, so results are compared
// with a direct computation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/api_support.h"
#include "thread_communicators.h"

namespace hetccl {
namespace {

int valueOf(int rank, size_t i) { return (rank + 1) * static_cast<int>(i % 97 + 1); }

// An all-reduce of `count` int32 over `comm`, waited for and checked; "" when exact.
std::string allReduceChecked(hetcclComm_t comm, hetcclStream_t stream, size_t count) {
  int rank = 0, nranks = 0;
  if (hetcclCommUserRank(comm, &rank) != hetcclSuccess || hetcclCommCount(comm, &nranks) != hetcclSuccess)
    return "rank or count query failed";
  std::vector<int> mine(count);
  for (size_t i = 0; i < count; ++i) mine[i] = valueOf(rank, i);
  void* buffer = nullptr;
  std::string failed = toDevice(mine, &buffer);
  if (!failed.empty()) return failed;
  if (hetcclAllReduce(buffer, buffer, count, hetcclInt32, hetcclSum, comm, stream) != hetcclSuccess)
    failed = std::string("hetcclAllReduce: ") + hetcclGetLastError(comm);
  else if (hetcclStreamSynchronize(stream) != hetcclSuccess)
    failed = std::string("hetcclStreamSynchronize: ") + hetcclGetLastError(nullptr);
  hetcclResult_t async = hetcclSuccess;
  if (failed.empty() && (hetcclCommGetAsyncError(comm, &async) != hetcclSuccess || async != hetcclSuccess))
    failed = std::string("asynchronous error: ") + hetcclGetLastError(comm);
  std::vector<int> result;
  if (failed.empty()) failed = fromDevice(buffer, count, &result);
  for (size_t i = 0; failed.empty() && i < count; ++i) {
    const int expected = static_cast<int>(i % 97 + 1) * nranks * (nranks + 1) / 2;
    if (result[i] != expected)
      failed = "element " + std::to_string(i) + " of " + std::to_string(count) + " is " + std::to_string(result[i]) +
               ", expected " + std::to_string(expected);
  }
  (void)hetcclMemFree(buffer);
  return failed;
}

// An in-place int32 sum of `count` elements in `buffer`, waited for: the call's own result
// when it refused, else the asynchronous error the operation left (hetcclSuccess when none).
hetcclResult_t allReduceOutcome(void* buffer, size_t count, hetcclComm_t comm, hetcclStream_t stream) {
  const hetcclResult_t result = hetcclAllReduce(buffer, buffer, count, hetcclInt32, hetcclSum, comm, stream);
  if (result != hetcclSuccess) return result;
  (void)hetcclStreamSynchronize(stream);
  hetcclResult_t async = hetcclSuccess;
  (void)hetcclCommGetAsyncError(comm, &async);
  return async;
}

hetcclConfig_t configWith(int timeoutSeconds, int checkCalls = HETCCL_CONFIG_UNDEF_INT,
                          const char* algorithm = nullptr) {
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.timeoutSeconds = timeoutSeconds;  // a hang fails the test instead of the CI run
  config.checkCalls = checkCalls;
  config.algorithm = algorithm;
  return config;
}

// Counts that go inline (a few bytes on an idle stream) and through the engine, pipelined.
const std::vector<size_t> kCounts = {1, 7, 1000, 70000};

TEST(CoreThreads, AllReduceOnEveryRankCountBothPaths) {
  const hetcclConfig_t config = configWith(30);
  for (const char* inlineBytes : {"65536", "0"}) {
    ScopedSetting inlineSetting("HETCCL_INLINE_BYTES", inlineBytes);
    for (int nranks = 1; nranks <= 5; ++nranks) {
      const std::string failures = runOnCommunicators(nranks, &config, [&](ThreadRank& self) {
        for (size_t count : kCounts)
          if (std::string failed = allReduceChecked(self.comm, self.stream, count); !failed.empty()) return failed;
        return std::string();
      });
      EXPECT_EQ(failures, "") << nranks << " ranks, HETCCL_INLINE_BYTES=" << inlineBytes;
    }
  }
}

TEST(CoreThreads, EmulatedIslandsRunEachCrossIslandAlgorithm) {
  ScopedSetting vendors("HETCCL_EMULATE_VENDORS", "nvidia:2,amd:2");
  for (const char* algorithm : {"ring", "hier", "torus", "hier-tree", "hier-dbtree"}) {
    const hetcclConfig_t config = configWith(30, HETCCL_CONFIG_UNDEF_INT, algorithm);
    const std::string failures = runOnCommunicators(4, &config, [&](ThreadRank& self) {
      if (std::string failed = allReduceChecked(self.comm, self.stream, 70000); !failed.empty()) return failed;
      const char* used = nullptr;
      if (hetcclCommGetAlgorithm(self.comm, &used) != hetcclSuccess || std::string(used).rfind(algorithm, 0) != 0)
        return std::string("ran ") + (used ? used : "?") + ", not " + algorithm;
      return std::string();
    });
    EXPECT_EQ(failures, "") << algorithm;
  }
}

TEST(CoreThreads, GroupOfCollectivesAndPointToPoint) {
  const hetcclConfig_t config = configWith(30);
  const int nranks = 3;
  const std::string failures = runOnCommunicators(nranks, &config, [&](ThreadRank& self) {
    const int rank = self.rank;
    hetcclComm_t& comm = self.comm;
    const size_t count = 5000;
    std::vector<int> mine(count), sum(count);
    for (size_t i = 0; i < count; ++i) mine[i] = valueOf(rank, i);
    void *reduced = nullptr, *sent = nullptr, *received = nullptr;
    std::string failed = toDevice(mine, &reduced);
    if (failed.empty()) failed = toDevice(mine, &sent);
    if (failed.empty()) failed = toDevice(std::vector<int>(count, -1), &received);
    const int next = (rank + 1) % nranks, previous = (rank + nranks - 1) % nranks;
    if (failed.empty()) {
      (void)hetcclGroupStart();
      hetcclResult_t calls = hetcclAllReduce(reduced, reduced, count, hetcclInt32, hetcclSum, comm, self.stream);
      if (calls == hetcclSuccess) calls = hetcclSend(sent, count, hetcclInt32, next, comm, self.stream);
      if (calls == hetcclSuccess) calls = hetcclRecv(received, count, hetcclInt32, previous, comm, self.stream);
      const hetcclResult_t ended = hetcclGroupEnd();
      if (calls != hetcclSuccess || ended != hetcclSuccess || hetcclStreamSynchronize(self.stream) != hetcclSuccess)
        failed = std::string("group: ") + hetcclGetLastError(comm);
    }
    std::vector<int> fromPrevious;
    if (failed.empty()) failed = fromDevice(reduced, count, &sum);
    if (failed.empty()) failed = fromDevice(received, count, &fromPrevious);
    for (size_t i = 0; failed.empty() && i < count; ++i) {
      if (sum[i] != static_cast<int>(i % 97 + 1) * nranks * (nranks + 1) / 2)
        failed = "sum wrong at " + std::to_string(i);
      if (fromPrevious[i] != valueOf(previous, i)) failed = "received wrong at " + std::to_string(i);
    }
    for (void* buffer : {reduced, sent, received}) (void)hetcclMemFree(buffer);
    return failed;
  });
  EXPECT_EQ(failures, "");
}

TEST(CoreThreads, CallCheckFailsEveryRankNamingBothCalls) {
  const hetcclConfig_t config = configWith(30, 1);
  const std::string failures = runOnCommunicators(3, &config, [&](ThreadRank& self) {
    const int rank = self.rank;
    hetcclComm_t& comm = self.comm;
    const size_t count = rank == 1 ? 16 : 8;  // rank 1 disagrees
    void* buffer = nullptr;
    std::string failed = toDevice(std::vector<int>(count, 1), &buffer);
    if (!failed.empty()) return failed;
    const hetcclResult_t seen = allReduceOutcome(buffer, count, comm, self.stream);
    const std::string message = hetcclGetLastError(comm);
    (void)hetcclMemFree(buffer);
    if (seen != hetcclInvalidUsage) return "expected hetcclInvalidUsage, got " + std::to_string(seen) + ": " + message;
    if (message.find("ranks disagree") == std::string::npos || message.find("rank 1") == std::string::npos)
      return "the message does not name the mismatch: " + message;
    return std::string();
  });
  EXPECT_EQ(failures, "");
}

// A transfer the transport fails (MPI after a peer's connection dropped) is the peer's loss:
// the caller gets hetcclRemoteError, as for a failure heard from a peer, not a system error.
TEST(CoreThreads, ATransferLostWithAPeerIsARemoteError) {
  EXPECT_EQ(resultCode(Code::PeerLost), hetcclRemoteError);
  EXPECT_EQ(resultCode(Code::RemoteError), hetcclRemoteError);
  EXPECT_EQ(resultCode(Code::SystemError), hetcclSystemError);
  EXPECT_STREQ(hetcclGetErrorString(resultCode(Code::PeerLost)), "remote process exited or there was a network error");
}

TEST(CoreThreads, PeerThatLeavesFailsTheOthersWithRemoteError) {
  const hetcclConfig_t config = configWith(30);
  std::atomic<int> launched{0};
  const std::string failures = runOnCommunicators(3, &config, [&](ThreadRank& self) {
    const int rank = self.rank;
    hetcclComm_t& comm = self.comm;
    if (rank == 2) {
      // Leaves while the others' messages to it wait: they must learn it, not time out.
      // (At most a few seconds: were the calls to block, they would fail by timeout instead.)
      for (int waited = 0; launched.load() < 2 && waited < 1000; ++waited)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      const hetcclResult_t destroyed = hetcclCommDestroy(comm);
      comm = nullptr;
      return destroyed == hetcclSuccess ? std::string() : std::string("destroy failed");
    }
    const size_t count = 70000;
    void* buffer = nullptr;
    std::string failed = toDevice(std::vector<int>(count, 1), &buffer);
    if (!failed.empty()) return failed;
    hetcclResult_t seen = hetcclAllReduce(buffer, buffer, count, hetcclInt32, hetcclSum, comm, self.stream);
    ++launched;  // returned: queued on the progress thread, or failed on this one
    if (seen == hetcclSuccess) {
      (void)hetcclStreamSynchronize(self.stream);
      (void)hetcclCommGetAsyncError(comm, &seen);
    }
    const std::string message = hetcclGetLastError(comm);
    (void)hetcclMemFree(buffer);
    if (seen != hetcclRemoteError) return "expected hetcclRemoteError, got " + std::to_string(seen) + ": " + message;
    return std::string();
  });
  EXPECT_EQ(failures, "");
}

TEST(CoreThreads, WatchdogAbortEndsAnOperationAndTellsThePeer) {
  const hetcclConfig_t config = configWith(30);
  std::atomic<bool> aborted{false};
  const std::string failures = runOnCommunicators(2, &config, [&](ThreadRank& self) {
    const int rank = self.rank;
    hetcclComm_t& comm = self.comm;
    const size_t count = 70000;
    void* buffer = nullptr;
    std::string failed = toDevice(std::vector<int>(count, 1), &buffer);
    if (!failed.empty()) return failed;
    if (rank == 0) {
      // Rank 1 never joins this one: it would wait forever, until a watchdog aborts it.
      hetcclResult_t result = hetcclAllReduce(buffer, buffer, count, hetcclInt32, hetcclSum, comm, self.stream);
      std::thread watchdog([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (hetcclCommAbort(comm) != hetcclSuccess) failed = "abort failed";
      });
      watchdog.join();
      comm = nullptr;
      (void)hetcclStreamSynchronize(self.stream);  // released, not waiting forever
      aborted = true;
      if (result != hetcclSuccess && result != hetcclInvalidUsage) failed = "the call itself failed";
    } else {
      while (!aborted.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      // The next operation learns that rank 0 is gone, and why.
      const hetcclResult_t seen = allReduceOutcome(buffer, count, comm, self.stream);
      const std::string message = hetcclGetLastError(comm);
      if (seen != hetcclRemoteError || message.find("aborted") == std::string::npos)
        failed = "expected a remote error naming the abort: " + message;
    }
    (void)hetcclMemFree(buffer);
    return failed;
  });
  EXPECT_EQ(failures, "");
}

TEST(CoreThreads, SplitFormsEachPartInKeyOrder) {
  const hetcclConfig_t config = configWith(30);
  const std::string failures = runOnCommunicators(5, &config, [&](ThreadRank& self) {
    const int rank = self.rank;
    hetcclComm_t& comm = self.comm;
    // Ranks 0-3 by parity, ranked in reverse; rank 4 joins none.
    const int color = rank == 4 ? HETCCL_SPLIT_NOCOLOR : rank % 2;
    hetcclComm_t part = nullptr;
    if (hetcclCommSplit(comm, color, -rank, &part, nullptr) != hetcclSuccess)
      return std::string("split: ") + hetcclGetLastError(comm);
    std::string failed;
    if (rank == 4) {
      if (part) failed = "a part for NOCOLOR";
    } else {
      int partRank = -1, partSize = 0;
      (void)hetcclCommUserRank(part, &partRank);
      (void)hetcclCommCount(part, &partSize);
      if (partSize != 2 || partRank != (rank < 2 ? 1 : 0))
        failed = "part rank " + std::to_string(partRank) + " of " + std::to_string(partSize);
      if (failed.empty()) failed = allReduceChecked(part, self.stream, 1000);
      if (hetcclCommDestroy(part) != hetcclSuccess) failed += " (destroying the part failed)";
    }
    if (failed.empty()) failed = allReduceChecked(self.comm, self.stream, 1000);  // the parent still works
    return failed;
  });
  EXPECT_EQ(failures, "");
}

}  // namespace
}  // namespace hetccl
