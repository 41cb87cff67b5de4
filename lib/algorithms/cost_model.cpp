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

// What one rank's chunk-sized step costs: its duration, and how long it keeps each of the
// rank's serial resources busy (egress and ingress per link class, the device).
struct StepCost {
  double seconds = 0;
  double busy[5] = {0, 0, 0, 0, 0};  // egress intra, egress inter, ingress intra, ingress inter, device
};

StepCost stepCost(const std::vector<Op>& ops, int rank, const TopologyView& topology, size_t elementSize,
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
  StepCost cost;
  double network = 0;
  for (int c = 0; c < 2; ++c) {
    if (sends[c]) cost.busy[c] = links[c]->alpha + sent[c] * links[c]->beta;
    if (receives[c]) cost.busy[2 + c] = links[c]->alpha + received[c] * links[c]->beta;
    network = std::max({network, cost.busy[c], cost.busy[2 + c]});
  }
  cost.busy[4] = reduced * parameters.gamma + copied * parameters.copyBeta;
  cost.seconds = parameters.stepOverhead + network + cost.busy[4];
  return cost;
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
  // Costs of the first (full-size) pipeline; later pipelines are the same or smaller.
  size_t steps = 0;
  for (const RankPlan& plan : plans) steps = std::max(steps, plan.steps.size());
  std::vector<double> stepTime(steps, 0.0);
  double busiest = 0;  // the most any one resource of any rank is busy per pipeline
  std::vector<Op> ops;
  for (const RankPlan& plan : plans) {
    double busy[5] = {0, 0, 0, 0, 0};
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      sliceStep(plan.steps[s], 0, chunkElements, &ops);
      if (ops.empty()) continue;
      StepCost cost = stepCost(ops, plan.rank, topology, query.elementSize, parameters);
      stepTime[s] = std::max(stepTime[s], cost.seconds);
      for (int r = 0; r < 5; ++r) busy[r] += cost.busy[r];
    }
    busiest = std::max({busiest, busy[0], busy[1], busy[2], busy[3], busy[4]});
  }
  double latency = 0;
  for (double t : stepTime) latency += t;
  // Either each slot's pipelines run back to back (latency bound), or the busiest resource
  // never rests once the first pipeline has filled the plan (throughput bound).
  const double depth = std::max(1, std::min<int>(query.pipelineDepth, static_cast<int>(pipelines)));
  const double m = static_cast<double>(pipelines);
  return std::max(std::ceil(m / depth) * latency, latency + (m - 1) * busiest);
}

}  // namespace hetccl
