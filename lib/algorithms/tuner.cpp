#include "algorithms/tuner.h"

#include "algorithms/accumulation.h"
#include "algorithms/island_slices.h"

namespace hetccl {

namespace {
// NCCL-like chunk sizes around the 512 KiB - 2 MiB the field uses.
const size_t kChunkCandidates[] = {size_t{256} << 10, size_t{512} << 10, size_t{1} << 20, size_t{2} << 20,
                                   size_t{4} << 20};
// How much less a plan with more island slices must be predicted to take to be preferred.
// 2 % while each slice's exchange filled and drained its pipelines alone (1.2-1.4 ms a
// boundary on emulated islands); since they overlap (island_slices.h) what the model leaves
// out is two island calls a slice, and more slices measured as fast or faster
// (docs/PERFORMANCE.md, "Slices' exchanges overlapped").
constexpr double kSliceMargin = 0.005;
}  // namespace

Tuner::Tuner(const TopologyView& topology, const CostParameters& costs, const TunerSettings& settings)
    : topology_(topology), costs_(costs), settings_(settings) {}

Status Tuner::validate() const {
  if (!settings_.forced) return Status::ok();
  std::string reason;
  if (!algorithmApplies(*settings_.forced, Collective::AllReduce, topology_, &reason))
    return HETCCL_STATUS(Code::InvalidArgument, "%s=%s cannot run here: %s", settings_.forcedBy.c_str(),
                         algorithmName(*settings_.forced), reason.c_str());
  return Status::ok();
}

std::vector<Algorithm> Tuner::candidates(Collective collective) const {
  if (settings_.forced && algorithmApplies(*settings_.forced, collective, topology_, nullptr))
    return {*settings_.forced};
  // Native is the island library; with host islands it is the flat plan, so "ring" stands
  // for it and native is only used when asked for.  Island-aware algorithms on a single
  // island are the ring again: skipped there.
  std::vector<Algorithm> result;
  for (Algorithm algorithm : allAlgorithms()) {
    const AlgorithmRole role = descriptorOf(algorithm).role;
    if (role == AlgorithmRole::IslandLibrary || (role == AlgorithmRole::IslandAware && topology_.islandCount() == 1))
      continue;
    if (algorithmApplies(algorithm, collective, topology_, nullptr)) result.push_back(algorithm);
  }
  return result;
}

// The slice counts worth pricing for `query`: 1 where the plan cannot be sliced, the forced
// count where HETCCL_ISLAND_SLICES sets one, else powers of two up to kMaxIslandSlices.
std::vector<int> Tuner::sliceCandidates(const CostQuery& query) const {
  if (!slicesIslandSteps(query.algorithm, query.request)) return {1};
  if (settings_.islandSlices > 0) return {usableIslandSlices(query.request, settings_.islandSlices)};
  std::vector<int> counts;
  for (int slices = 1; slices <= kMaxIslandSlices; slices *= 2) {
    const int usable = usableIslandSlices(query.request, slices);
    if (counts.empty() || usable != counts.back()) counts.push_back(usable);
  }
  return counts;
}

TuningChoice Tuner::best(Algorithm algorithm, const PlanRequest& request, size_t elementSize) const {
  TuningChoice choice{algorithm, settings_.chunkBytes, -1};
  CostQuery query{algorithm, request, elementSize, settings_.chunkBytes, settings_.pipelineDepth};
  query.request.topology = &topology_;
  // Slices outside, chunks inside: the cost model keeps the last few plans' summaries, and one
  // slice count is one plan for every chunk size.
  for (int slices : sliceCandidates(query)) {
    query.request.islandSlices = slices;
    for (size_t chunk : kChunkCandidates) {
      query.chunkBytes = settings_.chunkBytesSet ? settings_.chunkBytes : chunk;
      double seconds = predictSeconds(query, costs_);
      // Ties (small messages, where the chunk size does not matter) go to the smaller chunk.
      // More slices must win by kSliceMargin: each costs two island calls more than the model
      // sees.
      const double margin = slices > choice.islandSlices ? kSliceMargin : 1e-9;
      if (choice.predictedSeconds < 0 || seconds < choice.predictedSeconds * (1 - margin)) {
        choice.predictedSeconds = seconds;
        choice.chunkBytes = query.chunkBytes;
        choice.islandSlices = slices;
      }
      if (settings_.chunkBytesSet) break;
    }
  }
  return choice;
}

Tuner::RequestKey Tuner::keyOf(const PlanRequest& request, size_t elementSize) {
  return std::make_tuple(static_cast<int>(request.collective), request.count, elementSize, request.root,
                         request.inPlace, request.average, request.vendorIslandSteps);
}

// Every rank of a call must choose the same algorithm, chunk and slices, or their plans'
// messages do not match, and whether a call is in place is each rank's own choice (NCCL lets a
// broadcast's root alone pass one buffer; hetccl's hier plans call the island library so): a
// choice is priced for the call in place, whatever the rank passed.  (With each rank's own flag
// priced, a broadcast of 1048579 floats on 2 ranks took 256 KiB chunks on the root and 4 MiB
// on the other rank, and hung.)  In place rather than out of place: the model's local copy is
// dearer than this host's, and out-of-place prices chose chunks small enough to hide it, which
// ran slower (docs/PERFORMANCE.md, "The last chunk").
PlanRequest Tuner::pricedRequest(const PlanRequest& asked) {
  PlanRequest request = asked;
  request.inPlace = true;
  return request;
}

std::vector<TuningChoice> Tuner::rank(const PlanRequest& asked, size_t elementSize) const {
  const PlanRequest request = pricedRequest(asked);
  std::vector<TuningChoice> choices;
  for (Algorithm algorithm : allAlgorithms())
    if (algorithmApplies(algorithm, request.collective, topology_, nullptr))
      choices.push_back(best(algorithm, request, elementSize));
  lastRanked_.emplace(keyOf(request, elementSize), choices);
  return choices;
}

TuningChoice Tuner::choose(const PlanRequest& asked, size_t elementSize) {
  const PlanRequest request = pricedRequest(asked);
  const RequestKey key = keyOf(request, elementSize);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  // rank()'s prediction of `algorithm` for this request, when it was the last one ranked:
  // the same numbers best() would give again.
  auto ranked = [&](Algorithm algorithm) -> const TuningChoice* {
    if (!lastRanked_ || lastRanked_->first != key) return nullptr;
    for (const TuningChoice& choice : lastRanked_->second)
      if (choice.algorithm == algorithm) return &choice;
    return nullptr;
  };
  TuningChoice winner;
  winner.predictedSeconds = -1;
  for (Algorithm algorithm : candidates(request.collective)) {
    const TuningChoice* known = ranked(algorithm);
    TuningChoice choice = known ? *known : best(algorithm, request, elementSize);
    if (winner.predictedSeconds < 0 || choice.predictedSeconds < winner.predictedSeconds) winner = choice;
  }
  // Full: start over rather than track use (the choices are cheap to make again, and a
  // working set that fits stays fast after the first round).
  if (cache_.size() >= kCacheCapacity) cache_.clear();
  cache_[key] = winner;
  return winner;
}

AccumulatedChoice Tuner::priceAccumulated(Algorithm algorithm, const PlanRequest& request, size_t narrowSize) const {
  AccumulatedChoice choice;
  choice.algorithm = algorithm;
  choice.split = request.collective == Collective::AllReduce && splitsAccumulation(algorithm, topology_);
  choice.reduce = best(algorithm, accumulationReduceRequest(request, choice.split), sizeof(float));
  choice.predictedSeconds = choice.reduce.predictedSeconds;
  if (choice.split) {
    choice.gather = best(algorithm, accumulationGatherRequest(request), narrowSize);
    choice.predictedSeconds += choice.gather.predictedSeconds;
  }
  // The conversions are local passes at copy speed: the widening writes the float32 buffer, the
  // rounding reads the float32 result (a block, or all of it) and writes it narrow.
  const double widened = double(accumulationBufferCount(request, choice.split)) * sizeof(float);
  const bool roundsBlock = request.collective == Collective::ReduceScatter || choice.split;
  const double rounded = double(roundsBlock ? accumulationBlock(request) : request.count) * sizeof(float);
  choice.predictedSeconds += (widened + rounded) * costs_.copyBeta;
  return choice;
}

AccumulatedChoice Tuner::chooseAccumulated(const PlanRequest& request, size_t narrowSize) {
  const RequestKey key = keyOf(request, narrowSize);
  if (auto it = accumulatedCache_.find(key); it != accumulatedCache_.end()) return it->second;
  AccumulatedChoice winner;
  winner.predictedSeconds = -1;
  for (Algorithm algorithm : candidates(request.collective)) {
    const AccumulatedChoice choice = priceAccumulated(algorithm, request, narrowSize);
    if (winner.predictedSeconds < 0 || choice.predictedSeconds < winner.predictedSeconds) winner = choice;
  }
  if (accumulatedCache_.size() >= kCacheCapacity) accumulatedCache_.clear();
  accumulatedCache_[key] = winner;
  return winner;
}

}  // namespace hetccl
