// The loopback transport's matching rules (MPI's: posting order per source, destination and
// tag; synchronous sends; truncation is an error), the staged and pacing decorators over it,
// and the thread-per-rank harness's handling of failed and deadlocked jobs.
#include "transport/loopback_transport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "thread_ranks.h"
#include "transport/paced_transport.h"

namespace hetccl {
namespace {

bool isDone(Transfer& transfer) {
  bool done = false;
  Status status = transfer.test(&done);
  EXPECT_TRUE(status.isOk()) << status.message();
  return done;
}

// Polls until the transfer completes or fails.
Status waitFor(Transfer& transfer) {
  for (;;) {
    bool done = false;
    HETCCL_TRY(transfer.test(&done));
    if (done) return Status::ok();
    std::this_thread::yield();
  }
}

struct TwoRanks {
  std::shared_ptr<LoopbackFabric> fabric = std::make_shared<LoopbackFabric>(2);
  LoopbackTransport zero{fabric, 0}, one{fabric, 1};
};

TEST(LoopbackTransport, MatchesInPostingOrderPerSourceDestinationAndTag) {
  TwoRanks ranks;
  const char a[] = "first", b[] = "second", c[] = "other tag";
  std::unique_ptr<Transfer> sendA, sendB, sendC, recvA, recvB, recvC;
  ASSERT_TRUE(ranks.zero.postSend(a, sizeof a, 1, 5, &sendA).isOk());
  ASSERT_TRUE(ranks.zero.postSend(b, sizeof b, 1, 5, &sendB).isOk());
  ASSERT_TRUE(ranks.zero.postSend(c, sizeof c, 1, 6, &sendC).isOk());
  char gotC[16] = {}, gotA[16] = {}, gotB[16] = {};
  ASSERT_TRUE(ranks.one.postRecv(gotC, sizeof gotC, 0, 6, &recvC).isOk());
  EXPECT_TRUE(isDone(*recvC));
  EXPECT_TRUE(isDone(*sendC));
  EXPECT_FALSE(isDone(*sendA));  // synchronous: nobody has taken it yet
  ASSERT_TRUE(ranks.one.postRecv(gotA, sizeof gotA, 0, 5, &recvA).isOk());
  ASSERT_TRUE(ranks.one.postRecv(gotB, sizeof gotB, 0, 5, &recvB).isOk());
  for (Transfer* t : {sendA.get(), sendB.get(), recvA.get(), recvB.get()}) EXPECT_TRUE(isDone(*t));
  EXPECT_STREQ(gotA, a);
  EXPECT_STREQ(gotB, b);
  EXPECT_STREQ(gotC, c);
}

TEST(LoopbackTransport, AReceivePostedFirstCompletesWithItsSend) {
  TwoRanks ranks;
  int value = 0;
  const int sent = 42;
  std::unique_ptr<Transfer> receive, send;
  ASSERT_TRUE(ranks.one.postRecv(&value, sizeof value, 0, 0, &receive).isOk());
  EXPECT_FALSE(isDone(*receive));
  ASSERT_TRUE(ranks.zero.postSend(&sent, sizeof sent, 1, 0, &send).isOk());
  EXPECT_TRUE(isDone(*receive));
  EXPECT_TRUE(isDone(*send));
  EXPECT_EQ(value, 42);
}

TEST(LoopbackTransport, ASelfSendAndAnEmptyMessageMatch) {
  auto fabric = std::make_shared<LoopbackFabric>(1);
  LoopbackTransport only(fabric, 0);
  std::unique_ptr<Transfer> send, receive, emptySend, emptyReceive;
  const double sent = 2.5;
  double value = 0;
  ASSERT_TRUE(only.postSend(nullptr, 0, 0, 3, &emptySend).isOk());
  ASSERT_TRUE(only.postSend(&sent, sizeof sent, 0, 3, &send).isOk());
  ASSERT_TRUE(only.postRecv(nullptr, 0, 0, 3, &emptyReceive).isOk());
  ASSERT_TRUE(only.postRecv(&value, sizeof value, 0, 3, &receive).isOk());
  for (Transfer* t : {send.get(), receive.get(), emptySend.get(), emptyReceive.get()}) EXPECT_TRUE(isDone(*t));
  EXPECT_EQ(value, 2.5);
}

TEST(LoopbackTransport, AShorterReceiveIsAnErrorALongerOneTakesTheMessage) {
  TwoRanks ranks;
  const char message[8] = "1234567";
  char small[4] = {}, large[16] = {};
  std::unique_ptr<Transfer> send1, send2, truncated, whole;
  ASSERT_TRUE(ranks.zero.postSend(message, sizeof message, 1, 0, &send1).isOk());
  ASSERT_TRUE(ranks.one.postRecv(small, sizeof small, 0, 0, &truncated).isOk());
  bool done = false;
  Status status = truncated->test(&done);
  EXPECT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("truncated"), std::string::npos) << status.message();
  EXPECT_TRUE(isDone(*send1));  // as in MPI, the sender is not told
  ASSERT_TRUE(ranks.zero.postSend(message, sizeof message, 1, 0, &send2).isOk());
  ASSERT_TRUE(ranks.one.postRecv(large, sizeof large, 0, 0, &whole).isOk());
  EXPECT_TRUE(isDone(*whole));
  EXPECT_STREQ(large, message);
}

TEST(LoopbackTransport, AnAbandonedTransferIsNeverMatched) {
  TwoRanks ranks;
  int first = 0, second = 0;
  const int sent = 7;
  std::unique_ptr<Transfer> abandoned, receive, send;
  ASSERT_TRUE(ranks.one.postRecv(&first, sizeof first, 0, 0, &abandoned).isOk());
  abandoned.reset();
  ASSERT_TRUE(ranks.one.postRecv(&second, sizeof second, 0, 0, &receive).isOk());
  ASSERT_TRUE(ranks.zero.postSend(&sent, sizeof sent, 1, 0, &send).isOk());
  EXPECT_TRUE(isDone(*receive));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 7);
}

