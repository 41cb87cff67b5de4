// Host-staged transfers, for device memory that the MPI library cannot read (an MPI without
// CUDA/ROCm support): a send copies the device data into a pinned host bounce buffer on a
// stream of its own, then hands the host buffer to MPI; a receive lands in a bounce buffer
// and is copied to the device.  Bounce slots are pooled (K allocated up front, more when
// that many chunks are in flight) so copies and network traffic of different chunks overlap.
// Messages larger than a slot travel as several slot-sized pieces, posted to MPI in order
// (MPI matches messages in posting order).  A sending piece reaches MPI only when its copy
// to the host is done, but pieces to one peer on one tag still go out in order because the
// copy stream completes them in order.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "device/device.h"
#include "transport/transport.h"

namespace hetccl {

class StagedTransport : public Transport {
 public:
  StagedTransport(std::unique_ptr<Transport> inner, Device& device, size_t slotBytes, int slots);
  ~StagedTransport() override;
  Status initialize();  // allocates the pinned slots and the copy stream

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  int maxTag() const override { return inner_->maxTag(); }
  Status postSend(const void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  Status postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  std::vector<int> peersWithUnreceivedMessages() override { return inner_->peersWithUnreceivedMessages(); }

  // Advances every staged transfer; called by each transfer's test().
  Status progress();
  struct Piece;

 private:
  Status advance(Piece& piece, bool mayPostSend, bool* finished);
  std::unique_ptr<Transport> inner_;
  Device& device_;
  size_t slotBytes_;
  int slotCount_;
  StreamHandle copyStream_ = nullptr;
  std::vector<char*> freeSlots_;
  std::vector<char*> allSlots_;
  std::deque<std::shared_ptr<Piece>> pieces_;  // in posting order
};

}  // namespace hetccl
