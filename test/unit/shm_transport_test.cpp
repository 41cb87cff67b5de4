// The shared-memory rings' transport (transport/shm_transport.h) between two ranks that are
// objects of one process, their inboxes on the heap: MPI's matching rules (per tag, in order;
// messages of other tags set aside), fragments and a ring that wraps, truncation, withdrawn
// transfers, the wire for what the rings do not carry, and two threads exchanging at once.
#include "transport/shm_transport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "transport/loopback_transport.h"
#include "transport/shm_channel.h"

namespace hetccl {
namespace {

// Two ranks, each with a one-channel inbox of `slots` slots, over a loopback wire.
struct RingPair {
  explicit RingPair(uint32_t slots = 4, size_t maxBytes = 64 * 1024) {
    const size_t bytes = shm::inboxBytes(1, slots);
    for (void*& inbox : inboxes) {
      inbox = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      std::memset(inbox, 0, bytes);
    }
    auto fabric = std::make_shared<LoopbackFabric>(2);
    for (int rank = 0; rank < 2; ++rank) {
      std::vector<ShmPeerChannels> channels(2);
      ShmPeerChannels& peer = channels[static_cast<size_t>(1 - rank)];
      peer.inbound = shm::channelAt(inboxes[rank], 0, slots);
      peer.outbound = shm::channelAt(inboxes[1 - rank], 0, slots);
      peer.inboundSlots = peer.outboundSlots = slots;
      ranks[rank] = std::make_unique<ShmTransport>(std::make_unique<LoopbackTransport>(fabric, rank),
                                                   std::move(channels), maxBytes, nullptr);
    }
  }
  ~RingPair() {
    for (auto& rank : ranks) rank.reset();
    for (void* inbox : inboxes) std::free(inbox);
  }
  ShmTransport& operator[](int rank) { return *ranks[rank]; }
  void* inboxes[2] = {};
  std::unique_ptr<ShmTransport> ranks[2];
};

std::vector<char> pattern(size_t bytes, int seed) {
  std::vector<char> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed) * 7) & 0xff);
  return data;
}

// Polls every transfer of `all` in turn until each has completed (a send larger than the ring
// needs its receiver polled in between, as two ranks' executors would).
void completeAll(std::vector<Transfer*> all) {
  for (int round = 0; round < 1000000 && !all.empty(); ++round)
    for (size_t i = 0; i < all.size();) {
      bool done = false;
      Status status = all[i]->test(&done);
      ASSERT_TRUE(status.isOk()) << status.message();
      if (done)
        all.erase(all.begin() + static_cast<long>(i));
      else
        ++i;
    }
  ASSERT_TRUE(all.empty()) << all.size() << " transfers never completed";
}

TEST(ShmTransport, MessagesOfEverySizeArriveWhole) {
  RingPair pair;  // 4 slots: anything over 4 slots' payload wraps the ring
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{8}, shm::kSlotPayloadBytes, shm::kSlotPayloadBytes + 1,
                       4 * shm::kSlotPayloadBytes + 3, size_t{64 * 1024}}) {
    SCOPED_TRACE(bytes);
    std::vector<char> sent = pattern(bytes, 1), received(bytes + 1, 'x');
    std::unique_ptr<Transfer> send, recv;
    ASSERT_TRUE(pair[0].postSend(sent.data(), bytes, 1, 7, &send).isOk());
    ASSERT_TRUE(pair[1].postRecv(received.data(), bytes, 0, 7, &recv).isOk());
    completeAll({send.get(), recv.get()});
    EXPECT_TRUE(std::equal(sent.begin(), sent.end(), received.begin()));
    EXPECT_EQ('x', received[bytes]) << "wrote past the receive";
    EXPECT_TRUE(pair.ranks[0]->usesRings(1, bytes));
  }
}

