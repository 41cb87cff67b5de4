// The table of algorithms: one descriptor per row of algorithm_list.h (id, name, the
// collectives and island layouts it applies to, its role for the tuner, its writer), and the
// entry points that read it.  Everything that iterates algorithms goes through
// allAlgorithms() and these: the tuner, the cost model, hetccl-sim and the tests.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "algorithms/algorithm_names.h"
#include "algorithms/algorithm_writer.h"
#include "algorithms/plan.h"

namespace hetccl {

using CollectiveSet = uint32_t;  // bit c: Collective c
constexpr CollectiveSet collectivesOf(std::initializer_list<Collective> collectives) {
  CollectiveSet set = 0;
  for (Collective c : collectives) set |= CollectiveSet{1} << static_cast<int>(c);
  return set;
}
template <typename... C>
constexpr CollectiveSet collectivesOf(C... collectives) {
  return collectivesOf({collectives...});
}
constexpr CollectiveSet kEveryCollective = ~CollectiveSet{0};
constexpr CollectiveSet kAllReduceOnly = collectivesOf(Collective::AllReduce);
constexpr CollectiveSet kHierCollectives =
    collectivesOf(Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast);
// Not broadcast: a binomial tree's root sends its buffer up to log2 p times a call, and in a
// loop of broadcasts that, not the chain's depth, sets the pace (docs/PERFORMANCE.md).
constexpr CollectiveSet kSmallCollectives =
    collectivesOf(Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter);

// Which island layouts an algorithm runs on.
enum class AlgorithmLayouts {
  AnyIslands,
  EqualIslands,  // islands of one size (the torus' columns)
  OneIsland,     // the island library's communicators
};

// How the tuner uses an algorithm.
enum class AlgorithmRole {
  Flat,           // a candidate everywhere
  IslandAware,    // a candidate with several islands: on one it is the ring again
  IslandLibrary,  // the vendor library (with host islands, the flat plan): only when forced
};

struct AlgorithmDescriptor {
  Algorithm id;
  const char* name;
  CollectiveSet collectives;
  AlgorithmLayouts layouts;
  AlgorithmRole role;
  const AlgorithmWriter* writer;
};

const AlgorithmDescriptor& descriptorOf(Algorithm algorithm);

// Whether `algorithm` can run `collective` on `topology`; if not, *reason says why.
bool algorithmApplies(Algorithm algorithm, Collective collective, const TopologyView& topology, std::string* reason);

// The plan of `rank`.  The algorithm must apply (see algorithmApplies).  A request with island
// slices is cut into them where the algorithm can be (island_slices.h), else built whole.
RankPlan buildPlan(Algorithm algorithm, const PlanRequest& request, int rank);

}  // namespace hetccl
