#include "core/accumulation.h"

#include <algorithm>

#include "algorithms/accumulation.h"

namespace hetccl {

namespace {

// Sub-buffers of the scratch start on this boundary (the GPU kernels' vector loads want 16).
constexpr size_t kAlignment = 256;
size_t aligned(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

bool accumulatesInFloat32(AccumulateMode mode, Collective collective, ElementType type, ReduceOp op) {
  return mode == AccumulateMode::Float32 && accumulates(collective) &&
         (type == ElementType::Float16 || type == ElementType::Bfloat16) &&
         (op == ReduceOp::Sum || op == ReduceOp::Avg);
}

std::shared_ptr<const AccumulatedPlans> buildAccumulatedPlans(Tuner& tuner, const PlanRequest& request,
                                                              size_t narrowSize, int rank,
                                                              const std::string& islandLibrary) {
  auto plans = std::make_shared<AccumulatedPlans>();
  plans->choice = tuner.chooseAccumulated(request, narrowSize);
  plans->collective = request.collective;
  plans->count = request.count;
  plans->block = accumulationBlock(request);
  plans->bufferCount = accumulationBufferCount(request, plans->choice.split);
  PlanRequest reduce = accumulationReduceRequest(request, plans->choice.split);
  reduce.vendorIslandSteps = vendorReducesAsHetccl(ElementType::Float32, ReduceOp::Sum);
  reduce.islandSlices = plans->choice.reduce.islandSlices;
  plans->reduce = std::make_shared<RankPlan>(buildPlan(plans->choice.algorithm, reduce, rank));
  bool islandSteps = false;
  for (const Step& step : plans->reduce->steps) islandSteps = islandSteps || isIslandStep(step);
  if (plans->choice.split)
    plans->gather =
        std::make_shared<RankPlan>(buildPlan(plans->choice.algorithm, accumulationGatherRequest(request), rank));
  plans->label = plans->reduce->algorithm + (islandSteps ? "+" + islandLibrary : std::string()) + "+fp32";
  return plans;
}

AccumulatedPlanCache::Key AccumulatedPlanCache::keyOf(const PlanRequest& request, size_t narrowSize) {
  return Key{static_cast<int>(request.collective), request.count, narrowSize, request.average,
             request.vendorIslandSteps};
}

std::shared_ptr<const AccumulatedPlans> AccumulatedPlanCache::find(const PlanRequest& request,
                                                                   size_t narrowSize) const {
  auto it = entries_.find(keyOf(request, narrowSize));
  return it == entries_.end() ? nullptr : it->second;
}

void AccumulatedPlanCache::insert(const PlanRequest& request, size_t narrowSize,
                                  std::shared_ptr<const AccumulatedPlans> plans) {
  if (entries_.size() >= kCapacity) entries_.clear();
  entries_[keyOf(request, narrowSize)] = std::move(plans);
}

Status runAccumulated(const AccumulatedPlans& plans, const AccumulatedRun& run, Executor& executor,
                      DeviceBuffer& scratch) {
  if (plans.count == 0) return Status::ok();
  const size_t narrow = elementSize(run.type);
  const size_t wide = sizeof(float);
  const bool allReduce = plans.collective == Collective::AllReduce;
  // A split all-reduce whose count is not a multiple of the rank count gathers into a padded
  // narrow buffer and copies the count out; otherwise straight into the caller's.
  const bool padded = plans.choice.split && plans.bufferCount != plans.count;
  const size_t wideBytes = aligned(plans.bufferCount * wide);
  const size_t gatheredBytes = padded ? aligned(plans.bufferCount * narrow) : 0;
  size_t planScratch = plans.reduce->scratchCount * wide;
  if (plans.gather) planScratch = std::max(planScratch, plans.gather->scratchCount * narrow);
  HETCCL_TRY(scratch.ensure(wideBytes + gatheredBytes + planScratch));
  char* widened = scratch.data();
  char* gathered = padded ? widened + wideBytes : run.recv;
  char* planSpace = widened + wideBytes + gatheredBytes;

  // All of the input: the call's count, or every rank's block of a reduce-scatter.  The
  // padding at the end of a split all-reduce's buffer is reduced with the rest but never read
  // back, so it is left as it is.
  const size_t inputCount = allReduce ? plans.count : plans.count * size_t(plans.reduce->nranks);
  HETCCL_TRY(executor.convert(widened, ElementType::Float32, run.send, run.type, inputCount));

  const bool scatters = !allReduce || plans.choice.split;
  char* ownBlock = widened + (scatters ? size_t(run.rank) * plans.block * wide : 0);
  const PlanBuffers reduceBuffers{widened, ownBlock, planSpace};
  HETCCL_TRY(
      executor.run(*plans.reduce, reduceBuffers, ElementType::Float32, run.op, run.reduceTag, run.reduceSettings));
  if (!plans.choice.split) {
    // A reduce-scatter's block, or a whole all-reduce's result: rounded once, into place.
    return executor.convert(run.recv, run.type, ownBlock, ElementType::Float32, scatters ? plans.block : plans.count);
  }
  char* ownGathered = gathered + size_t(run.rank) * plans.block * narrow;
  HETCCL_TRY(executor.convert(ownGathered, run.type, ownBlock, ElementType::Float32, plans.block));
  const PlanBuffers gatherBuffers{ownGathered, gathered, planSpace};
  HETCCL_TRY(executor.run(*plans.gather, gatherBuffers, run.type, ReduceOp::Sum, run.gatherTag, run.gatherSettings));
  if (padded) HETCCL_TRY(executor.copy(run.recv, gathered, plans.count * narrow));
  return Status::ok();
}

}  // namespace hetccl
