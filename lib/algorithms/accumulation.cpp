#include "algorithms/accumulation.h"

namespace hetccl {

bool accumulates(Collective collective) {
  return collective == Collective::AllReduce || collective == Collective::ReduceScatter;
}

bool splitsAccumulation(Algorithm algorithm, const TopologyView& topology) {
  // Row "small" has reduce-scatter and all-gather plans too, but its all-reduce is latency-
  // bound recursive doubling: split, it would take two phases of rounds instead of one.
  if (algorithm == Algorithm::Small) return false;
  return algorithmApplies(algorithm, Collective::ReduceScatter, topology, nullptr) &&
         algorithmApplies(algorithm, Collective::AllGather, topology, nullptr);
}

size_t accumulationBlock(const PlanRequest& request) {
  if (request.collective == Collective::ReduceScatter) return request.count;
  const size_t ranks = static_cast<size_t>(request.nranks);
  return (request.count + ranks - 1) / ranks;
}

size_t accumulationBufferCount(const PlanRequest& request, bool split) {
  if (request.collective == Collective::AllReduce && !split) return request.count;
  return accumulationBlock(request) * static_cast<size_t>(request.nranks);
}

PlanRequest accumulationReduceRequest(const PlanRequest& request, bool split) {
  PlanRequest phase = request;
  phase.inPlace = true;  // on the widened buffer
  if (request.collective == Collective::ReduceScatter || split) {
    phase.collective = Collective::ReduceScatter;
    phase.count = accumulationBlock(request);
  }
  return phase;
}

PlanRequest accumulationGatherRequest(const PlanRequest& request) {
  PlanRequest phase = request;
  phase.collective = Collective::AllGather;
  phase.count = accumulationBlock(request);
  phase.inPlace = true;
  phase.average = false;
  return phase;
}

}  // namespace hetccl
