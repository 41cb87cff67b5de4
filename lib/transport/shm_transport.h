// Small messages between ranks of one host through shared-memory rings (shm_channel.h), every
// other message through the wire below (MPI).
//
// Why: a few-byte all-reduce on two ranks is one exchange, and through MPI's non-blocking
// point-to-point calls under MPI_THREAD_MULTIPLE that exchange alone cost more than Open MPI's
// whole MPI_Allreduce (docs/PERFORMANCE.md, "The smallest sizes").  A ring in shared memory
// is a copy and a release store; the peer sees it on its next poll.
//
// Semantics are MPI's, so plans cannot tell: a receive matches the oldest message of its
// (peer, tag) not yet received; messages of other tags ahead of it in the ring are set aside
// (copied out, so a receive never waits behind a message whose receive is not yet posted);
// messages with no receive from their sender posted at all stay in the ring, like MPI's eager
// messages in its buffers; a send completes once its bytes are in the ring (the buffer may be
// reused), which is at once while the ring has room; a receive shorter than its message fails
// (truncation), a longer one takes the message.  Which path a message takes depends only on
// its size and peer, which both ends agree on, so every message is matched on the path it was
// sent on.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "transport/transport.h"

namespace hetccl {

namespace shm {
struct ChannelHead;
}

// One peer's two channels: the one it sends to this rank on (in this rank's inbox) and the one
// this rank sends to it on (in its inbox).  Both null: the peer is reached through the wire.
struct ShmPeerChannels {
  shm::ChannelHead* inbound = nullptr;
  shm::ChannelHead* outbound = nullptr;
  uint32_t inboundSlots = 0, outboundSlots = 0;
};

class ShmEngine;

class ShmTransport : public Transport {
 public:
  // `channels`: one entry per rank of the wire; `mappings` keeps the shared memory mapped while
  // the transport or any of its transfers lives.
  ShmTransport(std::unique_ptr<Transport> wire, std::vector<ShmPeerChannels> channels, size_t maxBytes,
               std::shared_ptr<void> mappings);
  ~ShmTransport() override;
  int rank() const override { return wire_->rank(); }
  int size() const override { return wire_->size(); }
  int maxTag() const override { return wire_->maxTag(); }
  Status postSend(const void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  Status postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  Status waitForAny(Transfer* const* transfers, size_t count, bool* blocked) override;
  std::vector<int> peersWithUnreceivedMessages() override;

  // Whether a message of `bytes` to or from `peer` takes the rings.
  bool usesRings(int peer, size_t bytes) const;
  int peersOnRings() const;

 private:
  Status post(bool isSend, char* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer);
  std::unique_ptr<Transport> wire_;
  std::shared_ptr<ShmEngine> engine_;
  std::vector<bool> ringPeer_;
  size_t maxBytes_;
};

}  // namespace hetccl
