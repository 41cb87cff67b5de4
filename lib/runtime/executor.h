// The executor runs one rank's plan over a transport and a device, with several chunk
// pipelines in flight (see chunking.h): while one pipeline waits for the network, another's
// reduction runs on the device stream and a third posts its next sends.  It drives progress
// from the calling thread (a progress engine's, or the caller's) and returns when every step
// of every pipeline has completed and the device stream has drained.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "algorithms/chunking.h"
#include "algorithms/plan.h"
#include "base/status.h"
#include "device/device.h"
#include "runtime/device_buffer.h"
#include "runtime/island_collectives.h"
#include "runtime/plan_buffers.h"
#include "transport/transport.h"

namespace hetccl {

// Pipelines in flight are capped so that each gets its own tag below any MPI's MPI_TAG_UB.
constexpr int kMaxPipelineDepth = 64;

struct ExecutionSettings {
  size_t chunkBytes = size_t{1} << 20;
  int pipelineDepth = 4;
  // A run that makes no progress for this long fails with Code::Timeout; 0: never.
  double timeoutSeconds = 0;
  // When nothing moved and only transfers are pending, sleep in the transport until one
  // completes (Transport::waitForAny) instead of polling; such a wait neither times out nor
  // sees an abort (HETCCL_WAIT=block).
  bool blockInTransport = false;
};

class Executor {
 public:
  Executor(Device& device, Transport& transport, StreamHandle stream);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Where the plan's island-collective steps go; nullptr when the rank's island has no
  // vendor library (its plans then hold no such steps).  With `islandStream` they run there,
  // overlapping the plan's later steps up to the first phase whose memory meets theirs
  // (chunking.h); without it each runs whole on the executor's stream before the next phase.
  void setIslandCollectives(IslandCollectives* island, StreamHandle islandStream = nullptr) {
    island_ = island;
    islandStream_ = islandStream;
  }
  // Polled between steps: once true, run() gives up (the communicator is being aborted).
  void setAbortFlag(const std::atomic<bool>* abort) { abort_ = abort; }
  // Asked while a run waits without progress (never on its fast path): an error ends the run
  // with it (a peer announced its failure on the control channel).
  void setInterruptCheck(std::function<Status()> check) { interruptCheck_ = std::move(check); }
  // Ranks outnumber the host's hardware threads: an idle wait yields at once (runtime/backoff.h).
  void setYieldAtOnce(bool yieldAtOnce) { yieldAtOnce_ = yieldAtOnce; }
  // The executor's stream is an inline one (Device::createInlineStream): its copies and
  // reductions have run when enqueueing returns, so a step's end needs no event and a run's
  // end no synchronization (two device calls fewer per step of a small operation).
  void setStreamRunsInline(bool runsInline) { streamRunsInline_ = runsInline; }

  // Pipeline slot i uses tag `tagBase + i` (tags tagBase .. tagBase + kMaxPipelineDepth - 1
  // belong to this run; a phase on half of them, Step::tagHalf, has at most half the slots and
  // the half's tags).  For point-to-point plans pass ElementType::Uint8 (regions in bytes).
  Status run(const RankPlan& plan, const PlanBuffers& buffers, ElementType type, ReduceOp op, int tagBase,
             const ExecutionSettings& settings);

  // Local passes on the executor's stream, complete when they return: fp32 accumulation's
  // widening and rounding around its plans (core/accumulation.h), and copies.
  Status convert(void* dst, ElementType to, const void* src, ElementType from, size_t count);
  Status copy(void* dst, const void* src, size_t bytes);

  // After a failed run, before the executor and the memory its transfers use go: withdraws
  // every transfer still pending (Transfer::withdraw).  False when some may still touch their
  // memory, which must then outlive them (core/retirement.h).
  bool withdrawTransfers();

