#include "algorithms/cost_model.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "algorithms/chunking.h"

namespace hetccl {

namespace {

std::vector<int> sampledRanks(const TopologyView& topology) {
  if (topology.nranks <= 64) {
    std::vector<int> all(topology.nranks);
    for (int r = 0; r < topology.nranks; ++r) all[r] = r;
    return all;
  }
  std::set<int> sample;
  for (const auto& island : topology.members) {
    sample.insert(island.front());
    sample.insert(island[island.size() / 2]);
    sample.insert(island.back());
  }
  return std::vector<int>(sample.begin(), sample.end());
}

// Seconds one rank spends on one chunk-sized step.
double stepSeconds(const std::vector<Op>& ops, int rank, const TopologyView& topology, size_t elementSize,
                   const CostParameters& parameters) {
  double sent[2] = {0, 0}, received[2] = {0, 0};
  bool sends[2] = {false, false}, receives[2] = {false, false};
  double reduced = 0, copied = 0;
  for (const Op& op : ops) {
    double bytes = static_cast<double>((op.kind == OpKind::Send ? op.src.count : op.dst.count) * elementSize);
    int linkClass = (op.peer >= 0 && topology.islandOf[op.peer] != topology.islandOf[rank]) ? 1 : 0;
    switch (op.kind) {
      case OpKind::Send: sent[linkClass] += bytes; sends[linkClass] = true; break;
      case OpKind::RecvCopy: received[linkClass] += bytes; receives[linkClass] = true; break;
      case OpKind::RecvReduce: received[linkClass] += bytes; receives[linkClass] = true; reduced += bytes; break;
      case OpKind::Reduce: reduced += bytes; break;
      case OpKind::Copy: copied += bytes; break;
      case OpKind::Divide: copied += bytes; break;
    }
  }
  const LinkCost* links[2] = {&parameters.intraIsland, &parameters.interIsland};
  double network = 0;
  for (int c = 0; c < 2; ++c) {
    if (sends[c]) network = std::max(network, links[c]->alpha + sent[c] * links[c]->beta);
    if (receives[c]) network = std::max(network, links[c]->alpha + received[c] * links[c]->beta);
  }
  return parameters.stepOverhead + network + reduced * parameters.gamma + copied * parameters.copyBeta;
}

}  // namespace

double predictSeconds(const CostQuery& query, const CostParameters& parameters) {
  const TopologyView& topology = *query.request.topology;
  const size_t chunkElements = std::max<size_t>(1, query.chunkBytes / query.elementSize);
  std::vector<RankPlan> plans;
  size_t pipelines = 0;
  for (int rank : sampledRanks(topology)) {
    plans.push_back(buildPlan(query.algorithm, query.request, rank));
    pipelines = std::max(pipelines, pipelineCount(plans.back(), chunkElements));
  }
  if (pipelines == 0) return parameters.stepOverhead;
  // Step times of the first (full-size) pipeline; later pipelines are the same or smaller.
  size_t steps = 0;
  for (const RankPlan& plan : plans) steps = std::max(steps, plan.steps.size());
  std::vector<double> stepTime(steps, 0.0);
  std::vector<Op> ops;
  for (const RankPlan& plan : plans)
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      sliceStep(plan.steps[s], 0, chunkElements, &ops);
      if (ops.empty()) continue;
      stepTime[s] = std::max(stepTime[s], stepSeconds(ops, plan.rank, topology, query.elementSize, parameters));
    }
  double latency = 0, slowest = 0;
  for (double t : stepTime) {
    latency += t;
    slowest = std::max(slowest, t);
  }
  const double depth = std::max(1, std::min<int>(query.pipelineDepth, static_cast<int>(pipelines)));
  const double m = static_cast<double>(pipelines);
  return std::max(std::ceil(m / depth) * latency, m * slowest + latency - slowest);
}

}  // namespace hetccl
