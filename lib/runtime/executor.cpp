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

// One ordinary phase being run: its pipeline slots, their staging and their tags.  A run has
// two, so that a phase that may overlap the one before it (Step::overlapsPrevious) starts while
// that one drains; each keeps its slots' vectors between runs.
struct Executor::PhaseRun {
  explicit PhaseRun(Device& device) : staging(device) {}
  PlanPhase phase;
  size_t pipelines = 0;
  int depth = 0;    // slots in use
  int started = 0;  // slots started so far (they enter one at a time: runPipelined)
  int tagBase = 0;  // slot i's messages carry tagBase + i
  int8_t tagHalf = -1;
  bool stepsWhole = false;  // the phase's steps are their own only chunks (PhaseShape)
  size_t stagingPerSlot = 0;
  DeviceBuffer staging;  // where RecvReduce chunks land before they are folded in
  std::vector<Slot> slots;

  // Every pipeline has a slot: what is left is the last pipeline of each.
  bool allStarted() const {
    if (started < depth) return false;
    for (int i = 0; i < depth; ++i)
      if (slots[i].pipeline + depth < pipelines) return false;
    return true;
  }
  bool finished() const {
    if (!allStarted()) return false;
    for (int i = 0; i < depth; ++i)
      if (slots[i].active) return false;
    return true;
  }
};

Executor::Executor(Device& device, Transport& transport, StreamHandle stream)
    : device_(device), transport_(transport), stream_(stream) {
  for (auto& phaseRun : phaseRuns_) phaseRun = std::make_unique<PhaseRun>(device);
}

Executor::~Executor() = default;

