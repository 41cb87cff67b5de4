#include "algorithms/algorithm.h"

#include "algorithms/island_slices.h"

namespace hetccl {

// Each row's writer is defined in its algorithm's file.
#define HETCCL_ALGORITHM(id, name, collectives, layouts, role, writer) extern const AlgorithmWriter writer;
#include "algorithms/algorithm_list.h"
#undef HETCCL_ALGORITHM

namespace {

const std::vector<AlgorithmDescriptor>& descriptors() {
  static const std::vector<AlgorithmDescriptor> table{
#define HETCCL_ALGORITHM(id, name, collectives, layouts, role, writer) \
  {Algorithm::id, name, collectives, AlgorithmLayouts::layouts, AlgorithmRole::role, &writer},
#include "algorithms/algorithm_list.h"
#undef HETCCL_ALGORITHM
  };
  return table;
}

}  // namespace

const AlgorithmDescriptor& descriptorOf(Algorithm algorithm) {
  for (const AlgorithmDescriptor& row : descriptors())
    if (row.id == algorithm) return row;
  return descriptors().front();  // unreachable: every Algorithm is a row
}

bool algorithmApplies(Algorithm algorithm, Collective collective, const TopologyView& topology, std::string* reason) {
  auto no = [&](const std::string& why) {
    if (reason) *reason = why;
    return false;
  };
  const AlgorithmDescriptor& row = descriptorOf(algorithm);
  const std::string name = row.name;
  if (!(row.collectives & collectivesOf(collective)))
    return no(name + " has no " + collectiveName(collective) + " plan");
  switch (row.layouts) {
    case AlgorithmLayouts::AnyIslands: return true;
    case AlgorithmLayouts::EqualIslands:
      if (!topology.equalIslands())
        return no(name + " needs islands of equal size (this communicator has " + topology.describe() + ")");
      return true;
    case AlgorithmLayouts::OneIsland:
      if (topology.islandCount() != 1)
        return no(name + " needs a single-island communicator (this one has " + std::to_string(topology.islandCount()) +
                  " islands: " + topology.describe() + ")");
      return true;
  }
  return no("unknown layouts");
}

RankPlan buildPlan(Algorithm algorithm, const PlanRequest& request, int rank) {
  if (request.islandSlices > 1 && slicesIslandSteps(algorithm, request))
    return buildSlicedPlan(algorithm, request, rank);
  return descriptorOf(algorithm).writer->plan(request, rank);
}

}  // namespace hetccl
