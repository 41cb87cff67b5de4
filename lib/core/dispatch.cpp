#include "core/dispatch.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "algorithms/algorithm.h"
#include "base/log.h"
#include "core/accumulation.h"
#include "core/call_check.h"

namespace hetccl {

namespace {

// Tags 1..kMaxPipelineDepth carry point-to-point groups, which only the ranks involved run
// (so they cannot share the collectives' sequence); collectives cycle through the rest.
int pointToPointTagBase() { return 1; }
// The next collective's tags: it takes the next number of the sequence, equal on every rank,
// and the block of tags after the previous one's, cycling (a cursor rather than the sequence
// modulo the block count: a 64-bit division on every call showed in a small call's profile).
int nextCollectiveTagBase(hetcclComm& comm) {
  if (comm.collectiveTagBlocks == 0)
    comm.collectiveTagBlocks = std::max(1, comm.setup.transport->maxTag() / kMaxPipelineDepth - 1);
  const int block = comm.nextCollectiveTagBlock;
  comm.nextCollectiveTagBlock = block + 1 == comm.collectiveTagBlocks ? 0 : block + 1;
  ++comm.collectiveSequence;
  return 1 + kMaxPipelineDepth * (1 + block);
}

bool isInPlace(const CollectiveCall& call, int rank, size_t elementBytes) {
  const char* send = static_cast<const char*>(call.sendbuff);
  const char* recv = static_cast<const char*>(call.recvbuff);
  switch (call.collective) {
    case Collective::ReduceScatter: return recv == send + rank * call.count * elementBytes;
    case Collective::AllGather: return send == recv + rank * call.count * elementBytes;
    default: return send == recv;
  }
}

// The largest buffer the call touches, in bytes (nccl-tests' "size").
size_t operationBytes(const CollectiveCall& call, int nranks) {
  const size_t bytes = call.count * elementSize(call.type);
  switch (call.collective) {
    case Collective::ReduceScatter:
    case Collective::AllGather:
    case Collective::AlltoAll: return bytes * static_cast<size_t>(nranks);
    default: return bytes;
  }
}

// Whether a communicator that is one island with a vendor library hands its calls to it:
// unless the user forced one of hetccl's own algorithms.
bool takesNativePath(const hetcclComm& comm) {
  return comm.setup.islandLibrary && comm.setup.topology.view.islandCount() == 1 &&
         (!comm.settings.algorithm || *comm.settings.algorithm == Algorithm::Native);
}

// What the communicator reports as its last call's algorithm and predicted time
// (hetcclCommGetAlgorithm).  The label of a cached plan (choiceId, CachedPlan::id) is
// copied only when the entry changes: a string copy, then a comparison of strings, on every
// call showed in a small call's profile.  Other choices (choiceId 0) are always copied.
void recordChoice(hetcclComm& comm, uint64_t choiceId, const std::string& label, double predictedSeconds) {
  if (choiceId == 0 || choiceId != comm.lastChoiceId) comm.lastAlgorithm = label;
  comm.lastChoiceId = choiceId;
  comm.lastPredictedSeconds = predictedSeconds;
}

bool hasIslandSteps(const RankPlan& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(), [](const Step& step) { return isIslandStep(step); });
}

// Makes work enqueued next on `stream` wait for the work enqueued so far on each of `others`.
Status waitForStreams(Device& device, StreamHandle stream, StreamList others) {
  for (StreamHandle other : others) {
    if (other == stream) continue;
    std::unique_ptr<DeviceEvent> done;
    HETCCL_TRY(device.recordEvent(other, &done));
    HETCCL_TRY(device.streamWaitEvent(stream, *done));
  }
  return Status::ok();
}

// A native call in a group of several streams: the vendor library orders it on its own stream
// only, so the group's join is made here with events -- its stream first waits for the others,
// then the others wait for it.
template <typename Call>
Status runNativeJoined(hetcclComm& comm, StreamHandle own, StreamList streams, Call call) {
  if (streams.size() > 1) HETCCL_TRY(waitForStreams(*comm.device, own, streams));
  HETCCL_TRY(call());
  if (streams.size() > 1)
    for (StreamHandle other : streams) HETCCL_TRY(waitForStreams(*comm.device, other, StreamList(own)));
  return Status::ok();
}

// The inline path's conditions (dispatch.h): small, nothing queued that it could overtake,
// and every stream it is ordered on idle, so its inputs are ready and no later work can see it
// early.  Island steps need the vendor library's stream, not an inline one.
bool runsInline(hetcclComm& comm, size_t bytes, StreamList streams, bool islandSteps) {
  if (!comm.inlineExecutor || bytes > comm.settings.inlineBytes || islandSteps) return false;
  if (!comm.engine->idle()) return false;
  for (StreamHandle stream : streams) {
    bool idle = false;
    if (!comm.device->queryStream(stream, &idle).isOk() || !idle) return false;
  }
  return true;
}

// One run of a plan: everything the executor needs except the scratch buffer, which is
// resolved when the run starts (a queued run must not hold a pointer the buffer may move
// from while earlier runs grow it).
struct PlanRun {
  // What runs.  A collective's plan belongs to the communicator's plan cache, which keeps it
  // through an inline run; a queued run outlives the call and holds it in planOwner (an fp32-
  // accumulated run in `accumulated`), as a point-to-point group holds the plan it built.
  // (Not a shared_ptr copy on every call: its two atomic counts showed in a small call's cost.)
  const RankPlan* plan = nullptr;
  std::shared_ptr<const RankPlan> planOwner;
  PlanBuffers buffers;  // kScratchBuffer filled in by executePlan
  ElementType type = ElementType::Uint8;
  ReduceOp op = ReduceOp::Sum;
  int tagBase = 0;
  ExecutionSettings execution;
  // What the run is, for error messages and the call check: a collective of `count` elements,
  // or a point-to-point group (collective unset).
  std::optional<Collective> collective;
  size_t count = 0;
  int root = 0;
  // Its number among the communicator's collectives (1-based), equal on every rank; 0 for a
  // point-to-point group, which only the ranks involved run.
  uint64_t collectiveNumber = 0;
  // Its number among the collectives HETCCL_CHECK_CALLS compares across ranks; 0: unchecked.
  uint64_t checkNumber = 0;
  // Set for an fp32-accumulated call (core/accumulation.h), which runs these plans instead of
  // `plan` (its float32 phase): its all-gather with tags from gatherTagBase.
  std::shared_ptr<const AccumulatedPlans> accumulated;
  int gatherTagBase = 0;
  ExecutionSettings gatherExecution;
};

// How the executor runs a plan with chunks of `chunkBytes`: the communicator's depth, timeout
// and way of waiting.
ExecutionSettings executionSettings(const hetcclComm& comm, size_t chunkBytes) {
  return ExecutionSettings{chunkBytes, comm.settings.pipelineDepth, comm.settings.timeoutSeconds,
                           comm.settings.wait == WaitMode::Block};
}

// "hetccl all-reduce of 1000 float32 (operation 7): " and the like, before a failure met by a
// run that may have been queued long before: the message must say which call it was.
Status describeFailure(const PlanRun& run, uint64_t operation, Status failure) {
  // A call mismatch names both calls already; an abort is about no call in particular.
  if (failure.isOk() || failure.code() == Code::InvalidUsage || failure.code() == Code::Aborted) return failure;
  char what[160];
  if (run.collective)
    std::snprintf(what, sizeof what, "%s of %zu %s (operation %llu)", collectiveName(*run.collective), run.count,
                  elementTypeName(run.type), static_cast<unsigned long long>(operation));
  else
    std::snprintf(what, sizeof what, "point-to-point group (operation %llu)",
                  static_cast<unsigned long long>(operation));
  return Status(failure.code(), std::string(what) + ": " + failure.message());
}

// HETCCL_CHECK_CALLS' comparison of one collective; a mismatch poisons the communicator on
// every rank alike (the program's calls are out of step from here on).
Status checkCall(hetcclComm& comm, Collective collective, ElementType type, ReduceOp op, int root, size_t count,
                 uint64_t number) {
  const CallSignature mine{
      static_cast<int32_t>(collective), static_cast<int32_t>(type), static_cast<int32_t>(op), root, count, number};
  const Status agreed = checkSameCall(comm, mine, comm.engine->abortRequested());
  if (!agreed.isOk()) poison(comm, agreed);
  return agreed;
}

Status executePlan(hetcclComm& comm, Executor& executor, PlanRun& run, uint64_t operation) {
  comm.runningCollective.store(run.collectiveNumber, std::memory_order_relaxed);
  if (run.checkNumber != 0)
    HETCCL_TRY(checkCall(comm, *run.collective, run.type, run.op, run.root, run.count, run.checkNumber));
  if (run.accumulated) {
    const AccumulatedRun accumulated{run.buffers[kInputBuffer],
                                     run.buffers[kOutputBuffer],
                                     run.type,
                                     run.op,
                                     comm.rank,
                                     run.tagBase,
                                     run.gatherTagBase,
                                     run.execution,
                                     run.gatherExecution};
    Status status = runAccumulated(*run.accumulated, accumulated, executor, *comm.scratch);
    if (status.isOk()) return status;
    return describeFailure(run, operation, std::move(status));
  }
  Status status = comm.scratch->ensure(run.plan->scratchCount * elementSize(run.type));
  if (status.isOk()) {
    run.buffers[kScratchBuffer] = comm.scratch->data();
    status = executor.run(*run.plan, run.buffers, run.type, run.op, run.tagBase, run.execution);
  }
  if (status.isOk()) return status;  // (not a conditional expression: that would copy it)
  return describeFailure(run, operation, std::move(status));
}

// Peers still waiting in a failed operation fail at once with a remote error naming this rank
// (an abort is announced by destroy, a remote error came from a peer, and a call mismatch is
// seen by every rank at once).  Told after this rank's own callers have their error: with a
// dead peer, MPI may never return from the sends.
void tellPeersOfFailure(hetcclComm& comm, const Status& failure) {
  if (failure.code() != Code::RemoteError && failure.code() != Code::InvalidUsage && failure.code() != Code::Aborted)
    comm.control->announce(failure);
}

// Runs `run` inline when allowed, else hands it to the engine, ordered on `streams`.
// `run` is taken by reference and moved only into a queued operation: a small call's run is
// a couple of hundred bytes, whose copies showed in its profile.
Status launch(hetcclComm& comm, PlanRun&& run, StreamList streams, bool mayRunInline) {
  const uint64_t operation = ++comm.operationCount;
  if (mayRunInline) {
    const Status status = executePlan(comm, *comm.inlineExecutor, run, operation);
    if (!status.isOk()) tellPeersOfFailure(comm, status);
    return status;
  }
  if (!run.planOwner && !run.accumulated)
    return HETCCL_STATUS(Code::InternalError, "a queued run without its plan's owner");
  hetcclComm* target = &comm;
  return comm.engine->submit(
      std::vector<StreamHandle>(streams.begin(), streams.end()),
      [target, run = std::move(run), operation]() mutable {
        return executePlan(*target, *target->executor, run, operation);
      },
      [target](const Status& failure) { tellPeersOfFailure(*target, failure); });
}

PlanRequest planRequestOf(const hetcclComm& comm, const CollectiveCall& call, bool inPlace) {
  PlanRequest request;
  request.collective = call.collective;
  request.count = call.count;
  request.nranks = comm.nranks;
  request.root = call.root;
  request.inPlace = inPlace;
  request.average = call.op == ReduceOp::Avg;
  request.topology = &comm.setup.topology.view;
  request.vendorIslandSteps = vendorReducesAsHetccl(call.type, call.op);
  return request;
}

const CachedPlan& collectivePlan(hetcclComm& comm, const CollectiveCall& call, bool inPlace) {
  const PlanRequest request = planRequestOf(comm, call, inPlace);
  const size_t elementBytes = elementSize(call.type);
  if (const CachedPlan* cached = comm.plans.find(request, elementBytes)) return *cached;

  CachedPlan built;
  built.choice = comm.setup.tuner.choose(request, elementBytes);
  PlanRequest tuned = request;
  tuned.islandSlices = built.choice.islandSlices;
  auto plan = std::make_shared<RankPlan>(buildPlan(built.choice.algorithm, tuned, comm.rank));
  built.label = plan->algorithm;
  built.islandSteps = hasIslandSteps(*plan);
  if (built.islandSteps) built.label += "+" + comm.setup.islandLibrary->shortName();
  HETCCL_TRACE("%s count %zu %s %s root %d: %s, chunk %zu, island slices %d, predicted %.1f us: %s",
               collectiveName(call.collective), call.count, elementTypeName(call.type), reduceOpName(call.op),
               call.root, algorithmName(built.choice.algorithm), built.choice.chunkBytes, built.choice.islandSlices,
               built.choice.predictedSeconds * 1e6, describePlan(*plan).c_str());
  built.plan = std::move(plan);
  return comm.plans.insert(request, elementBytes, std::move(built));
}

// The fields of a collective's run that do not depend on its plans: buffers, call, numbers.
PlanRun collectiveRun(hetcclComm& comm, const CollectiveCall& call) {
  PlanRun run;
  // In place, not assigned from a temporary (a whole-buffer copy of fields just stored).
  run.buffers.push_back(const_cast<char*>(static_cast<const char*>(call.sendbuff)));
  run.buffers.push_back(static_cast<char*>(call.recvbuff));
  run.buffers.push_back(nullptr);
  run.type = call.type;
  run.op = call.op;
  run.tagBase = nextCollectiveTagBase(comm);
  run.collectiveNumber = comm.collectiveSequence;
  run.collective = call.collective;
  run.count = call.count;
  run.root = call.root;
  if (comm.settings.checkCalls) run.checkNumber = ++comm.checkedCollectives;
  return run;
}

// An fp32-accumulated call (core/accumulation.h): never the native path, whose vendor library
// would reduce in the narrow type; its plans may still hand island steps to that library.
Status runAccumulatedCollective(hetcclComm& comm, const CollectiveCall& call, StreamList streams) {
  const PlanRequest request = planRequestOf(comm, call, false);
  const size_t narrowSize = elementSize(call.type);
  std::shared_ptr<const AccumulatedPlans> plans = comm.accumulatedPlans.find(request, narrowSize);
  if (!plans) {
    const std::string library = comm.setup.islandLibrary ? comm.setup.islandLibrary->shortName() : "";
    plans = buildAccumulatedPlans(comm.setup.tuner, request, narrowSize, comm.rank, library);
    HETCCL_TRACE("%s count %zu %s %s, float32 accumulation: %s, predicted %.1f us", collectiveName(call.collective),
                 call.count, elementTypeName(call.type), reduceOpName(call.op), plans->label.c_str(),
                 plans->choice.predictedSeconds * 1e6);
    comm.accumulatedPlans.insert(request, narrowSize, plans);
  }
  recordChoice(comm, 0, plans->label, plans->choice.predictedSeconds);
  PlanRun run = collectiveRun(comm, call);
  run.plan = plans->reduce.get();
  run.accumulated = plans;
  run.gatherTagBase = nextCollectiveTagBase(comm);
  run.collectiveNumber = comm.collectiveSequence;
  run.execution = executionSettings(comm, plans->choice.reduce.chunkBytes);
  run.gatherExecution = executionSettings(comm, plans->choice.gather.chunkBytes);
  const bool islandSteps = hasIslandSteps(*plans->reduce) || (plans->gather && hasIslandSteps(*plans->gather));
  const bool inlineRun = runsInline(comm, plans->bufferCount * sizeof(float), streams, islandSteps);
  return launch(comm, std::move(run), streams, inlineRun);
}

}  // namespace