TEST(ShmTransport, ASmallSendIsCompleteWhenPosted) {
  RingPair pair;
  std::vector<char> sent = pattern(64, 2);
  std::unique_ptr<Transfer> send;
  ASSERT_TRUE(pair[0].postSend(sent.data(), sent.size(), 1, 0, &send).isOk());
  bool done = false;
  ASSERT_TRUE(send->test(&done).isOk());
  EXPECT_TRUE(done) << "an eager send must not wait for its receive";
}

TEST(ShmTransport, ReceivesMatchByTagInPostingOrder) {
  RingPair pair(8);
  std::vector<char> a = pattern(100, 1), b = pattern(100, 2), c = pattern(20000, 3);
  std::unique_ptr<Transfer> sa, sb, sc;
  // Tag 1 twice (a then c, c in fragments), tag 2 between them.
  ASSERT_TRUE(pair[0].postSend(a.data(), a.size(), 1, 1, &sa).isOk());
  ASSERT_TRUE(pair[0].postSend(b.data(), b.size(), 1, 2, &sb).isOk());
  ASSERT_TRUE(pair[0].postSend(c.data(), c.size(), 1, 1, &sc).isOk());
  completeAll({sa.get(), sb.get()});
  // Tag 2 first: a, already arrived, is set aside for the tag-1 receive posted after.
  std::vector<char> rb(100), ra(100), rc(20000);
  std::unique_ptr<Transfer> tb, ta, tc;
  ASSERT_TRUE(pair[1].postRecv(rb.data(), rb.size(), 0, 2, &tb).isOk());
  ASSERT_TRUE(pair[1].postRecv(ra.data(), ra.size(), 0, 1, &ta).isOk());
  ASSERT_TRUE(pair[1].postRecv(rc.data(), rc.size(), 0, 1, &tc).isOk());
  completeAll({tb.get(), ta.get(), tc.get(), sc.get()});
  EXPECT_EQ(a, ra);
  EXPECT_EQ(b, rb);
  EXPECT_EQ(c, rc);
}

TEST(ShmTransport, AMessageSetAsideWhileArrivingGoesToTheReceivePostedMeanwhile) {
  RingPair pair(2);  // a 2-slot ring: the message arrives over several polls
  std::vector<char> first = pattern(10, 1), big = pattern(5 * shm::kSlotPayloadBytes, 2);
  std::unique_ptr<Transfer> s1, s2, r1, r2;
  ASSERT_TRUE(pair[0].postSend(big.data(), big.size(), 1, 9, &s2).isOk());
  std::vector<char> probe(1);
  std::unique_ptr<Transfer> other;
  // A receive of another tag drains the first fragments aside.
  ASSERT_TRUE(pair[1].postRecv(probe.data(), 1, 0, 3, &other).isOk());
  std::vector<char> got(big.size());
  ASSERT_TRUE(pair[1].postRecv(got.data(), got.size(), 0, 9, &r2).isOk());
  // Claimed while arriving: the sender is no longer waiting for a receive.
  EXPECT_TRUE(pair[1].peersWithUnreceivedMessages().empty());
  completeAll({s2.get(), r2.get()});
  EXPECT_EQ(big, got);
  ASSERT_TRUE(pair[0].postSend(first.data(), 1, 1, 3, &s1).isOk());
  completeAll({s1.get(), other.get()});
  EXPECT_EQ(first[0], probe[0]);
}

