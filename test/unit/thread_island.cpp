#include "thread_island.h"

#include <cstring>

#include "device/host/host_reduce.h"

namespace hetccl {

void ThreadIsland::abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  aborted_ = true;
  changed_.notify_all();
}

bool ThreadIsland::publishAndWait(int index, const void* source) {
  {
    // The previous op's second barrier has passed: nobody reads the old pointer any more.
    std::lock_guard<std::mutex> lock(mutex_);
    sources_[index] = source;
  }
  return arriveAndWait();
}

bool ThreadIsland::arriveAndWait() {
  std::unique_lock<std::mutex> lock(mutex_);
  const unsigned long mine = generation_;
  if (++arrived_ == members_) {
    arrived_ = 0;
    ++generation_;
    changed_.notify_all();
    return true;
  }
  changed_.wait(lock, [&] { return generation_ != mine || aborted_; });
  return generation_ != mine;
}

Status ThreadIslandCollectives::enqueue(const Op& op, const void* src, void* dst, ElementType type, ReduceOp reduction,
                                        StreamHandle stream) {
  HETCCL_TRY(device_.synchronizeStream(stream));
  if (!island_->publishAndWait(index_, src))
    return HETCCL_STATUS(Code::RemoteError, "%s abandoned: another member of the island failed", opKindName(op.kind));
  const int g = island_->members();
  const size_t size = elementSize(type);
  auto at = [&](int member, size_t element) { return island_->source(member) + element * size; };
  std::vector<char> result;  // this member's destination, written once every source has been read
  switch (op.kind) {
    case OpKind::IslandReduceScatter:
    case OpKind::IslandReduce: {
      const bool scatters = op.kind == OpKind::IslandReduceScatter;
      if (!scatters && index_ != op.peer) break;  // only the root receives a reduce
      const size_t count = scatters ? op.dst.count : op.src.count;
      const size_t first = scatters ? index_ * count : 0;
      result.assign(at(0, first), at(0, first + count));
      // Avg sums here (the plan's Divide ops finish it), as the island library does.
      for (int m = 1; m < g; ++m) hostReduce(result.data(), result.data(), at(m, first), count, type, reduction);
      break;
    }
    case OpKind::IslandAllGather:
      for (int m = 0; m < g; ++m) result.insert(result.end(), at(m, 0), at(m, op.src.count));
      break;
    case OpKind::IslandBroadcast: result.assign(at(op.peer, 0), at(op.peer, op.src.count)); break;
    default: return HETCCL_STATUS(Code::InternalError, "%s is not an island collective", opKindName(op.kind));
  }
  if (!island_->arriveAndWait())
    return HETCCL_STATUS(Code::RemoteError, "%s abandoned: another member of the island failed", opKindName(op.kind));
  if (!result.empty()) std::memcpy(dst, result.data(), result.size());
  return Status::ok();
}

}  // namespace hetccl