Status runCollective(hetcclComm& comm, const CollectiveCall& call, StreamList streams) {
  if (accumulatesInFloat32(comm.settings.accumulate, call.collective, call.type, call.op))
    return runAccumulatedCollective(comm, call, streams);
  const bool inPlace = isInPlace(call, comm.rank, elementSize(call.type));
  IslandLibrary* island = comm.setup.islandLibrary.get();
  if (takesNativePath(comm) && island->takesWhole(call, inPlace)) {
    recordChoice(comm, 0, "native:" + island->shortName(), 0);
    HETCCL_TRACE("%s count %zu %s %s root %d: native, by %s", collectiveName(call.collective), call.count,
                 elementTypeName(call.type), reduceOpName(call.op), call.root, island->describe().c_str());
    // Checked here, on the calling thread, before the vendor library is handed the call (a
    // mismatch would hang inside it): the call then waits for its peers to make theirs.  The
    // engine's queued calls are checked first, on its thread, so that every rank compares
    // the calls in the same order.
    if (comm.settings.checkCalls) {
      comm.engine->drain();
      HETCCL_TRY(comm.engine->asyncError());
      comm.runningCollective.store(0, std::memory_order_relaxed);
      HETCCL_TRY(
          checkCall(comm, call.collective, call.type, call.op, call.root, call.count, ++comm.checkedCollectives));
    }
    return runNativeJoined(comm, call.stream, streams, [&] { return island->runWhole(call); });
  }
  const CachedPlan& planned = collectivePlan(comm, call, inPlace);
  recordChoice(comm, planned.id, planned.label, planned.choice.predictedSeconds);
  PlanRun run = collectiveRun(comm, call);
  run.plan = planned.plan.get();
  run.execution = executionSettings(comm, planned.choice.chunkBytes);
  const bool inlineRun = runsInline(comm, operationBytes(call, comm.nranks), streams, planned.islandSteps);
  if (!inlineRun) run.planOwner = planned.plan;
  return launch(comm, std::move(run), streams, inlineRun);
}

