// A communicator's control channel: how a rank whose communicator fails, is aborted or is
// destroyed tells its peers, so that those waiting for it fail with hetcclRemoteError naming it
// within a poll instead of waiting for their timeout.  The notices travel on the bootstrap's
// notice wire (core/bootstrap.h: over MPI, a receive always posted on a tag no plan uses, from
// any peer, on the communicator's private MPI communicator).  Operations poll it while they
// wait (the executor's interrupt check).
//
// - A failure notice (an operation failed, or the communicator was aborted in the middle of
//   one) goes to every peer and fails whatever they run from then on.
// - A leaving notice goes, at destroy, only to the peers whose messages are waiting unreceived
//   on the communicator: they are in an operation this rank never joined.  It carries how many
//   collectives the rank ran, so a peer fails only in a collective beyond those.  A peer failed
//   by it tells every rank in turn (the leaver cannot: it is gone).
// An ordinary destroy sends nothing.  That matters: a message to every peer at teardown needs
// connections that never existed (Open MPI's TCP transport opens them on first use) to peers
// that may already be in MPI_Finalize, which killed ranks with SIGPIPE under srun.
// Notices carry the communicator's id, against a message meant for an earlier communicator.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "base/status.h"
#include "core/bootstrap.h"

namespace hetccl {

class ControlChannel {
 public:
  ControlChannel(std::unique_ptr<NoticeWire> wire, uint64_t commId, int rank, int nranks);
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  Status start();
  // hetcclRemoteError naming the peer once one has announced a failure, or has left before
  // collective number `collective` (1-based; 0: not in a collective); ok before.
  Status poll(uint64_t collective);
  // Whether any notice was sent or has arrived (after draining those that have): when not, no
  // message can still arrive on the communicator and it may be freed (core/retirement.h).
  bool quiet();
  // Tells every peer that this rank failed with `failure`, unless it sent its notice already.
  // Safe from any thread.
  void announce(const Status& failure);
  // At destroy: tells the peers with messages waiting unreceived that this rank leaves after
  // `collectives` collectives (unless it announced a failure already): those whose messages
  // wait in the bootstrap's wire, and `alsoWaiting` (those whose messages wait in the plans'
  // transport: Transport::peersWithUnreceivedMessages).
  void tellWaitingPeers(uint64_t collectives, const std::vector<int>& alsoWaiting);

 private:
  enum class Kind : int32_t { Failure, Leaving };
  struct Notice {
    uint64_t commId = 0;
    int32_t kind = 0;
    int32_t code = 0;             // Failure: its code
    uint64_t collectivesRun = 0;  // Leaving: how many the rank ran
    char text[200] = {};          // Failure: its message
  };
  void send(Notice notice, const std::vector<int>& peers);
  void receive(const Notice& notice, int peer);  // a notice that has arrived
  void drain();                                  // every notice that has arrived

  std::unique_ptr<NoticeWire> wire_;
  uint64_t commId_;
  int rank_, nranks_;
  std::mutex lock_;       // receiving and what it brought
  Status remoteFailure_;  // the first failure notice
  // Of the peers that left, the one that ran the fewest collectives (the first to be missed).
  int leaver_ = -1;
  uint64_t leaverCollectives_ = 0;
  bool noticeArrived_ = false;
  std::atomic<bool> announced_{false};
  bool toldWaitingPeers_ = false;
};

}  // namespace hetccl
