// Where a validated call goes, in this order of preference:
//   1. the native path: a communicator that is one island with a vendor library hands the
//      whole call to it, on the caller's stream (NCCL's own asynchrony);
//   2. the inline path: a small collective on a host-reachable device, with nothing queued
//      on the communicator and nothing pending on the caller's stream, runs its plan at once
//      on the calling thread (an inline stream: no hand-over to any other thread) and is
//      complete when the call returns -- which NCCL's contract allows, and which is the only
//      way a few-byte all-reduce can cost about what MPI_Allreduce does;
//   3. the progress engine: the plan is queued, ordered on the caller's streams, and run by
//      the communicator's progress thread (or by the caller in caller mode).
// Plans are chosen and built on the calling thread (and cached); the engine only runs them.
#pragma once

#include <vector>

#include "core/communicator.h"

namespace hetccl {

// The streams an operation is ordered on: a view of one call's own stream, or of a group's list
// (a view, so that a lone call allocates nothing on its way to the inline path).
class StreamList {
 public:
  explicit StreamList(const StreamHandle& one) : first_(&one), count_(1) {}
  explicit StreamList(const std::vector<StreamHandle>& all) : first_(all.data()), count_(all.size()) {}
  const StreamHandle* begin() const { return first_; }
  const StreamHandle* end() const { return first_ + count_; }
  size_t size() const { return count_; }

 private:
  const StreamHandle* first_;
  size_t count_;
};

// `streams`: what the operation is ordered on -- the call's own stream, or every stream of the
// group it belongs to (NCCL's groups join their streams: each operation starts after the work
// enqueued on any of them before the group, and each of them waits for every operation).
Status runCollective(hetcclComm& comm, const CollectiveCall& call, StreamList streams);
// The sends and receives of one group (or a lone call), as one plan, ordered on `streams` (which
// must include the calls' own).
Status runPointToPoint(hetcclComm& comm, const std::vector<PointToPointCall>& calls, StreamList streams);

}  // namespace hetccl
