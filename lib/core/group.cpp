#include "core/group.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <vector>

#include "core/dispatch.h"
#include "core/live_communicators.h"

namespace hetccl {

namespace {

struct QueuedOperation {
  hetcclComm* comm = nullptr;
  bool isPointToPoint = false;
  CollectiveCall collective;
  PointToPointCall pointToPoint;
};

struct GroupState {
  int depth = 0;
  std::vector<QueuedOperation> queue;
};

GroupState& groupState() {
  thread_local GroupState state;
  return state;
}

// Threads of the process with a group open.  Every call asks insideGroup; in a shared library
// a thread_local with a destructor is reached through two calls, and almost always no thread
// has a group open.  A thread's own groupStart is sequenced before its calls, so it always
// sees its own count.
std::atomic<int> threadsInGroups{0};

}  // namespace

bool insideGroup() { return threadsInGroups.load(std::memory_order_relaxed) > 0 && groupState().depth > 0; }

void queueCollective(hetcclComm* comm, const CollectiveCall& call) {
  groupState().queue.push_back(QueuedOperation{comm, false, call, {}});
}

void queuePointToPoint(hetcclComm* comm, const PointToPointCall& call) {
  groupState().queue.push_back(QueuedOperation{comm, true, {}, call});
}

Status groupStart() {
  if (groupState().depth++ == 0) threadsInGroups.fetch_add(1, std::memory_order_relaxed);
  return Status::ok();
}

Status groupEnd() {
  GroupState& state = groupState();
  if (state.depth == 0)
    return HETCCL_STATUS(Code::InvalidUsage, "hetcclGroupEnd called without a matching hetcclGroupStart");
  if (--state.depth > 0) return Status::ok();
  threadsInGroups.fetch_sub(1, std::memory_order_relaxed);
  std::vector<QueuedOperation> queue;
  queue.swap(state.queue);

  // Each communicator is held while its operations launch (one may have been destroyed since
  // its calls were queued: that is an error for it alone).
  Status first;
  std::map<hetcclComm*, std::unique_ptr<CommunicatorHold>> holds;
  std::map<uint64_t, hetcclComm*> commsById;
  for (const QueuedOperation& op : queue) {
    if (holds.count(op.comm)) continue;
    auto hold = std::make_unique<CommunicatorHold>();
    const Status held = hold->acquire(op.comm, true);
    if (!held.isOk()) {
      if (first.isOk()) first = held;
      holds.emplace(op.comm, nullptr);
      continue;
    }
    commsById[op.comm->id] = op.comm;
    holds.emplace(op.comm, std::move(hold));
  }
  // NCCL's groups join their streams: every operation of the group is ordered on all of them.
  std::vector<StreamHandle> streams;
  for (const QueuedOperation& op : queue) {
    const StreamHandle stream = op.isPointToPoint ? op.pointToPoint.stream : op.collective.stream;
    if (std::find(streams.begin(), streams.end(), stream) == streams.end()) streams.push_back(stream);
  }
  for (auto& [id, comm] : commsById) {
    std::vector<PointToPointCall> pointToPoint;
    Status status;
    for (const QueuedOperation& op : queue) {
      if (op.comm != comm) continue;
      if (op.isPointToPoint)
        pointToPoint.push_back(op.pointToPoint);
      else if (status.isOk())
        status = runCollective(*comm, op.collective, StreamList(streams));
    }
    if (status.isOk() && !pointToPoint.empty()) status = runPointToPoint(*comm, pointToPoint, StreamList(streams));
    if (status.isOk()) continue;
    if (status.code() != Code::InvalidArgument && status.code() != Code::InvalidUsage) poison(*comm, status);
    if (first.isOk()) first = status;
  }
  return first;
}

}  // namespace hetccl
