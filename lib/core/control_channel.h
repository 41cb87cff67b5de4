// A communicator's control channel: how a rank whose communicator fails, is aborted or is
// destroyed tells its peers, so that those waiting for it fail with hetcclRemoteError naming it
// within a poll instead of waiting for their timeout.  Every rank keeps one receive posted on a
// tag no plan uses (0), from any peer, on the communicator's private MPI communicator; a notice
// is a small message to every peer.  Operations poll the receive while they wait (the
// executor's interrupt check).
//
// Each rank sends exactly one notice per communicator, and it is its last message there:
// - a failure notice (an operation failed, or the communicator was aborted in the middle of
//   one) fails whatever the peers run from then on;
// - a leaving notice (destroyed, or aborted between operations) carries how many collectives
//   the rank ran: a peer fails only in a collective beyond those, which the leaver will never
//   join; one still finishing an earlier collective is not disturbed (its data is on its way).
// Because the notice is last, a rank that has heard from every peer will receive nothing more
// on the communicator, which is when it may be freed (core/retirement.h).  Notices also carry
// the communicator's id, against a message meant for an earlier communicator.
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

  ControlChannel(MPI_Comm comm, uint64_t commId, int rank, int nranks);
  ~ControlChannel();  // withdraws the posted receive
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  Status start();
  // hetcclRemoteError naming the peer once one has announced a failure, or has left before
  // collective number `collective` (1-based; 0: not in a collective); ok before.
  Status poll(uint64_t collective);
  // Whether every peer's notice has arrived (as of the last poll).
  bool heardFromEveryPeer();
  // Tells every peer that this rank failed with `failure`, unless it sent its notice already.
  // Safe from any thread.
  void announce(const Status& failure);
  // Tells every peer that this rank leaves after `collectives` collectives, unless it sent its
  // notice already.
  void announceLeaving(uint64_t collectives);

 private:
  enum class Kind : int32_t { Failure, Leaving };
  struct Notice {
    uint64_t commId = 0;
    int32_t kind = 0;
    int32_t code = 0;             // Failure: its code
    uint64_t collectivesRun = 0;  // Leaving: how many the rank ran
    char text[200] = {};          // Failure: its message
  };
  void send(std::unique_ptr<Notice> notice);
  void receive(const MPI_Status& status);  // the notice that just arrived
  void drain();                            // every notice that has arrived
  Status repost();

  MPI_Comm comm_;
  uint64_t commId_;
  int rank_, nranks_;
  std::mutex lock_;  // the receive and what it brought
  Notice incoming_;
  MPI_Request receive_ = MPI_REQUEST_NULL;
  Status remoteFailure_;  // the first failure notice
  // Of the peers that left, the one that ran the fewest collectives (the first to be missed).
  int leaver_ = -1;
  uint64_t leaverCollectives_ = 0;
  std::vector<bool> heard_;  // per rank: its notice has arrived
  int peersHeard_ = 0;
  std::atomic<bool> announced_{false};
  // The notice MPI may still be sending when the channel goes: left alive then (a few hundred
  // bytes, once) rather than freed under MPI.
  std::unique_ptr<Notice> outgoing_;
  std::vector<MPI_Request> sends_;
};

}  // namespace hetccl
