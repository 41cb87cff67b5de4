#include "algorithms/algorithm.h"

#include "algorithms/flat_plans.h"
#include "algorithms/hierarchical_plans.h"
#include "algorithms/tree_plans.h"

namespace hetccl {

bool algorithmApplies(Algorithm algorithm, Collective collective, const TopologyView& topology, std::string* reason) {
  auto no = [&](const std::string& why) {
    if (reason) *reason = why;
    return false;
  };
  switch (algorithm) {
    case Algorithm::Ring: return true;
    case Algorithm::Native:
      if (topology.islandCount() != 1)
        return no("native needs a single-island communicator (this one has " + std::to_string(topology.islandCount()) +
                  " islands: " + topology.describe() + ")");
      return true;
    case Algorithm::Hierarchical:
      if (collective == Collective::AllReduce || collective == Collective::AllGather ||
          collective == Collective::ReduceScatter || collective == Collective::Broadcast)
        return true;
      return no(std::string("hier has no ") + collectiveName(collective) + " plan");
    case Algorithm::Torus:
      if (collective != Collective::AllReduce)
        return no(std::string("torus has no ") + collectiveName(collective) + " plan");
      if (!topology.equalIslands())
        return no("torus needs islands of equal size (this communicator has " + topology.describe() + ")");
      return true;
    case Algorithm::HierarchicalHalving:
    case Algorithm::HierarchicalTree:
    case Algorithm::HierarchicalDoubleTree:
    case Algorithm::Small:
      if (collective != Collective::AllReduce)
        return no(std::string(algorithmName(algorithm)) + " has no " + collectiveName(collective) + " plan");
      return true;
  }
  return no("unknown algorithm");
}

RankPlan buildPlan(Algorithm algorithm, const PlanRequest& request, int rank) {
  RankPlan plan;
  switch (algorithm) {
    case Algorithm::Ring:
    case Algorithm::Native: plan = buildFlatPlan(request, rank); break;
    case Algorithm::Torus: plan = buildTorusAllReduce(request, rank); break;
    case Algorithm::Small: plan = buildTreeAllReduce(request, rank); break;
    case Algorithm::HierarchicalHalving: plan = buildHalvingDoublingAllReduce(request, rank); break;
    case Algorithm::HierarchicalTree: plan = buildIslandTreeAllReduce(request, rank); break;
    case Algorithm::HierarchicalDoubleTree: plan = buildDoubleTreeAllReduce(request, rank); break;
    case Algorithm::Hierarchical:
      switch (request.collective) {
        case Collective::AllReduce: plan = buildHierarchicalAllReduce(request, rank); break;
        case Collective::AllGather: plan = buildHierarchicalAllGather(request, rank); break;
        case Collective::ReduceScatter: plan = buildHierarchicalReduceScatter(request, rank); break;
        case Collective::Broadcast: plan = buildHierarchicalBroadcast(request, rank); break;
        default: plan = buildFlatPlan(request, rank); break;
      }
      break;
  }
  if (algorithm == Algorithm::Native) plan.algorithm = "native";
  return plan;
}

}  // namespace hetccl
