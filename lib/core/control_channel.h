// A communicator's control channel: how a rank whose communicator fails, or is aborted, tells
// its peers, so that they fail with hetcclRemoteError naming it within a poll instead of waiting
// for their timeout.  Every rank keeps one receive posted on a tag no plan uses (0), from any
// peer, on the communicator's private MPI communicator; an announcement is a small message to
// every peer.  Operations poll the receive while they wait (the executor's interrupt check).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "base/status.h"

namespace hetccl {

class ControlChannel {
 public:
  static constexpr int kTag = 0;  // below every plan's tags (dispatch.cpp: 1 and up)

  ControlChannel(MPI_Comm comm, int rank, int nranks);
  ~ControlChannel();  // withdraws the posted receive
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  Status start();
  // hetcclRemoteError naming the peer once one has announced a failure; ok before.
  Status poll();
  // Tells every peer that this rank failed with `failure` (once; later calls do nothing).
  // Safe from any thread.
  void announce(const Status& failure);

 private:
  struct Notice {
    int32_t code = 0;
    char text[200] = {};
  };
  MPI_Comm comm_;
  int rank_, nranks_;
  std::mutex lock_;  // the receive and what it brought
  Notice incoming_;
  MPI_Request receive_ = MPI_REQUEST_NULL;
  Status remoteFailure_;
  std::atomic<bool> announced_{false};
  // The announcement MPI may still be sending when the channel goes: left alive then (a few
  // hundred bytes, once, after a failure) rather than freed under MPI.
  std::unique_ptr<Notice> outgoing_;
  std::vector<MPI_Request> sends_;
};

}  // namespace hetccl
