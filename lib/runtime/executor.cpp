#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "algorithms/chunking.h"
#include "runtime/backoff.h"
#include "runtime/heartbeat.h"

namespace hetccl {

// A transfer in flight, with what to do once it lands.  Its ops point into the slot's sliced
// copy or, for whole steps, into the plan itself: valid while the run lasts (a slot's transfers
// are cleared when the next run starts it).
struct PendingTransfer {
  std::unique_ptr<Transfer> transfer;
  const Op* op = nullptr;          // the Send or receive it carries, for messages
  const Op* reduceInto = nullptr;  // a RecvReduce whose data sits in `staged`
  char* staged = nullptr;
};

// One pipeline slot: it runs pipelines slot, slot + depth, slot + 2*depth, ... one after the
// other, each through all steps of the plan.
struct Executor::Slot {
  int index = 0;
  size_t pipeline = 0;
  size_t step = 0;
  bool active = false;
  bool waitingForDevice = false;
  bool deviceWorkEnqueued = false;           // this step gave the device work to wait for
  size_t stepsDone = 0;                      // of its current pipeline: the next slot starts after one
  std::vector<Op> ops;                       // the current step, cut to this pipeline's chunk
  const std::vector<Op>* current = nullptr;  // `ops`, or the plan's own when one chunk is all
  std::vector<PendingTransfer> transfers;
  // Completed transfers, handed back to the transport to post the next ones in (no allocation
  // per transfer), and the step's device event, recorded again at each step.
  std::vector<std::unique_ptr<Transfer>> spare;
  std::unique_ptr<DeviceEvent> deviceDone;
};

Executor::Executor(Device& device, Transport& transport, StreamHandle stream)
    : device_(device), transport_(transport), stream_(stream), staging_(device) {}

Executor::~Executor() = default;

bool Executor::withdrawTransfers() {
  bool stopped = true;
  for (Slot& slot : slots_)
    for (PendingTransfer& pending : slot.transfers)
      if (pending.transfer && !pending.transfer->withdraw()) stopped = false;
  return stopped;
}

char* Executor::address(const Region& region) const {
  return (*buffers_)[region.buffer] + region.offset * elementSize_;
}

Status Executor::run(const RankPlan& plan, const PlanBuffers& buffers, ElementType type, ReduceOp op, int tagBase,
                     const ExecutionSettings& settings) {
  buffers_ = &buffers;
  type_ = type;
  op_ = op;
  elementSize_ = elementSize(type);
  chunkElements_ = std::max<size_t>(1, settings.chunkBytes / elementSize_);
  pipelineDepth_ = std::clamp(settings.pipelineDepth, 1, kMaxPipelineDepth);
  tag_ = tagBase;
  timeoutSeconds_ = settings.timeoutSeconds;
  blockInTransport_ = settings.blockInTransport;
  islandInFlight_.clear();
  islandStreamJoined_ = false;
  // Phase by phase, without building their list (one allocation less per small operation).
  for (size_t first = 0; first < plan.steps.size();) {
    const PlanPhase phase = phaseAt(plan, first);
    first = phase.endStep;
    Status failed = phase.island ? runIslandStep(plan.steps[phase.firstStep]) : waitForIslandSteps(plan, phase);
    if (failed.isOk() && !phase.island) failed = runPipelined(plan, phase);
    if (!failed.isOk()) {
      // Copies and reductions of the stopped phase may still be queued, writing into the
      // caller's buffers: they end before the failure lets the caller's streams run on, or they
      // land in memory the caller has freed meanwhile.  (They wait for no peer, unlike a vendor
      // library's kernels, which only an abort of the library ends: core/communicator.cpp; so
      // the island stream is not waited for here.)
      (void)device_.synchronizeStream(stream_);
      return failed;
    }
  }
  HETCCL_TRY(drainIslandStream());
  return streamRunsInline_ ? Status::ok() : device_.synchronizeStream(stream_);
}

Status Executor::convert(void* dst, ElementType to, const void* src, ElementType from, size_t count) {
  HETCCL_TRY(device_.convertAsync(dst, to, src, from, count, stream_));
  return device_.synchronizeStream(stream_);
}

Status Executor::copy(void* dst, const void* src, size_t bytes) {
  HETCCL_TRY(device_.copyAsync(dst, src, bytes, stream_));
  return device_.synchronizeStream(stream_);
}

// The vendor library's calls, in plan order.  Without an island stream the next phase's sends
// read what they wrote, so the stream is drained before it starts; with one, the step is left
// running and the phases that need it wait (waitForIslandSteps).
Status Executor::runIslandStep(const Step& step) {
  if (!island_)
    return HETCCL_STATUS(Code::InternalError, "a plan has island-collective steps but the rank has no island library");
  if (!islandStream_) {
    for (const Op& op : step.ops)
      HETCCL_TRY(island_->enqueue(op, address(op.src), address(op.dst), type_, op_, stream_));
    return device_.synchronizeStream(stream_);
  }
  if (!islandStreamJoined_) {
    // What this run's stream was given before the plan (the caller's ordering) comes first.
    std::unique_ptr<DeviceEvent> before;
    HETCCL_TRY(device_.recordEvent(stream_, &before));
    HETCCL_TRY(device_.streamWaitEvent(islandStream_, *before));
    islandStreamJoined_ = true;
  }
  IslandStepInFlight inFlight;
  for (const Op& op : step.ops) {
    HETCCL_TRY(island_->enqueue(op, address(op.src), address(op.dst), type_, op_, islandStream_));
    for (const Region* region : {&op.src, &op.dst})
      if (region->count > 0)
        inFlight.memory.emplace_back(address(*region), address(*region) + region->count * elementSize_);
  }
  HETCCL_TRY(device_.recordEvent(islandStream_, &inFlight.done));
  islandInFlight_.push_back(std::move(inFlight));
  return Status::ok();
}

Status Executor::waitForIslandSteps(const RankPlan& plan, const PlanPhase& phase) {
  if (islandInFlight_.empty()) return Status::ok();
  auto meets = [](const IslandStepInFlight& island, const char* begin, const char* end) {
    for (const auto& [from, to] : island.memory)
      if (begin < to && from < end) return true;
    return false;
  };
  // The newest step in flight that the phase meets (one past it; 0: none): the island stream
  // runs in order, so its end is the end of every older one too.
  size_t newestMet = 0;
  for (size_t s = phase.firstStep; s < phase.endStep && newestMet < islandInFlight_.size(); ++s)
    for (const Op& op : plan.steps[s].ops)
      for (const Region* region : {&op.src, &op.dst}) {
        if (region->count == 0) continue;
        const char* begin = address(*region);
        const char* end = begin + region->count * elementSize_;
        for (size_t i = islandInFlight_.size(); i > newestMet; --i)
          if (meets(islandInFlight_[i - 1], begin, end)) {
            newestMet = i;
            break;
          }
      }
  if (newestMet == 0) return Status::ok();
  HETCCL_TRY(islandInFlight_[newestMet - 1].done->synchronize());
  islandInFlight_.erase(islandInFlight_.begin(), islandInFlight_.begin() + static_cast<long>(newestMet));
  return Status::ok();
}

Status Executor::drainIslandStream() {
  if (!islandStreamJoined_) return Status::ok();
  islandInFlight_.clear();
  islandStreamJoined_ = false;
  return device_.synchronizeStream(islandStream_);
}

Status Executor::runPipelined(const RankPlan& plan, const PlanPhase& phase) {
  const PhaseShape shape = phaseShape(plan, phase, chunkElements_);
  const size_t pipelines = shape.pipelines;
  if (pipelines == 0) return Status::ok();
  const int depth = static_cast<int>(std::min<size_t>(pipelines, static_cast<size_t>(pipelineDepth_)));
  phaseEnd_ = phase.endStep;
  stepsWhole_ = shape.stepsWhole;
  stagingPerSlot_ = shape.stagedElements * elementSize_;
  HETCCL_TRY(staging_.ensure(stagingPerSlot_ * depth));

  // Slots are kept between runs, with their vectors' capacity: a small operation's whole cost
  // is a few microseconds, and allocations were a good part of it.
  if (slots_.size() < static_cast<size_t>(depth)) slots_.resize(depth);
  for (int i = 0; i < depth; ++i) {
    Slot& slot = slots_[i];
    slot.index = i;
    slot.pipeline = i;
    slot.step = phase.firstStep;
    slot.stepsDone = 0;
    slot.active = false;
    slot.transfers.clear();
  }
  // Pipelines enter one at a time: slot i starts once slot i - 1 has finished a step, so that
  // they run a step apart and each step's resource (a link direction, the device) serves one
  // pipeline while the next pipeline uses the step before's.  Started together they ran in
  // lockstep: a tree's pipelines all sent up, then all down, each link direction idle half the
  // time, and an island step never overlapped the exchange across islands (under SimGrid's
  // SMPI hier-tree took 1.42x and hier on a shared trunk 1.29x the cost model's time, whose
  // pipelines are a step apart: docs/SIM.md).
  int started = 0;
  auto startSlot = [&]() -> Status {
    Slot& slot = slots_[started++];
    slot.active = true;
    return startStep(slot, plan);
  };
  HETCCL_TRY(startSlot());
  Backoff backoff(yieldAtOnce_);
  Heartbeat* const heartbeat = backoff.heartbeat();
  for (bool anyActive = true; anyActive;) {
    beat(heartbeat);  // for the stall watchdog: this loop came back from the transport
    if (abort_ && abort_->load(std::memory_order_relaxed))
      return HETCCL_STATUS(Code::Aborted, "the communicator was aborted during an operation");
    anyActive = false;
    bool progressed = false;
    mustPoll_ = false;
    devicePending_ = false;
    idleUntil_ = std::numeric_limits<double>::infinity();
    for (int i = 0; i < started; ++i) {
      Slot& slot = slots_[i];
      if (!slot.active) continue;
      HETCCL_TRY(pollSlot(slot, plan, &progressed));
      if (slot.active) anyActive = true;
      if (!slot.active && slot.pipeline + depth < pipelines) {
        slot.pipeline += depth;
        slot.step = phase.firstStep;
        slot.stepsDone = 0;
        slot.active = true;
        anyActive = true;
        HETCCL_TRY(startStep(slot, plan));
      }
    }
    while (started < depth && (!slots_[started - 1].active || slots_[started - 1].stepsDone > 0)) {
      HETCCL_TRY(startSlot());
      progressed = true;
      anyActive = true;  // the next round refills it if its pipeline was empty here
    }
    // Ranks may outnumber cores, and the application computes meanwhile: let others run.
    if (!anyActive) break;
    if (!progressed) {
      const double idle = backoff.idleSeconds();
      if (timeoutSeconds_ > 0 && idle > timeoutSeconds_) return stuck(plan, idle);
      if (idle > 0 && interruptCheck_) HETCCL_TRY(interruptCheck_());
    }
    bool blocked = false;
    if (!progressed && blockInTransport_ && !devicePending_) HETCCL_TRY(waitForAnyTransfer(depth, &blocked));
    if (progressed || blocked) {
      backoff.reset();
    } else if (!mustPoll_ && idleUntil_ < std::numeric_limits<double>::infinity()) {
      // Every pending transfer only waits for an emulated link's modelled time: sleep until
      // the first is due rather than take the CPU the application's work should have.
      const double wait = idleUntil_ - monotonicSeconds();
      if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    } else {
      backoff.pause();
    }
  }
  return Status::ok();
}

// A Send or receive of the slot's current step: posted, and kept until it lands.
Status Executor::postTransfer(Slot& slot, const Op& op, char** staging) {
  const bool receives = op.kind == OpKind::RecvCopy || op.kind == OpKind::RecvReduce;
  if (op.kind != OpKind::Send && !receives) return Status::ok();  // local work: enqueueLocalWork
  const size_t bytes = (receives ? op.dst.count : op.src.count) * elementSize_;
  PendingTransfer pending;
  pending.op = &op;
  if (!slot.spare.empty()) {
    pending.transfer = std::move(slot.spare.back());
    slot.spare.pop_back();
  }
  if (op.kind == OpKind::Send) {
    HETCCL_TRY(transport_.postSend(address(op.src), bytes, op.peer, tag_ + slot.index, &pending.transfer));
  } else if (op.kind == OpKind::RecvCopy) {
    HETCCL_TRY(transport_.postRecv(address(op.dst), bytes, op.peer, tag_ + slot.index, &pending.transfer));
  } else {
    pending.reduceInto = &op;
    pending.staged = *staging;
    *staging += bytes;  // this pipeline's chunk of the region: no more than runPipelined counted
    HETCCL_TRY(transport_.postRecv(pending.staged, bytes, op.peer, tag_ + slot.index, &pending.transfer));
  }
  slot.transfers.push_back(std::move(pending));
  return Status::ok();
}

// A Copy, Reduce or Divide of the slot's current step, enqueued on the stream.
Status Executor::enqueueLocalWork(Slot& slot, const Op& op, const RankPlan& plan) {
  switch (op.kind) {
    case OpKind::Copy:
      HETCCL_TRY(device_.copyAsync(address(op.dst), address(op.src), op.dst.count * elementSize_, stream_));
      break;
    case OpKind::Reduce: {
      const auto operands = reductionOperands<const char*>(op, address(op.dst), address(op.src));
      HETCCL_TRY(
          device_.reduceAsync(address(op.dst), operands.first, operands.second, op.dst.count, type_, op_, stream_));
      break;
    }
    case OpKind::Divide:
      HETCCL_TRY(device_.divideAsync(address(op.dst), op.dst.count, type_, plan.divisor, stream_));
      break;
    case OpKind::IslandReduceScatter:
    case OpKind::IslandReduce:
    case OpKind::IslandAllGather:
    case OpKind::IslandBroadcast:
      return HETCCL_STATUS(Code::InternalError, "island-collective op inside a pipelined step");
    default: return Status::ok();  // a transfer: postTransfer
  }
  slot.deviceWorkEnqueued = true;
  return Status::ok();
}

// Enqueues the step's local work, posts its transfers.  Empty steps (this pipeline's chunk
// of every region is empty) are skipped.
Status Executor::startStep(Slot& slot, const RankPlan& plan) {
  for (; slot.step < phaseEnd_; ++slot.step) {
    const Step& step = plan.steps[slot.step];
    // A step that is its own only chunk runs as planned, without copying its ops (a small
    // call's steps were a visible part of its cost).
    if (stepsWhole_) {
      slot.current = &step.ops;
    } else {
      sliceStep(step, slot.pipeline, chunkElements_, &slot.ops);
      slot.current = &slot.ops;
    }
    if (!slot.current->empty()) break;
  }
  if (slot.step == phaseEnd_) {
    slot.active = false;
    return Status::ok();
  }
  slot.transfers.clear();
  slot.deviceWorkEnqueued = false;
  // Transfers first, then local work: a step's ops are independent (plan.h), and on an inline
  // stream a copy runs before enqueueing returns, so a broadcast root's or an out-of-place
  // all-gather's local copy posted first would hold back the send its peer waits for.
  char* staging = staging_.data() + slot.index * stagingPerSlot_;
  for (const Op& op : *slot.current) HETCCL_TRY(postTransfer(slot, op, &staging));
  for (const Op& op : *slot.current) HETCCL_TRY(enqueueLocalWork(slot, op, plan));
  slot.waitingForDevice = false;
  return Status::ok();
}

// Advances a slot as far as it can without blocking.
Status Executor::pollSlot(Slot& slot, const RankPlan& plan, bool* progressed) {
  if (!slot.waitingForDevice) {
    bool allDone = true;
    for (PendingTransfer& pending : slot.transfers) {
      if (!pending.transfer) continue;
      bool done = false;
      HETCCL_TRY(pending.transfer->test(&done));
      if (!done) {
        allDone = false;
        const double due = pending.transfer->notBefore();
        if (due > 0)
          idleUntil_ = std::min(idleUntil_, due);
        else
          mustPoll_ = true;
        continue;
      }
      *progressed = true;
      slot.spare.push_back(std::move(pending.transfer));
      if (const Op* op = pending.reduceInto) {
        // The operand order decides which NaN a max/min keeps: partners must agree (plan.h).
        const auto operands = reductionOperands<const char*>(*op, address(op->src), pending.staged);
        HETCCL_TRY(
            device_.reduceAsync(address(op->dst), operands.first, operands.second, op->dst.count, type_, op_, stream_));
        slot.deviceWorkEnqueued = true;
      }
    }
    if (!allDone) return Status::ok();
    // The next step may send what this one reduced: wait for the device to finish it.  A
    // step that only moved data has nothing to wait for (a round trip to the device saved).
    if (slot.deviceWorkEnqueued && !streamRunsInline_) HETCCL_TRY(device_.recordEvent(stream_, &slot.deviceDone));
    slot.waitingForDevice = true;
  }
  if (slot.deviceWorkEnqueued && !streamRunsInline_ && !slot.deviceDone->query()) {
    mustPoll_ = true;
    devicePending_ = true;
    return Status::ok();
  }
  *progressed = true;
  ++slot.step;
  ++slot.stepsDone;
  return startStep(slot, plan);
}

Status Executor::waitForAnyTransfer(int depth, bool* blocked) {
  waitList_.clear();
  for (int i = 0; i < depth; ++i)
    if (slots_[i].active && !slots_[i].waitingForDevice)
      for (PendingTransfer& pending : slots_[i].transfers)
        if (pending.transfer) waitList_.push_back(pending.transfer.get());
  if (waitList_.empty()) {
    *blocked = false;
    return Status::ok();
  }
  return transport_.waitForAny(waitList_.data(), waitList_.size(), blocked);
}

Status Executor::stuck(const RankPlan& plan, double idleSeconds) const {
  for (const Slot& slot : slots_) {
    if (!slot.active) continue;
    for (const PendingTransfer& pending : slot.transfers) {
      if (!pending.transfer || !pending.op) continue;
      const bool send = pending.op->kind == OpKind::Send;
      return HETCCL_STATUS(Code::Timeout,
                           "no progress for %.0f s (HETCCL_TIMEOUT): %s plan, step %zu of %zu, chunk %zu, waiting "
                           "for rank %d to %s",
                           idleSeconds, plan.algorithm.c_str(), slot.step + 1, plan.steps.size(), slot.pipeline,
                           pending.op->peer, send ? "receive what this rank sent" : "send");
    }
    if (slot.waitingForDevice)
      return HETCCL_STATUS(Code::Timeout,
                           "no progress for %.0f s (HETCCL_TIMEOUT): %s plan, step %zu of %zu, waiting for the device",
                           idleSeconds, plan.algorithm.c_str(), slot.step + 1, plan.steps.size());
  }
  return HETCCL_STATUS(Code::Timeout, "no progress for %.0f s (HETCCL_TIMEOUT) in the %s plan", idleSeconds,
                       plan.algorithm.c_str());
}

}  // namespace hetccl