 private:
  struct Slot;
  struct PhaseRun;
  // An island step queued on the island stream: the memory it reads and writes, and its end.
  struct IslandStepInFlight {
    std::vector<std::pair<const char*, const char*>> memory;  // [begin, end) byte ranges
    std::unique_ptr<DeviceEvent> done;
  };
  Status runPipelined(const RankPlan& plan, const PlanPhase& phase, size_t* resume);
  Status startPhase(PhaseRun& run, const RankPlan& plan, const PlanPhase& phase);
  Status startNextSlot(PhaseRun& run, const RankPlan& plan);
  // One polling round over the phase's slots: finished steps end, next steps and slots start.
  Status advancePhase(PhaseRun& run, const RankPlan& plan, bool* progressed);
  // The phase that may start while `current` drains (Step::overlapsPrevious), if any.
  bool overlappingPhaseAfter(const RankPlan& plan, const PhaseRun& current, PlanPhase* next) const;
  Status runIslandStep(const Step& step);
  // The newest island step in flight whose memory the ordinary `phase` touches (one past it;
  // 0: none).
  size_t newestIslandStepMet(const RankPlan& plan, const PlanPhase& phase) const;
  // Waits for the island steps in flight whose memory the ordinary `phase` touches.
  Status waitForIslandSteps(const RankPlan& plan, const PlanPhase& phase);
  // The same without waiting: whether they have ended (and are forgotten if so).
  bool islandStepsEndedFor(const RankPlan& plan, const PlanPhase& phase);
  // Waits for every island step in flight (the end of a run, or its failure).
  Status drainIslandStream();
  // Where `region` of the run's buffers starts.
  char* address(const Region& region) const;
  Status postTransfer(Slot& slot, int tag, const Op& op, char** staging);
  Status enqueueLocalWork(Slot& slot, const Op& op, const RankPlan& plan);
  Status startStep(Slot& slot, const PhaseRun& run, const RankPlan& plan);
  Status pollSlot(Slot& slot, const PhaseRun& run, const RankPlan& plan, bool* progressed);
  // Sleeps in the transport until a pending transfer of the active slots completes; *blocked
  // false when the transport cannot (the caller polls).
  Status waitForAnyTransfer(bool* blocked);
  // The Timeout error of a run stuck for `idleSeconds`, naming the step and the peer waited for.
  Status stuck(const RankPlan& plan, double idleSeconds) const;

  Device& device_;
  Transport& transport_;
  StreamHandle stream_;
  IslandCollectives* island_ = nullptr;
  StreamHandle islandStream_ = nullptr;
  std::vector<IslandStepInFlight> islandInFlight_;  // this run's, oldest first
  bool islandStreamJoined_ = false;                 // the island stream has waited for stream_
  const std::atomic<bool>* abort_ = nullptr;
  std::function<Status()> interruptCheck_;
  bool yieldAtOnce_ = false;
  bool streamRunsInline_ = false;
  // The phase being run and the one that may overlap it (Step::overlapsPrevious), with their
  // slots and staging, reused from run to run.
  std::array<std::unique_ptr<PhaseRun>, 2> phaseRuns_;
  // Per-run context, set by run().
  const PlanBuffers* buffers_ = nullptr;
  ElementType type_ = ElementType::Uint8;
  ReduceOp op_ = ReduceOp::Sum;
  size_t elementSize_ = 1;
  size_t chunkElements_ = 1;
  int tag_ = 0;
  int pipelineDepth_ = 1;
  // One polling round's verdict on the transfers still pending: some may complete at any moment
  // (mustPoll_), or all only wait for modelled time, the first until idleUntil_.
  bool mustPoll_ = false;
  bool devicePending_ = false;  // some slot waits for its device work, which no transport wait sees
  double idleUntil_ = 0;
  double timeoutSeconds_ = 0;
  bool blockInTransport_ = false;
  std::vector<Transfer*> waitList_;  // waitForAnyTransfer's, kept for its capacity
};

}  // namespace hetccl
