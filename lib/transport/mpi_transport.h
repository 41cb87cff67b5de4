// Point-to-point transfers over MPI non-blocking calls on a communicator that belongs to
// hetccl alone (a duplicate of the user's), so user messages can never match ours.
// MPI counts are int: a message above `maxMessageBytes` (at most INT_MAX) is split into
// pieces posted in order on the same tag; MPI's non-overtaking rule keeps them matched in
// order, and both ends split identically because they agree on the byte count.
#pragma once

#include <mpi.h>

#include "transport/transport.h"

namespace hetccl {

// The largest piece one MPI call carries by default: 1 GiB, a round number below INT_MAX.
constexpr size_t kDefaultMaxMessageBytes = size_t{1} << 30;

// How many pieces a message of `bytes` is split into (0 bytes still takes one empty piece).
size_t messagePieceCount(size_t bytes, size_t maxMessageBytes);

class MpiTransport : public Transport {
 public:
  // `comm` stays owned by the caller and must outlive the transport.
  MpiTransport(MPI_Comm comm, size_t maxMessageBytes);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int maxTag() const override { return maxTag_; }
  Status postSend(const void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  Status postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  // MPI_Waitany over every pending request of `transfers` (each transfer's pieces included).
  Status waitForAny(Transfer* const* transfers, size_t count, bool* blocked) override;

 private:
  Status postPieces(bool isSend, char* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer);
  MPI_Comm comm_;
  size_t maxMessageBytes_;
  int rank_ = 0, size_ = 1, maxTag_ = 32767;
};

}  // namespace hetccl