TEST(LoopbackTransport, AbortFailsWhatIsPendingWithTheReason) {
  TwoRanks ranks;
  int value = 0;
  std::unique_ptr<Transfer> receive;
  ASSERT_TRUE(ranks.one.postRecv(&value, sizeof value, 0, 0, &receive).isOk());
  ranks.fabric->abort("rank 0 gave up");
  ranks.fabric->abort("a later reason");
  bool done = false;
  Status status = receive->test(&done);
  EXPECT_EQ(status.code(), Code::RemoteError);
  EXPECT_NE(status.message().find("rank 0 gave up"), std::string::npos) << status.message();
}

TEST(LoopbackTransport, RejectsPeersAndTagsOutOfRange) {
  TwoRanks ranks;
  int value = 0;
  std::unique_ptr<Transfer> transfer;
  EXPECT_EQ(ranks.zero.postSend(&value, sizeof value, 2, 0, &transfer).code(), Code::InvalidArgument);
  EXPECT_EQ(ranks.zero.postRecv(&value, sizeof value, -1, 0, &transfer).code(), Code::InvalidArgument);
  EXPECT_EQ(ranks.zero.postSend(&value, sizeof value, 1, ranks.zero.maxTag() + 1, &transfer).code(),
            Code::InvalidArgument);
  EXPECT_EQ(ranks.zero.postSend(&value, sizeof value, 1, -1, &transfer).code(), Code::InvalidArgument);
}

// Many messages on the same tag from several threads at once, through each link stack: the
// decorators keep posting order (the staged one across its pieces, the pacing one across its
// header messages), and the payload arrives intact.
TEST(LoopbackTransport, StacksKeepOrderBetweenThreads) {
  const std::vector<LinkStack>& stacks = allLinkStacks();
  for (const LinkStack& links : stacks) {
    ThreadJob job;
    job.nranks = 3;
    job.links = links;
    job.links.stagingSlotBytes = 8;
    Status status = runOnThreadRanks(job, [](RankContext& context) {
      // Every rank sends message k (k bytes long, 0 included) to every other rank, then
      // receives all of its own; message k's bytes say who sent it and which it is.
      const int messages = 40;
      auto byteOf = [](int source, int k, size_t i) { return static_cast<char>(source * 50 + k + i); };
      RankMemory memory(context);
      std::vector<std::unique_ptr<Transfer>> transfers;
      std::vector<std::pair<char*, int>> received;  // buffer, sender * messages + k
      for (int peer = 0; peer < context.nranks; ++peer) {
        if (peer == context.rank) continue;
        for (int k = 0; k < messages; ++k) {
          char* out = nullptr;
          HETCCL_TRY(memory.allocate(k, &out));
          for (int i = 0; i < k; ++i) out[i] = byteOf(context.rank, k, i);
          transfers.emplace_back();
          HETCCL_TRY(context.transport.postSend(out, k, peer, 9, &transfers.back()));
        }
      }
      for (int peer = 0; peer < context.nranks; ++peer) {
        if (peer == context.rank) continue;
        for (int k = 0; k < messages; ++k) {
          char* in = nullptr;
          HETCCL_TRY(memory.allocate(k, &in));
          transfers.emplace_back();
          HETCCL_TRY(context.transport.postRecv(in, k, peer, 9, &transfers.back()));
          received.emplace_back(in, peer * messages + k);
        }
      }
      for (auto& transfer : transfers) HETCCL_TRY(waitFor(*transfer));
      for (auto [buffer, id] : received)
        for (int i = 0; i < id % messages; ++i)
          if (buffer[i] != byteOf(id / messages, id % messages, i))
            return HETCCL_STATUS(Code::InternalError, "message %d of rank %d: byte %d wrong", id % messages,
                                 id / messages, i);
      return Status::ok();
    });
    ASSERT_TRUE(status.isOk()) << job.links.describe() << "\n" << status.message();
  }
}