// A message is taken out of the ring only for a receive posted from its sender: messages with
// none stay where they are (a root that runs ahead of its receiver costs no copies aside), so
// a sender that fills the ring waits until a receive comes; that receive sets aside the
// messages ahead of its own, in order, and frees their slots.
TEST(ShmTransport, MessagesWithNoReceivePostedWaitInTheRing) {
  RingPair pair(4);
  std::vector<std::vector<char>> sent;
  std::vector<std::unique_ptr<Transfer>> sends(5);
  for (int m = 0; m < 5; ++m) {
    sent.push_back(pattern(40, m));
    ASSERT_TRUE(pair[0].postSend(sent[m].data(), 40, 1, m + 1, &sends[m]).isOk());
  }
  auto sendDone = [&](int m) {
    bool done = false;
    EXPECT_TRUE(sends[m]->test(&done).isOk());
    return done;
  };
  for (int m = 0; m < 4; ++m) EXPECT_TRUE(sendDone(m)) << "message " << m << " did not fit an empty ring";
  // The receiver's engine polls (and names the sender) but has no receive: nothing moves.
  EXPECT_EQ(std::vector<int>{0}, pair[1].peersWithUnreceivedMessages());
  EXPECT_FALSE(sendDone(4)) << "the receiver emptied a ring it had no receive for";
  // The third message's receive sets the first two aside and frees three slots.
  std::vector<std::vector<char>> received(5, std::vector<char>(40));
  std::vector<std::unique_ptr<Transfer>> receives(5);
  ASSERT_TRUE(pair[1].postRecv(received[2].data(), 40, 0, 3, &receives[2]).isOk());
  EXPECT_TRUE(sendDone(4));
  for (int m : {0, 1, 3, 4}) ASSERT_TRUE(pair[1].postRecv(received[m].data(), 40, 0, m + 1, &receives[m]).isOk());
  std::vector<Transfer*> all;
  for (auto& receive : receives) all.push_back(receive.get());
  completeAll(all);
  EXPECT_EQ(sent, received);
}

TEST(ShmTransport, AShortReceiveFailsAndTheChannelStaysUsable) {
  RingPair pair;
  std::vector<char> sent = pattern(16, 1), received(8);
  std::unique_ptr<Transfer> send, recv;
  ASSERT_TRUE(pair[0].postSend(sent.data(), 16, 1, 4, &send).isOk());
  ASSERT_TRUE(pair[1].postRecv(received.data(), 8, 0, 4, &recv).isOk());
  bool done = false;
  Status status = recv->test(&done);
  EXPECT_FALSE(status.isOk());
  EXPECT_NE(std::string::npos, status.message().find("truncated")) << status.message();
  completeAll({send.get()});
  // A longer receive takes a shorter message, as in MPI; and the ring goes on.
  std::vector<char> next = pattern(8, 2), into(32, 'y');
  std::unique_ptr<Transfer> s2, r2;
  ASSERT_TRUE(pair[0].postSend(next.data(), 8, 1, 4, &s2).isOk());
  ASSERT_TRUE(pair[1].postRecv(into.data(), 32, 0, 4, &r2).isOk());
  completeAll({s2.get(), r2.get()});
  EXPECT_EQ(0, std::memcmp(next.data(), into.data(), 8));
}

TEST(ShmTransport, AWithdrawnReceiveLeavesTheMessageToTheNextOne) {
  RingPair pair;
  std::vector<char> received(8, 0), sent = pattern(8, 5);
  std::unique_ptr<Transfer> abandoned, next, send;
  ASSERT_TRUE(pair[1].postRecv(received.data(), 8, 0, 6, &abandoned).isOk());
  EXPECT_TRUE(abandoned->withdraw());
  abandoned.reset();
  ASSERT_TRUE(pair[1].postRecv(received.data(), 8, 0, 6, &next).isOk());
  ASSERT_TRUE(pair[0].postSend(sent.data(), 8, 1, 6, &send).isOk());
  completeAll({send.get(), next.get()});
  EXPECT_EQ(sent, received);
}

