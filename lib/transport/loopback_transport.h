// A transport between ranks that are threads of one process, so that the executor and the
// transport decorators can be tested without mpirun (as Gloo tests its algorithms).  The
// ranks share one LoopbackFabric, which matches every receive with the oldest unmatched send
// of the same (source, destination, tag), and every send with the oldest such receive: MPI's
// non-overtaking rule.  The bytes are copied when the second of a pair is posted.
//
// A send completes only once a receive has taken it (MPI's synchronous mode, the strictest it
// may choose), so a plan that would only work if sends were buffered deadlocks here as it can
// under MPI.  A receive may be longer than its send (as in MPI); a shorter one is an error.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "transport/transport.h"

namespace hetccl {

// The smallest MPI_TAG_UB the MPI standard allows: a tag scheme that fits here fits any MPI.
constexpr int kLoopbackMaxTag = 32767;

class LoopbackFabric {
 public:
  explicit LoopbackFabric(int nranks) : nranks_(nranks) {}
  int size() const { return nranks_; }

  // From now on every transfer that has not completed fails with `reason`: ranks waiting for
  // a peer that gave up unwind instead of hanging.  The first reason given is kept.
  void abort(const std::string& reason);
  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  std::string abortReason() const;

  // One posted send or receive.  `state` is written under the fabric's lock and read without
  // it by the poster, whose buffer the partner's copy touched before the release store.
  struct Posting {
    enum State { Pending, Done, Truncated };
    bool isSend = true;
    int source = 0, destination = 0, tag = 0;
    char* buffer = nullptr;
    size_t bytes = 0;
    size_t partnerBytes = 0;  // for a truncated receive: what the send carried
    std::atomic<int> state{Pending};
  };
  // Matches `posting` with the oldest opposite posting of its channel, or queues it.
  void post(const std::shared_ptr<Posting>& posting);
  // Takes an unmatched posting out of its queue (a transfer abandoned before completion).
  void withdraw(const std::shared_ptr<Posting>& posting);
  // The ranks with sends to `destination` that no receive has taken yet, in rank order.
  std::vector<int> sourcesWaitingFor(int destination) const;

 private:
  using ChannelKey = std::tuple<int, int, int>;  // source, destination, tag
  struct Channel {
    // At most one of the two is non-empty: a posting that finds the other side waiting is
    // matched at once.
    std::deque<std::shared_ptr<Posting>> sends, receives;
  };
  static void complete(Posting& send, Posting& receive);

  const int nranks_;
  mutable std::mutex mutex_;
  std::map<ChannelKey, Channel> channels_;
  std::atomic<bool> aborted_{false};
  std::string abortReason_;  // guarded by mutex_
};

class LoopbackTransport : public Transport {
 public:
  LoopbackTransport(std::shared_ptr<LoopbackFabric> fabric, int rank) : fabric_(std::move(fabric)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return fabric_->size(); }
  int maxTag() const override { return kLoopbackMaxTag; }
  Status postSend(const void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;
  Status postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) override;

 private:
  Status postTransfer(bool isSend, char* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer);
  std::shared_ptr<LoopbackFabric> fabric_;
  int rank_;
};

}  // namespace hetccl
