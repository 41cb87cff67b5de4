// Island collectives among rank threads: what a vendor library (NCCL, RCCL) does for a plan's
// island steps, done by the island's threads themselves so that plans with island steps run
// under the loopback harness.  Each member drains its stream (the step reads what earlier
// work wrote), meets the others at a barrier, computes its own result from every member's
// source into private memory, meets them again (nobody still reads a source that a
// destination overlaps, as in the in-place forms), and then writes its destination.
// Synchronous where a vendor library is asynchronous: the plan cannot tell (the executor
// waits for an island step before any later phase that touches its memory; the asynchronous
// case is the MPI tests' with hetccl's NCCL drop-in as the island library).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "device/device.h"
#include "runtime/island_collectives.h"

namespace hetccl {

// What an island's member threads share: a reusable barrier and each member's buffers of the
// op in progress.
class ThreadIsland {
 public:
  explicit ThreadIsland(int members) : members_(members), sources_(members) {}
  int members() const { return members_; }
  // Wakes every member waiting at the barrier, now and later, with a failure.
  void abort();
  // Publishes member `index`'s source and waits for every member to do the same.
  bool publishAndWait(int index, const void* source);
  // Waits until every member has read what it needs.
  bool arriveAndWait();
  const char* source(int index) const { return static_cast<const char*>(sources_[index]); }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  const int members_;
  int arrived_ = 0;
  unsigned long generation_ = 0;
  bool aborted_ = false;
  // Written by their own member before a barrier, read by the others after it.
  std::vector<const void*> sources_;
};

// One member's view: the executor's IslandCollectives for a rank of an island that "has a
// vendor library" in the test's topology.
class ThreadIslandCollectives : public IslandCollectives {
 public:
  ThreadIslandCollectives(std::shared_ptr<ThreadIsland> island, int indexInIsland, Device& device)
      : island_(std::move(island)), index_(indexInIsland), device_(device) {}
  Status enqueue(const Op& op, const void* src, void* dst, ElementType type, ReduceOp reduction,
                 StreamHandle stream) override;

 private:
  std::shared_ptr<ThreadIsland> island_;
  int index_;
  Device& device_;
};

}  // namespace hetccl
