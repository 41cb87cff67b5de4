// fp32 accumulation at run time (HETCCL_ACCUMULATE=float32, config.accumulate): a float16 or
// bfloat16 all-reduce or reduce-scatter whose sum (or average) is accumulated in float32 and
// rounded once.  algorithms/accumulation.h says which plans it runs and why; here they are
// chosen (Tuner::chooseAccumulated), built, cached, and run in one operation of the engine:
//   widen the input into float32 scratch -> the float32 plan -> round into the narrow type
//   -> (split all-reduce) the narrow all-gather -> (padded) copy out.
// Every rank must run with the same HETCCL_ACCUMULATE, as with HETCCL_ALGO.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "algorithms/plan.h"
#include "algorithms/tuner.h"
#include "base/setting_modes.h"
#include "runtime/device_buffer.h"
#include "runtime/executor.h"

namespace hetccl {

// Whether such a call accumulates in float32 under `mode`: float16 or bfloat16, sum or
// average, all-reduce or reduce-scatter.  Everything else runs as it always does.
bool accumulatesInFloat32(AccumulateMode mode, Collective collective, ElementType type, ReduceOp op);

// An accumulated call's plans, built once per call shape; queued runs share them.
struct AccumulatedPlans {
  AccumulatedChoice choice;
  std::shared_ptr<const RankPlan> reduce;  // float32
  std::shared_ptr<const RankPlan> gather;  // narrow; null unless choice.split
  Collective collective = Collective::AllReduce;
  size_t count = 0;        // the call's (per rank for a reduce-scatter)
  size_t block = 0;        // each rank's block of the float32 reduce-scatter
  size_t bufferCount = 0;  // float32 elements widened
  std::string label;       // what hetcclCommGetAlgorithm reports: "ring+fp32", "hier+nccl+fp32"
};

// `request` is the call's own (its collective, count, average, topology); `islandLibrary` the
// short name of the rank's island library ("" without one), for the label.
std::shared_ptr<const AccumulatedPlans> buildAccumulatedPlans(Tuner& tuner, const PlanRequest& request,
                                                              size_t narrowSize, int rank,
                                                              const std::string& islandLibrary);

// Plans by call shape, bounded as PlanCache is.  Used on the calling thread only.
class AccumulatedPlanCache {
 public:
  static constexpr size_t kCapacity = 256;
  std::shared_ptr<const AccumulatedPlans> find(const PlanRequest& request, size_t narrowSize) const;
  void insert(const PlanRequest& request, size_t narrowSize, std::shared_ptr<const AccumulatedPlans> plans);

 private:
  using Key = std::tuple<int, size_t, size_t, bool, bool>;
  static Key keyOf(const PlanRequest& request, size_t narrowSize);
  std::map<Key, std::shared_ptr<const AccumulatedPlans>> entries_;
};

// One accumulated run on `executor`, its float32 buffer and the plans' scratch in `scratch`.
// The float32 phase uses tags from reduceTag, the all-gather from gatherTag (two blocks: a
// rank may start gathering while a slower peer still receives its reduce-scatter).
struct AccumulatedRun {
  const char* send = nullptr;
  char* recv = nullptr;
  ElementType type = ElementType::Bfloat16;
  ReduceOp op = ReduceOp::Sum;
  int rank = 0;
  int reduceTag = 0;
  int gatherTag = 0;
  ExecutionSettings reduceSettings;
  ExecutionSettings gatherSettings;
};
Status runAccumulated(const AccumulatedPlans& plans, const AccumulatedRun& run, Executor& executor,
                      DeviceBuffer& scratch);

}  // namespace hetccl