// A transfer over a paced link completes no earlier than the link model says: departure after
// the bytes before it, bytes / bandwidth on the wire, then the latency.
TEST(PacedTransport, ATransferTakesAtLeastTheModelledTime) {
  ThreadJob job;
  job.nranks = 2;
  job.links.paced = true;
  job.links.intraIsland = LinkPacing{true, 1e6, 2e-3};  // 1 MB/s, 2 ms
  // Rank 0 sends no earlier than this, so every modelled time is a lower bound from here.
  const double start = monotonicSeconds();
  Status status = runOnThreadRanks(job, [start](RankContext& context) {
    RankMemory memory(context);
    const size_t bytes = 3000;  // 3 ms on the wire
    char* buffer = nullptr;
    HETCCL_TRY(memory.allocate(2 * bytes, &buffer));
    std::unique_ptr<Transfer> first, second;
    if (context.rank == 0) {
      HETCCL_TRY(context.transport.postSend(buffer, bytes, 1, 0, &first));
      HETCCL_TRY(context.transport.postSend(buffer + bytes, bytes, 1, 0, &second));
    } else {
      HETCCL_TRY(context.transport.postRecv(buffer, bytes, 0, 0, &first));
      HETCCL_TRY(context.transport.postRecv(buffer + bytes, bytes, 0, 0, &second));
    }
    HETCCL_TRY(waitFor(*first));
    HETCCL_TRY(waitFor(*second));
    // The second message leaves once the first has (6 ms); the receiver also waits out the
    // latency (8 ms).
    const double elapsed = monotonicSeconds() - start;
    const double modelled = context.rank == 0 ? 6e-3 : 8e-3;
    if (elapsed < modelled)
      return HETCCL_STATUS(Code::InternalError, "rank %d finished after %.2f ms, the model says %.2f ms", context.rank,
                           elapsed * 1e3, modelled * 1e3);
    return Status::ok();
  });
  ASSERT_TRUE(status.isOk()) << status.message();
}

TEST(ThreadRanks, AFailingRankStopsTheRanksWaitingForIt) {
  ThreadJob job;
  job.nranks = 4;
  Status status = runOnThreadRanks(job, [](RankContext& context) {
    if (context.rank == 2) return Status(Code::InvalidUsage, "rank 2's own failure");
    int value = 0;
    std::unique_ptr<Transfer> receive;
    HETCCL_TRY(context.transport.postRecv(&value, sizeof value, 2, 0, &receive));
    return waitFor(*receive);
  });
  EXPECT_EQ(status.code(), Code::InvalidUsage);
  EXPECT_NE(status.message().find("rank 2: rank 2's own failure"), std::string::npos) << status.message();
}

TEST(ThreadRanks, ADeadlockEndsAtTheTimeLimit) {
  ThreadJob job;
  job.nranks = 3;
  job.timeLimit = std::chrono::milliseconds(200);
  Status status = runOnThreadRanks(job, [](RankContext& context) {
    int value = 0;
    std::unique_ptr<Transfer> receive;  // everybody receives, nobody sends
    HETCCL_TRY(context.transport.postRecv(&value, sizeof value, (context.rank + 1) % 3, 0, &receive));
    return waitFor(*receive);
  });
  EXPECT_EQ(status.code(), Code::Timeout);
  EXPECT_NE(status.message().find("deadlock"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace hetccl