bool Executor::withdrawTransfers() {
  bool stopped = true;
  for (auto& phaseRun : phaseRuns_)
    for (Slot& slot : phaseRun->slots)
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
  // A plan of whole ops is one pipeline: a chunk larger than any op (and than any sum of a
  // count and a chunk the slicing computes).
  chunkElements_ =
      plan.opsWhole ? std::numeric_limits<size_t>::max() / 4 : std::max<size_t>(1, settings.chunkBytes / elementSize_);
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
    if (failed.isOk() && !phase.island) failed = runPipelined(plan, phase, &first);
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

size_t Executor::newestIslandStepMet(const RankPlan& plan, const PlanPhase& phase) const {
  if (islandInFlight_.empty()) return 0;
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
  return newestMet;
}

Status Executor::waitForIslandSteps(const RankPlan& plan, const PlanPhase& phase) {
  const size_t newestMet = newestIslandStepMet(plan, phase);
  if (newestMet == 0) return Status::ok();
  HETCCL_TRY(islandInFlight_[newestMet - 1].done->synchronize());
  islandInFlight_.erase(islandInFlight_.begin(), islandInFlight_.begin() + static_cast<long>(newestMet));
  return Status::ok();
}

bool Executor::islandStepsEndedFor(const RankPlan& plan, const PlanPhase& phase) {
  const size_t newestMet = newestIslandStepMet(plan, phase);
  if (newestMet > 0 && !islandInFlight_[newestMet - 1].done->query()) return false;
  islandInFlight_.erase(islandInFlight_.begin(), islandInFlight_.begin() + static_cast<long>(newestMet));
  return true;
}

bool Executor::overlappingPhaseAfter(const RankPlan& plan, const PhaseRun& current, PlanPhase* next) const {
  if (current.tagHalf < 0) return false;
  size_t first = current.phase.endStep;
  // The island steps between are queued once the current phase has ended; they must not hold
  // the executor meanwhile, so only an island stream lets the next phase go ahead of them.
  while (first < plan.steps.size() && isIslandStep(plan.steps[first])) {
    if (!islandStream_) return false;
    ++first;
  }
  if (first == plan.steps.size()) return false;
  const Step& step = plan.steps[first];
  // The same half twice (a rank with no share of the slice between) would mix the two
  // phases' messages on one tag.
  if (!step.overlapsPrevious || step.tagHalf < 0 || step.tagHalf == current.tagHalf) return false;
  *next = phaseAt(plan, first);
  return true;
}

Status Executor::drainIslandStream() {
  if (!islandStreamJoined_) return Status::ok();
  islandInFlight_.clear();
  islandStreamJoined_ = false;
  return device_.synchronizeStream(islandStream_);
}

Status Executor::startPhase(PhaseRun& run, const RankPlan& plan, const PlanPhase& phase) {
  const PhaseShape shape = phaseShape(plan, phase, chunkElements_);
  const Step& first = plan.steps[phase.firstStep];
  run.phase = phase;
  run.pipelines = shape.pipelines;
  run.tagHalf = first.tagHalf;
  // A phase on half of the tags has half of the slots: its tags must stay within the run's.
  const int maxDepth = run.tagHalf < 0 ? pipelineDepth_ : std::min(pipelineDepth_, kMaxPipelineDepth / 2);
  run.depth = static_cast<int>(std::min<size_t>(shape.pipelines, static_cast<size_t>(maxDepth)));
  run.tagBase = tag_ + (run.tagHalf < 0 ? 0 : run.tagHalf * (kMaxPipelineDepth / 2));
  run.started = 0;
  run.stepsWhole = shape.stepsWhole;
  run.stagingPerSlot = shape.stagedElements * elementSize_;
  if (run.depth == 0) return Status::ok();
  HETCCL_TRY(run.staging.ensure(run.stagingPerSlot * run.depth));

  // Slots are kept between runs, with their vectors' capacity: a small operation's whole cost
  // is a few microseconds, and allocations were a good part of it.
  if (run.slots.size() < static_cast<size_t>(run.depth)) run.slots.resize(run.depth);
  for (int i = 0; i < run.depth; ++i) {
    Slot& slot = run.slots[i];
    slot.index = i;
    slot.pipeline = i;
    slot.step = phase.firstStep;
    slot.stepsDone = 0;
    slot.active = false;
    slot.transfers.clear();
  }
  return startNextSlot(run, plan);
}

// Pipelines enter one at a time: slot i starts once slot i - 1 has finished a step, so that
// they run a step apart and each step's resource (a link direction, the device) serves one
// pipeline while the next pipeline uses the step before's.  Started together they ran in
// lockstep: a tree's pipelines all sent up, then all down, each link direction idle half the
// time, and an island step never overlapped the exchange across islands (under SimGrid's
// SMPI hier-tree took 1.42x and hier on a shared trunk 1.29x the cost model's time, whose
// pipelines are a step apart: docs/SIM.md).
Status Executor::startNextSlot(PhaseRun& run, const RankPlan& plan) {
  Slot& slot = run.slots[run.started++];
  slot.active = true;
  return startStep(slot, run, plan);
}

Status Executor::advancePhase(PhaseRun& run, const RankPlan& plan, bool* progressed) {
  for (int i = 0; i < run.started; ++i) {
    Slot& slot = run.slots[i];
    if (!slot.active) continue;
    HETCCL_TRY(pollSlot(slot, run, plan, progressed));
    if (!slot.active && slot.pipeline + run.depth < run.pipelines) {
      slot.pipeline += run.depth;
      slot.step = run.phase.firstStep;
      slot.stepsDone = 0;
      slot.active = true;
      HETCCL_TRY(startStep(slot, run, plan));
    }
  }
  while (run.started < run.depth && (!run.slots[run.started - 1].active || run.slots[run.started - 1].stepsDone > 0)) {
    HETCCL_TRY(startNextSlot(run, plan));
    *progressed = true;  // the next round refills it if its pipeline was empty here
  }
  return Status::ok();
}

// Runs `phase` and, where the plan lets them, the phases after it that overlap the one before
// (Step::overlapsPrevious): each starts once every pipeline of the one before has started and
// the island steps it waits for have ended, and the island steps between the two are queued
// when the one before has ended.  *resume: the first step not yet run.
Status Executor::runPipelined(const RankPlan& plan, const PlanPhase& phase, size_t* resume) {
  PhaseRun* current = phaseRuns_[0].get();
  PhaseRun* next = phaseRuns_[1].get();
  bool nextRunning = false;
  next->depth = next->started = 0;
  HETCCL_TRY(startPhase(*current, plan, phase));
  *resume = phase.endStep;
  Backoff backoff(yieldAtOnce_);
  Heartbeat* const heartbeat = backoff.heartbeat();
  for (;;) {
    beat(heartbeat);  // for the stall watchdog: this loop came back from the transport
    if (abort_ && abort_->load(std::memory_order_relaxed))
      return HETCCL_STATUS(Code::Aborted, "the communicator was aborted during an operation");
    bool progressed = false;
    mustPoll_ = false;
    devicePending_ = false;
    idleUntil_ = std::numeric_limits<double>::infinity();
    HETCCL_TRY(advancePhase(*current, plan, &progressed));
    if (nextRunning) HETCCL_TRY(advancePhase(*next, plan, &progressed));
    PlanPhase following;
    // (tagHalf first: an ordinary phase, every small call's, never has a phase to overlap.)
    if (!nextRunning && current->tagHalf >= 0 && current->allStarted() &&
        overlappingPhaseAfter(plan, *current, &following) && islandStepsEndedFor(plan, following)) {
      HETCCL_TRY(startPhase(*next, plan, following));
      nextRunning = progressed = true;
    }
    if (current->finished()) {
      if (!nextRunning) return Status::ok();
      // The island steps between the two phases, in plan order, now that what they read is in.
      for (size_t s = current->phase.endStep; s < next->phase.firstStep; ++s) HETCCL_TRY(runIslandStep(plan.steps[s]));
      std::swap(current, next);
      nextRunning = false;
      *resume = current->phase.endStep;
      backoff.reset();
      continue;
    }
    // Ranks may outnumber cores, and the application computes meanwhile: let others run.
    if (!progressed) {
      const double idle = backoff.idleSeconds();
      if (timeoutSeconds_ > 0 && idle > timeoutSeconds_) return stuck(plan, idle);
      if (idle > 0 && interruptCheck_) HETCCL_TRY(interruptCheck_());
    }
    bool blocked = false;
    if (!progressed && blockInTransport_ && !devicePending_) HETCCL_TRY(waitForAnyTransfer(&blocked));
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
}

// A Send or receive of the slot's current step: posted, and kept until it lands.
Status Executor::postTransfer(Slot& slot, int tag, const Op& op, char** staging) {
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
    HETCCL_TRY(transport_.postSend(address(op.src), bytes, op.peer, tag, &pending.transfer));
  } else if (op.kind == OpKind::RecvCopy) {
    HETCCL_TRY(transport_.postRecv(address(op.dst), bytes, op.peer, tag, &pending.transfer));
  } else {
    pending.reduceInto = &op;
    pending.staged = *staging;
    *staging += bytes;  // this pipeline's chunk of the region: no more than runPipelined counted
    HETCCL_TRY(transport_.postRecv(pending.staged, bytes, op.peer, tag, &pending.transfer));
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
Status Executor::startStep(Slot& slot, const PhaseRun& run, const RankPlan& plan) {
  for (; slot.step < run.phase.endStep; ++slot.step) {
    const Step& step = plan.steps[slot.step];
    // A step that is its own only chunk runs as planned, without copying its ops (a small
    // call's steps were a visible part of its cost).
    if (run.stepsWhole) {
      slot.current = &step.ops;
    } else {
      sliceStep(step, slot.pipeline, chunkElements_, &slot.ops);
      slot.current = &slot.ops;
    }
    if (!slot.current->empty()) break;
  }
  if (slot.step == run.phase.endStep) {
    slot.active = false;
    return Status::ok();
  }
  slot.transfers.clear();
  slot.deviceWorkEnqueued = false;
  // Transfers first, then local work: a step's ops are independent (plan.h), and on an inline
  // stream a copy runs before enqueueing returns, so a broadcast root's or an out-of-place
  // all-gather's local copy posted first would hold back the send its peer waits for.
  char* staging = run.staging.data() + slot.index * run.stagingPerSlot;
  for (const Op& op : *slot.current) HETCCL_TRY(postTransfer(slot, run.tagBase + slot.index, op, &staging));
  for (const Op& op : *slot.current) HETCCL_TRY(enqueueLocalWork(slot, op, plan));
  slot.waitingForDevice = false;
  return Status::ok();
}

// Advances a slot as far as it can without blocking.
Status Executor::pollSlot(Slot& slot, const PhaseRun& run, const RankPlan& plan, bool* progressed) {
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
  return startStep(slot, run, plan);
}

Status Executor::waitForAnyTransfer(bool* blocked) {
  waitList_.clear();
  for (auto& run : phaseRuns_)
    for (int i = 0; i < run->started; ++i)
      if (run->slots[i].active && !run->slots[i].waitingForDevice)
        for (PendingTransfer& pending : run->slots[i].transfers)
          if (pending.transfer) waitList_.push_back(pending.transfer.get());
  if (waitList_.empty()) {
    *blocked = false;
    return Status::ok();
  }
  return transport_.waitForAny(waitList_.data(), waitList_.size(), blocked);
}

Status Executor::stuck(const RankPlan& plan, double idleSeconds) const {
  for (const auto& run : phaseRuns_)
    for (int i = 0; i < run->started; ++i) {
      const Slot& slot = run->slots[i];
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
        return HETCCL_STATUS(
            Code::Timeout, "no progress for %.0f s (HETCCL_TIMEOUT): %s plan, step %zu of %zu, waiting for the device",
            idleSeconds, plan.algorithm.c_str(), slot.step + 1, plan.steps.size());
    }
  return HETCCL_STATUS(Code::Timeout, "no progress for %.0f s (HETCCL_TIMEOUT) in the %s plan", idleSeconds,
                       plan.algorithm.c_str());
}

}  // namespace hetccl