TEST(ShmTransport, AHalfWrittenSendThatGoesAwayIsStillDeliveredWhole) {
  RingPair pair(2);
  std::vector<char> sent = pattern(6 * shm::kSlotPayloadBytes, 4), received(sent.size());
  std::unique_ptr<Transfer> send, recv;
  {
    std::vector<char> buffer = sent;  // freed right after the transfer goes
    ASSERT_TRUE(pair[0].postSend(buffer.data(), buffer.size(), 1, 2, &send).isOk());
    EXPECT_TRUE(send->withdraw()) << "the rest is the engine's to send: the buffer is free";
    send.reset();
    std::fill(buffer.begin(), buffer.end(), 0);
  }
  ASSERT_TRUE(pair[1].postRecv(received.data(), received.size(), 0, 2, &recv).isOk());
  // Only the receiver polls: the sender's engine is driven by its own polls, so poll it with a
  // zero-byte exchange on another tag.
  std::unique_ptr<Transfer> kick;
  std::vector<char> none(1);
  for (int round = 0; round < 1000; ++round) {
    bool done = false;
    ASSERT_TRUE(recv->test(&done).isOk());
    if (done) break;
    ASSERT_TRUE(pair[0].postSend(none.data(), 0, 1, 99, &kick).isOk());
  }
  bool done = false;
  ASSERT_TRUE(recv->test(&done).isOk());
  ASSERT_TRUE(done);
  EXPECT_EQ(sent, received);
}

TEST(ShmTransport, LargerMessagesTakeTheWire) {
  RingPair pair(4, 1024);
  EXPECT_TRUE(pair[0].usesRings(1, 1024));
  EXPECT_FALSE(pair[0].usesRings(1, 1025));
  std::vector<char> sent = pattern(5000, 3), received(5000);
  std::unique_ptr<Transfer> send, recv;
  ASSERT_TRUE(pair[0].postSend(sent.data(), sent.size(), 1, 1, &send).isOk());
  // The loopback wire's sends are synchronous: not complete before their receive is posted,
  // where a ring's send would be.
  bool done = true;
  ASSERT_TRUE(send->test(&done).isOk());
  EXPECT_FALSE(done) << "a 5000-byte send went through the rings";
  ASSERT_TRUE(pair[1].postRecv(received.data(), received.size(), 0, 1, &recv).isOk());
  completeAll({send.get(), recv.get()});
  EXPECT_EQ(sent, received);
}

TEST(ShmTransport, UnreceivedMessagesNameTheirSender) {
  RingPair pair;
  EXPECT_TRUE(pair[1].peersWithUnreceivedMessages().empty());
  std::vector<char> sent = pattern(8, 1);
  std::unique_ptr<Transfer> send;
  ASSERT_TRUE(pair[0].postSend(sent.data(), 8, 1, 1, &send).isOk());
  EXPECT_EQ(std::vector<int>{0}, pair[1].peersWithUnreceivedMessages());
  EXPECT_TRUE(pair[0].peersWithUnreceivedMessages().empty());
}

TEST(ShmTransport, TwoThreadsExchangeAtOnce) {
  RingPair pair(4);
  constexpr int kMessages = 2000;
  auto run = [&](int rank) {
    std::mt19937 random(42);  // both ranks draw the same sizes
    std::vector<char> out, in;
    std::unique_ptr<Transfer> send, recv;
    for (int m = 0; m < kMessages; ++m) {
      const size_t bytes = random() % 3 == 0 ? random() % (3 * shm::kSlotPayloadBytes) : random() % 64;
      const int tag = static_cast<int>(random() % 3);
      out = pattern(bytes, m * 2 + rank);
      in.assign(bytes, 0);
      ASSERT_TRUE(pair[rank].postRecv(in.data(), bytes, 1 - rank, tag, &recv).isOk());
      ASSERT_TRUE(pair[rank].postSend(out.data(), bytes, 1 - rank, tag, &send).isOk());
      for (bool sendDone = false, recvDone = false; !sendDone || !recvDone;) {
        if (!sendDone) {
          ASSERT_TRUE(send->test(&sendDone).isOk());
        }
        if (!recvDone) {
          ASSERT_TRUE(recv->test(&recvDone).isOk());
        }
      }
      ASSERT_EQ(pattern(bytes, m * 2 + 1 - rank), in) << "message " << m;
    }
  };
  std::thread other(run, 1);
  run(0);
  other.join();
}

}  // namespace
}  // namespace hetccl
