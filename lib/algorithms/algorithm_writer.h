// What an algorithm's file gives its row (algorithm_list.h): the algorithm written once, as a
// function template over a writer (plan_writer.h), made into the two things the library asks
// of it: a rank's plan, and the cost shapes of some ranks' plans.
//
// An algorithm's file defines its writer as
//   struct MyWrite {
//     template <typename W> void operator()(W& w, const PlanRequest& request, const TopologyView& t, int rank) const;
//   };
//   extern const AlgorithmWriter kMyWriter = writerOf<MyWrite>();
// (`t` is request.topology, or one island of all ranks when it names none).  An algorithm that
// prepares something for all ranks at once (the island all-reduces' layout) gives its own
// `shapes` instead.
#pragma once

#include <set>
#include <vector>

#include "algorithms/cost_shape.h"
#include "algorithms/plan_writer.h"

namespace hetccl {

struct AlgorithmWriter {
  RankPlan (*plan)(const PlanRequest& request, int rank);
  std::vector<CostShape> (*shapes)(const PlanRequest& request, const std::vector<int>& ranks);
  // Optional: adds to *islands (of `islandCount`) the islands whose plans differ from the
  // others' beyond what the cost model samples anyway (cost_model.cpp, sampledIslands).
  void (*addRoleIslands)(int islandCount, std::set<int>* islands) = nullptr;
};

// The request's islands, or one island of all ranks (in *fallback) when it names none.
inline const TopologyView& topologyOf(const PlanRequest& request, TopologyView& fallback) {
  if (request.topology) return *request.topology;
  fallback = TopologyView::singleIsland(request.nranks);
  return fallback;
}

template <typename Write>
RankPlan planOf(const PlanRequest& request, int rank) {
  TopologyView fallback;
  PlanWriter writer(request, rank);
  Write{}(writer, request, topologyOf(request, fallback), rank);
  return writer.take();
}

template <typename Write>
std::vector<CostShape> shapesOf(const PlanRequest& request, const std::vector<int>& ranks) {
  TopologyView fallback;
  const TopologyView& topology = topologyOf(request, fallback);
  std::vector<CostShape> shapes;
  for (int rank : ranks) {
    ShapeWriter writer(topology, rank);
    Write{}(writer, request, topology, rank);
    shapes.push_back(writer.take());
  }
  return shapes;
}

template <typename Write>
constexpr AlgorithmWriter writerOf(void (*addRoleIslands)(int, std::set<int>*) = nullptr) {
  return AlgorithmWriter{&planOf<Write>, &shapesOf<Write>, addRoleIslands};
}

}  // namespace hetccl
