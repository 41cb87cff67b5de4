// Link pacing: a transport decorator that makes links as slow as an emulated cluster's.  Each
// transfer to a peer of link class c (same island / across islands) leaves this rank's egress
// for class c no earlier than the previous one has left (bandwidth is serial), and arrives `latency +
// bytes / bandwidth` after leaving.  The sender puts the modelled arrival time in a small
// header message ahead of the data; the receiver's transfer completes no earlier than that.
// The real copy overlaps the modelled time, so a transfer costs max(real, modelled) — the
// emulated links must be slower than the machine for the model to hold.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "transport/link_pacing.h"
#include "transport/transport.h"

namespace hetccl {

class PacedTransport : public Transport {
 public:
  // linkClassOfPeer[peer] indexes `classes`.
  PacedTransport(std::unique_ptr<Transport> inner, std::vector<int> linkClassOfPeer, std::vector<LinkPacing> classes);
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  int maxTag() const override { return inner_->maxTag(); }
  Status postSend(const void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  Status postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  std::vector<int> peersWithUnreceivedMessages() override { return inner_->peersWithUnreceivedMessages(); }

 private:
  std::unique_ptr<Transport> inner_;
  std::vector<int> linkClassOfPeer_;
  std::vector<LinkPacing> classes_;
  std::vector<double> egressFreeAt_;  // per class, seconds on the shared monotonic clock
};

}  // namespace hetccl
