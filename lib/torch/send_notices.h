// Receives from any source for a backend whose transfers are matched by peer (hetccl's, as
// NCCL's): every send of the group also leaves a notice, an empty MPI message, on the group's
// own MPI communicator, and every receive takes one, from its source or (recv with src=None)
// from whichever rank's arrives first.  The notice's sender is then the peer of the data
// receive.  MPI matches receives in the order they are posted and messages between two ranks
// in the order they are sent, so each receive takes the notice of the send whose data it
// will be paired with by hetccl: notices and data are issued in the same order on both sides.
#pragma once

#include <mpi.h>  // without the C++ bindings (CMakeLists.txt defines OMPI_SKIP_MPICXX)

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace hetccl_torch {

class SendNotices {
 public:
  // A receive's notice: posted when the receive is issued, taken before its data is received.
  struct Expected {
    MPI_Request request = MPI_REQUEST_NULL;
    int source = -1;  // the sender, once taken
    bool taken = false;
  };

  // Over a duplicate of `members` (the group's communicator, in group-rank order).
  explicit SendNotices(MPI_Comm members);
  ~SendNotices();
  SendNotices(const SendNotices&) = delete;
  SendNotices& operator=(const SendNotices&) = delete;

  // The notice of a send to `peer`.
  void announce(int peer);
  // Posts the receive of a notice from `peer`, or from any rank when `peer` is kAnyRank.
  std::shared_ptr<Expected> expect(int peer);
  // Whether `expected`'s notice has come, waiting for it until `deadline` at most.
  bool take(Expected& expected, std::chrono::steady_clock::time_point deadline);
  // Withdraws a notice receive that will never be taken (its receive failed).
  void withdraw(Expected& expected);
  // Frees the communicator; notices of sends nobody received are dropped.
  void close();

  static constexpr int kAnyRank = -1;

 private:
  void reapSends();

  std::mutex lock_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<MPI_Request> sends_;  // notices on their way
};

}  // namespace hetccl_torch
