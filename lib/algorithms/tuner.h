// The tuner: for each operation, the algorithm and chunk size with the lowest predicted time
// (cost_model.h), among the algorithms that apply to the collective and the islands.
// HETCCL_ALGO forces one; forcing one the topology cannot run (torus on unequal islands,
// native on several islands) fails communicator creation.  Decisions are cached per
// (collective, count, element size, root, in-place, average), at most kCacheCapacity of them:
// a job that keeps changing its counts (variable-length batches) must not grow it forever.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/cost_model.h"
#include "base/status.h"

namespace hetccl {

// What the tuner is told by the communicator's settings (or hetccl-sim's command line).
struct TunerSettings {
  std::optional<Algorithm> forced;   // empty: the tuner chooses
  std::string forcedBy = "default";  // "HETCCL_ALGO" or "config.algorithm", for messages
  size_t chunkBytes = size_t{1} << 20;
  bool chunkBytesSet = false;  // set by the user: kept instead of tuned
  int pipelineDepth = 4;
  int islandSlices = 0;  // HETCCL_ISLAND_SLICES: 0 = tuned, 1 = island steps whole
};

struct TuningChoice {
  Algorithm algorithm = Algorithm::Ring;
  size_t chunkBytes = 0;
  double predictedSeconds = 0;
  int islandSlices = 1;  // PlanRequest::islandSlices for the plan (island_slices.h)
};

// An fp32-accumulated all-reduce or reduce-scatter (algorithms/accumulation.h): one algorithm
// for its float32 phase and, when split, its narrow all-gather, each with its own chunk size.
struct AccumulatedChoice {
  Algorithm algorithm = Algorithm::Ring;
  bool split = false;
  TuningChoice reduce;          // the float32 reduce-scatter or all-reduce
  TuningChoice gather;          // the narrow all-gather (split only)
  double predictedSeconds = 0;  // both phases and the conversions
};

class Tuner {
 public:
  static constexpr size_t kCacheCapacity = 1024;

  Tuner() = default;
  Tuner(const TopologyView& topology, const CostParameters& costs, const TunerSettings& settings);
  // Checks that a forced algorithm can run on this topology at all.
  Status validate() const;
  // The same choice on every rank of a call: priced in place, whatever `request.inPlace` says
  // (tuner.cpp, pricedRequest).
  TuningChoice choose(const PlanRequest& request, size_t elementSize);
  // Predictions of every applicable algorithm at its best chunk size, priced as choose()
  // prices, for tools.  A choose() of the same request right after reuses them rather than
  // predicting again.
  std::vector<TuningChoice> rank(const PlanRequest& request, size_t elementSize) const;
  size_t cachedChoices() const { return cache_.size(); }
  // The cheapest way to run `request` (of elements of `narrowSize` bytes) with fp32
  // accumulation, among the same candidates as choose(): split where the algorithm can, the
  // float32 phase priced at 4 bytes an element, plus the conversion passes.
  AccumulatedChoice chooseAccumulated(const PlanRequest& request, size_t narrowSize);
  // The same for one algorithm (hetccl-sim's columns); it must apply to request.collective.
  AccumulatedChoice priceAccumulated(Algorithm algorithm, const PlanRequest& request, size_t narrowSize) const;

 private:
  static PlanRequest pricedRequest(const PlanRequest& asked);
  using RequestKey = std::tuple<int, size_t, size_t, int, bool, bool, bool>;
  static RequestKey keyOf(const PlanRequest& request, size_t elementSize);
  TuningChoice best(Algorithm algorithm, const PlanRequest& request, size_t elementSize) const;
  std::vector<int> sliceCandidates(const CostQuery& query) const;
  std::vector<Algorithm> candidates(Collective collective) const;

  TopologyView topology_;
  CostParameters costs_;
  TunerSettings settings_;
  std::map<RequestKey, TuningChoice> cache_;
  std::map<RequestKey, AccumulatedChoice> accumulatedCache_;
  // rank()'s last answer (a pure memo: hetccl-sim ranks, then chooses, for every size; at
  // thousands of islands each prediction builds plans of thousands of ops).
  mutable std::optional<std::pair<RequestKey, std::vector<TuningChoice>>> lastRanked_;
};

}  // namespace hetccl