Status runPointToPoint(hetcclComm& comm, const std::vector<PointToPointCall>& calls, StreamList streams) {
  if (takesNativePath(comm)) {
    IslandLibrary& island = *comm.setup.islandLibrary;
    recordChoice(comm, 0, "native:" + island.shortName(), 0);
    // The vendor's own group joins its calls' streams (NCCL's group semantics); the rest of a
    // hetccl group's streams are joined to the first of them, as for a native collective.
    return runNativeJoined(comm, calls.front().stream, streams, [&] { return island.runPointToPoint(calls); });
  }
  std::vector<PointToPoint> operations;
  PlanRun run;
  run.buffers.assign(kFirstUserBuffer, nullptr);
  auto overlaps = [](const PointToPointCall& a, const PointToPointCall& b) {
    const char* x = static_cast<const char*>(a.buffer);
    const char* y = static_cast<const char*>(b.buffer);
    return a.bytes > 0 && b.bytes > 0 && x < y + b.bytes && y < x + a.bytes;
  };
  for (const PointToPointCall& call : calls) {
    bool stage = false;
    if (call.isSend)
      for (const PointToPointCall& other : calls)
        if (!other.isSend && overlaps(call, other)) stage = true;
    operations.push_back(PointToPoint{call.isSend, call.peer, call.bytes, stage});
    run.buffers.push_back(static_cast<char*>(call.buffer));
  }
  run.planOwner = std::make_shared<RankPlan>(buildPointToPointPlan(operations, comm.rank, comm.nranks));
  run.plan = run.planOwner.get();
  recordChoice(comm, 0, run.plan->algorithm, 0);
  HETCCL_TRACE("point-to-point group: %s", describePlan(*run.plan).c_str());
  run.type = ElementType::Uint8;
  run.tagBase = pointToPointTagBase();
  run.execution = executionSettings(comm, comm.settings.chunkBytes);
  // Never inline: a send that waits for its receiver would block a caller that NCCL lets go
  // on to post the matching receive.
  return launch(comm, std::move(run), streams, false);
}

}  // namespace hetccl
