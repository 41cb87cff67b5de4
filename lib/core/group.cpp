#include "core/group.h"

#include <algorithm>
#include <map>
#include <vector>

#include "core/dispatch.h"

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

}  // namespace

bool insideGroup() { return groupState().depth > 0; }

void queueCollective(hetcclComm* comm, const CollectiveCall& call) {
  groupState().queue.push_back(QueuedOperation{comm, false, call, {}});
}

void queuePointToPoint(hetcclComm* comm, const PointToPointCall& call) {
  groupState().queue.push_back(QueuedOperation{comm, true, {}, call});
}

Status groupStart() {
  ++groupState().depth;
  return Status::ok();
}

Status groupEnd(hetcclComm** failedComm) {
  GroupState& state = groupState();
  *failedComm = nullptr;
  if (state.depth == 0)
    return HETCCL_STATUS(Code::InvalidUsage, "hetcclGroupEnd called without a matching hetcclGroupStart");
  if (--state.depth > 0) return Status::ok();
  std::vector<QueuedOperation> queue;
  queue.swap(state.queue);

  std::map<uint64_t, hetcclComm*> commsById;
  for (const QueuedOperation& op : queue) commsById[op.comm->id] = op.comm;
  // NCCL's groups join their streams: every operation of the group is ordered on all of them.
  std::vector<StreamHandle> streams;
  for (const QueuedOperation& op : queue) {
    const StreamHandle stream = op.isPointToPoint ? op.pointToPoint.stream : op.collective.stream;
    if (std::find(streams.begin(), streams.end(), stream) == streams.end()) streams.push_back(stream);
  }
  Status first;
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
    if (!status.isOk() && first.isOk()) {
      first = status;
      *failedComm = comm;
    }
  }
  return first;
}

}  // namespace hetccl
