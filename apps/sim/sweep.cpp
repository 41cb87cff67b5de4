#include "sim/sweep.h"

#include <algorithm>
#include <cassert>

#include "algorithms/accumulation.h"
#include "perf/collective_shape.h"

namespace hetccl_sim {

namespace {

// Collectives whose count is per rank (nccl-tests' size is then count * nranks elements).
bool countIsPerRank(hetccl::Collective collective) {
  return collective == hetccl::Collective::AllGather || collective == hetccl::Collective::ReduceScatter ||
         collective == hetccl::Collective::AlltoAll;
}

}  // namespace

hetccl_perf::Collective perfCollective(hetccl::Collective collective) {
  hetccl_perf::Collective same = hetccl_perf::Collective::AllReduce;
  const bool known = hetccl_perf::parseCollective(hetccl::collectiveName(collective), &same);
  assert(known && "a library collective hetccl-perf has no name for");
  (void)known;
  return same;
}

std::vector<SizePrediction> predictSweep(const hetccl::TopologyView& topology, const std::vector<FormedIsland>& islands,
                                         const hetccl::CostParameters& costs, const hetccl::TunerSettings& tuning,
                                         hetccl::Collective collective, size_t elementSize,
                                         const std::vector<size_t>& sizes, bool accumulate) {
  hetccl::Tuner tuner(topology, costs, tuning);
  const size_t ranksPerCount = countIsPerRank(collective) ? static_cast<size_t>(topology.nranks) : 1;
  const double factor = hetccl_perf::busBandwidthFactor(perfCollective(collective), topology.nranks);
  std::vector<SizePrediction> rows;
  for (size_t size : sizes) {
    SizePrediction row;
    row.count = std::max<size_t>(1, size / (elementSize * ranksPerCount));
    row.bytes = row.count * elementSize * ranksPerCount;
    if (!rows.empty() && rows.back().count == row.count) continue;
    hetccl::PlanRequest request;
    request.collective = collective;
    request.count = row.count;
    request.nranks = topology.nranks;
    request.topology = &topology;
    // As the tuner prices a call (in place: Tuner::choose), so that --explain replays what was
    // chosen; an fp32-accumulated one is priced out of place in the library too.
    request.inPlace = !accumulate;
    const double bytes = static_cast<double>(row.bytes);
    std::vector<hetccl::TuningChoice> ranked;
    hetccl::PlanRequest explained = request;  // what the breakdown replays
    size_t explainedSize = elementSize;
    if (accumulate) {
      for (hetccl::Algorithm algorithm : hetccl::allAlgorithms())
        if (hetccl::algorithmApplies(algorithm, collective, topology, nullptr)) {
          const hetccl::AccumulatedChoice priced = tuner.priceAccumulated(algorithm, request, elementSize);
          ranked.push_back({algorithm, priced.reduce.chunkBytes, priced.predictedSeconds});
        }
      const hetccl::AccumulatedChoice picked = tuner.chooseAccumulated(request, elementSize);
      row.pick = {picked.algorithm, picked.reduce.chunkBytes, picked.predictedSeconds, picked.reduce.islandSlices};
      explained = hetccl::accumulationReduceRequest(request, picked.split);
      explainedSize = sizeof(float);
    } else {
      ranked = tuner.rank(request, elementSize);
      row.pick = tuner.choose(request, elementSize);
    }
    for (hetccl::Algorithm algorithm : hetccl::allAlgorithms()) {
      AlgorithmPrediction prediction;
      prediction.algorithm = algorithm;
      for (const hetccl::TuningChoice& choice : ranked)
        if (choice.algorithm == algorithm) {
          prediction.applies = true;
          prediction.choice = choice;
          prediction.busBandwidth = bytes / choice.predictedSeconds * factor;
        }
      row.algorithms.push_back(prediction);
    }
    row.pickBusBandwidth = bytes / row.pick.predictedSeconds * factor;
    explained.islandSlices = row.pick.islandSlices;
    row.pickBreakdown = hetccl::explainSeconds(
        hetccl::CostQuery{row.pick.algorithm, explained, explainedSize, row.pick.chunkBytes, tuning.pipelineDepth},
        costs);
    if (collective == hetccl::Collective::AllReduce) {
      row.hasBound = true;
      row.bound = allReduceBound(islands, costs, bytes);
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace hetccl_sim
