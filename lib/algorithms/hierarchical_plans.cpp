#include "algorithms/hierarchical_plans.h"

#include "algorithms/all_reduce_layout.h"
#include "algorithms/log_depth_cross_island.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace hetccl {

namespace {

// How the owners of a segment (one per island) all-reduce it across islands.  Direct exchange
// and the ring cut each segment into one part per island; recursive halving/doubling into a
// power of two of parts; the tree leaves it whole.  The choice sets AllReduceLayout's parts.
enum class CrossIslandMethod { DirectExchange, Ring, HalvingDoubling, Tree, DoubleTree };

// The largest power of two <= n (n >= 1).
int powerOfTwoAtMost(int n) {
  int p = 1;
  while (2 * p <= n) p *= 2;
  return p;
}

int partsPerSegment(CrossIslandMethod method, int islands) {
  switch (method) {
    case CrossIslandMethod::HalvingDoubling: return powerOfTwoAtMost(islands);
    case CrossIslandMethod::Tree: return 1;
    case CrossIslandMethod::DoubleTree: return islands > 1 ? 2 : 1;
    default: return islands;
  }
}

// The log-depth methods are written in log_depth_cross_island.cpp.
std::optional<LogDepthMethod> logDepthMethodOf(CrossIslandMethod method) {
  switch (method) {
    case CrossIslandMethod::HalvingDoubling: return LogDepthMethod::HalvingDoubling;
    case CrossIslandMethod::Tree: return LogDepthMethod::BinomialTree;
    case CrossIslandMethod::DoubleTree: return LogDepthMethod::DoubleBinaryTree;
    default: return std::nullopt;
  }
}

// The request's islands, or one island of all ranks when it names none.
const TopologyView& topologyOf(const PlanRequest& request, TopologyView& fallback) {
  if (request.topology) return *request.topology;
  fallback = TopologyView::singleIsland(request.nranks);
  return fallback;
}

// Ring reduce-scatter inside the island (member k ends owning shard k in the output).
void addIslandReduceScatter(RankPlan& plan, const PlanRequest& request, const AllReduceLayout& layout,
                            const TopologyView& topology, int rank) {
  const int island = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const int g = topology.islandSize(island);
  const auto& members = topology.members[island];
  Step step;
  if (g == 1) {
    if (!request.inPlace)
      layout.forEachAtomOfShard(kInputBuffer, island, 0, [&](const Region& a) {
        addOp(step, Op{OpKind::Copy, -1, a, Region{kOutputBuffer, a.offset, a.count}});
      });
    pushIfAny(plan, step);
    return;
  }
  const int right = members[(k + 1) % g], left = members[modRank(k - 1, g)];
  for (int s = 0; s < g - 1; ++s) {
    layout.forEachAtomOfShard(s == 0 ? kInputBuffer : kOutputBuffer, island, modRank(k - 1 - s, g),
                              [&](const Region& a) {
                                addOp(step, Op{OpKind::Send, right, a, {}});
                              });
    layout.forEachAtomOfShard(kInputBuffer, island, modRank(k - 2 - s, g), [&](const Region& a) {
      addOp(step, Op{OpKind::RecvReduce, left, a, Region{kOutputBuffer, a.offset, a.count}});
    });
    pushIfAny(plan, step);
  }
}

// The same through the island's vendor library: one reduce-scatter of equal blocks, and the
// elements left over reduced onto the last member (see IslandShards).
void addVendorIslandReduceScatter(RankPlan& plan, const PlanRequest& request, const TopologyView& topology, int rank) {
  const int g = topology.islandSize(topology.islandOf[rank]), k = topology.indexInIsland[rank];
  const size_t n = request.count, q = n / g, blocks = q * g, tail = n - blocks;
  Step step;
  addOp(step, Op{OpKind::IslandReduceScatter, -1, Region{kInputBuffer, 0, blocks}, Region{kOutputBuffer, k * q, q}});
  addOp(step, Op{OpKind::IslandReduce, g - 1, Region{kInputBuffer, blocks, tail}, Region{kOutputBuffer, blocks, tail}});
  pushIfAny(plan, step);
}

void addVendorIslandAllGather(RankPlan& plan, const PlanRequest& request, const TopologyView& topology, int rank) {
  const int g = topology.islandSize(topology.islandOf[rank]), k = topology.indexInIsland[rank];
  const size_t n = request.count, q = n / g, blocks = q * g, tail = n - blocks;
  Step step;
  addOp(step, Op{OpKind::IslandAllGather, -1, Region{kOutputBuffer, k * q, q}, Region{kOutputBuffer, 0, blocks}});
  addOp(step,
        Op{OpKind::IslandBroadcast, g - 1, Region{kOutputBuffer, blocks, tail}, Region{kOutputBuffer, blocks, tail}});
  pushIfAny(plan, step);
}

void addIslandAllGather(RankPlan& plan, const AllReduceLayout& layout, const TopologyView& topology, int rank) {
  const int island = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const int g = topology.islandSize(island);
  const auto& members = topology.members[island];
  const int right = members[(k + 1) % g], left = members[modRank(k - 1, g)];
  Step step;
  for (int s = 0; s < g - 1; ++s) {
    layout.forEachAtomOfShard(kOutputBuffer, island, modRank(k - s, g), [&](const Region& a) {
      addOp(step, Op{OpKind::Send, right, a, {}});
    });
    layout.forEachAtomOfShard(kOutputBuffer, island, modRank(k - s - 1, g), [&](const Region& a) {
      addOp(step, Op{OpKind::RecvCopy, left, {}, a});
    });
    pushIfAny(plan, step);
  }
}

// Owners of each segment of this rank's shard all-reduce it across islands, in place in the
// output: part J of every segment is finished by its owner in island J.
void addCrossIslandAllReduce(RankPlan& plan, const PlanRequest& request, const AllReduceLayout& layout,
                             const TopologyView& topology, int rank, CrossIslandMethod method) {
  const int N = topology.islandCount();
  const int J = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const std::vector<int> segments = layout.segmentsOfShard(J, k);
  Step step;
  if (method == CrossIslandMethod::Ring) {
    for (int s = 0; s < N - 1; ++s) {
      for (int i : segments) {
        addOp(step,
              Op{OpKind::Send, layout.owner((J + 1) % N, i), layout.atom(kOutputBuffer, i, modRank(J - s, N)), {}});
        Region part = layout.atom(kOutputBuffer, i, modRank(J - s - 1, N));
        addOp(step, Op{OpKind::RecvReduce, layout.owner(modRank(J - 1, N), i), part, part});
      }
      pushIfAny(plan, step);
    }
    if (request.average)
      for (int i : segments) addOp(step, Op{OpKind::Divide, -1, {}, layout.atom(kOutputBuffer, i, (J + 1) % N)});
    pushIfAny(plan, step);
    for (int s = 0; s < N - 1; ++s) {
      for (int i : segments) {
        addOp(step,
              Op{OpKind::Send, layout.owner((J + 1) % N, i), layout.atom(kOutputBuffer, i, modRank(J + 1 - s, N)), {}});
        addOp(step, Op{OpKind::RecvCopy,
                       layout.owner(modRank(J - 1, N), i),
                       {},
                       layout.atom(kOutputBuffer, i, modRank(J - s, N))});
      }
      pushIfAny(plan, step);
    }
    return;
  }
  // Direct exchange: every owner sends part t to the owner in island t and receives its own
  // part from all others into scratch slots (one step, so nothing waits in a cycle), folds
  // them in island order, then sends the finished part to every other owner.
  const size_t slotSize = layout.largestShard();
  const size_t myShardBegin = layout.shardBegin(J, k);
  auto slotRegion = [&](int island, const Region& mine) {
    int slot = island < J ? island : island - 1;
    return Region{kScratchBuffer, slot * slotSize + (mine.offset - myShardBegin), mine.count};
  };
  plan.scratchCount = std::max(plan.scratchCount, slotSize * (N - 1));
  for (int i : segments) {
    Region mine = layout.atom(kOutputBuffer, i, J);
    for (int t = 0; t < N; ++t) {
      if (t == J) continue;
      addOp(step, Op{OpKind::Send, layout.owner(t, i), layout.atom(kOutputBuffer, i, t), {}});
      addOp(step, Op{OpKind::RecvCopy, layout.owner(t, i), {}, slotRegion(t, mine)});
    }
  }
  pushIfAny(plan, step);
  for (int d = 1; d < N; ++d) {
    const int from = (J + d) % N;
    for (int i : segments) {
      Region mine = layout.atom(kOutputBuffer, i, J);
      addOp(step, Op{OpKind::Reduce, -1, slotRegion(from, mine), mine});
    }
    pushIfAny(plan, step);
  }
  if (request.average)
    for (int i : segments) addOp(step, Op{OpKind::Divide, -1, {}, layout.atom(kOutputBuffer, i, J)});
  pushIfAny(plan, step);
  for (int i : segments) {
    for (int t = 0; t < N; ++t) {
      if (t == J) continue;
      addOp(step, Op{OpKind::Send, layout.owner(t, i), layout.atom(kOutputBuffer, i, J), {}});
      addOp(step, Op{OpKind::RecvCopy, layout.owner(t, i), {}, layout.atom(kOutputBuffer, i, t)});
    }
  }
  pushIfAny(plan, step);
}

// The island phase before (reduce-scatter) or after (all-gather) the cross-island one: the
// island's vendor library where it has one, hetccl's ring otherwise.
void addIslandPhase(RankPlan& plan, const PlanRequest& request, const AllReduceLayout& layout,
                    const TopologyView& topology, int rank, bool reduceScatter) {
  const bool vendorSteps = usesVendorSteps(topology, request.vendorIslandSteps, topology.islandOf[rank]);
  if (reduceScatter && vendorSteps)
    addVendorIslandReduceScatter(plan, request, topology, rank);
  else if (reduceScatter)
    addIslandReduceScatter(plan, request, layout, topology, rank);
  else if (vendorSteps)
    addVendorIslandAllGather(plan, request, topology, rank);
  else
    addIslandAllGather(plan, layout, topology, rank);
}

RankPlan buildIslandAllReduce(const PlanRequest& request, int rank, const char* name, CrossIslandMethod method) {
  RankPlan plan = emptyPlan(request, rank, name);
  TopologyView fallback;
  const TopologyView& topology = topologyOf(request, fallback);
  AllReduceLayout layout(topology, request.count, request.vendorIslandSteps,
                         partsPerSegment(method, topology.islandCount()));
  addIslandPhase(plan, request, layout, topology, rank, true);
  if (topology.islandCount() > 1) {
    if (const std::optional<LogDepthMethod> logDepth = logDepthMethodOf(method))
      addLogDepthAcrossIslands(plan, *logDepth, request, layout, topology, rank);
    else
      addCrossIslandAllReduce(plan, request, layout, topology, rank, method);
  } else if (request.average && request.nranks > 1) {
    Step divide;
    layout.forEachAtomOfShard(kOutputBuffer, 0, topology.indexInIsland[rank], [&](const Region& a) {
      addOp(divide, Op{OpKind::Divide, -1, {}, a});
    });
    pushIfAny(plan, divide);
  }
  addIslandPhase(plan, request, layout, topology, rank, false);
  return plan;
}

// addCrossIslandAllReduce's ring as costs, run by run: each segment's part index walks
// backwards through its N parts, so the steps change cost only where addRotationChanges says.
void addCrossIslandRingShape(CostShape& shape, const PlanRequest& request, const AllReduceLayout& layout, int J,
                             int k) {
  const int N = layout.islands();
  const auto [first, last] = layout.segmentRangeOfShard(J, k);
  auto part = [&](int segment, long t) { return layout.atom(kOutputBuffer, segment, modRank(t, N)).count; };
  // One ring phase: step s sends part sendStart - s and receives part sendStart - s - 1.
  auto addPhase = [&](long sendStart, OpKind receive) {
    std::vector<long> changes;
    for (int i = first; i < last; ++i) {
      addRotationChanges(sendStart, N, layout.segmentLength(i), N - 1, &changes);
      addRotationChanges(sendStart - 1, N, layout.segmentLength(i), N - 1, &changes);
    }
    for (auto [s, steps] : runsBetween(changes, N - 1)) {
      std::vector<CostOp> ops;
      for (int i = first; i < last; ++i) {
        ops.push_back(CostOp{OpKind::Send, true, part(i, sendStart - s), 0});
        ops.push_back(CostOp{receive, true, part(i, sendStart - s - 1), 0});
      }
      shape.addRun(std::move(ops), steps, false);
    }
  };
  addPhase(J, OpKind::RecvReduce);
  if (request.average) {
    std::vector<CostOp> divide;
    for (int i = first; i < last; ++i) divide.push_back(CostOp{OpKind::Divide, false, part(i, J + 1), 0});
    shape.addRun(std::move(divide), 1, false);
  }
  addPhase(J + 1, OpKind::RecvCopy);
}

// addCrossIslandAllReduce's direct exchange as costs: the N - 1 parts a step sends or receives
// are of two sizes, so each becomes two ops with counts of how many.
void addDirectExchangeShape(CostShape& shape, const PlanRequest& request, const AllReduceLayout& layout, int J, int k) {
  const int N = layout.islands();
  const auto [first, last] = layout.segmentRangeOfShard(J, k);
  const size_t others = static_cast<size_t>(N - 1);
  auto mine = [&](int segment) { return layout.atom(kOutputBuffer, segment, J).count; };
  std::vector<CostOp> ops;
  auto addStep = [&](size_t steps) {
    shape.addRun(ops, steps, false);
    ops.clear();
  };
  // Every other island's part out, this island's part in from each of them.
  for (int i = first; i < last; ++i) {
    layout.addAtomCosts(&ops, OpKind::Send, true, i, 0, J);
    layout.addAtomCosts(&ops, OpKind::Send, true, i, J + 1, N);
    ops.push_back(CostOp{OpKind::RecvCopy, true, mine(i), 0, others});
  }
  addStep(1);
  for (int i = first; i < last; ++i) ops.push_back(CostOp{OpKind::Reduce, false, mine(i), 0});
  addStep(others);
  if (request.average) {
    for (int i = first; i < last; ++i) ops.push_back(CostOp{OpKind::Divide, false, mine(i), 0});
    addStep(1);
  }
  // The finished part out to every other island, theirs in.
  for (int i = first; i < last; ++i) {
    ops.push_back(CostOp{OpKind::Send, true, mine(i), 0, others});
    layout.addAtomCosts(&ops, OpKind::RecvCopy, true, i, 0, J);
    layout.addAtomCosts(&ops, OpKind::RecvCopy, true, i, J + 1, N);
  }
  addStep(1);
}

// addIslandReduceScatter and addIslandAllGather as costs: per step, the atoms of two shards
// (thousands of parts each when there are thousands of islands).
void addIslandRingShape(CostShape& shape, const PlanRequest& request, const AllReduceLayout& layout,
                        const TopologyView& topology, int rank, bool reduceScatter) {
  const int island = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const int g = topology.islandSize(island);
  std::vector<CostOp> ops;
  auto addShard = [&](OpKind kind, int shard) {
    const auto [first, last] = layout.segmentRangeOfShard(island, modRank(shard, g));
    for (int i = first; i < last; ++i) layout.addAtomCosts(&ops, kind, false, i, 0, layout.parts());
  };
  if (g == 1) {
    if (reduceScatter && !request.inPlace) addShard(OpKind::Copy, 0);
    shape.addRun(ops, 1, false);
    return;
  }
  for (int s = 0; s < g - 1; ++s) {
    ops.clear();
    if (reduceScatter) {
      addShard(OpKind::Send, k - 1 - s);
      addShard(OpKind::RecvReduce, k - 2 - s);
    } else {
      addShard(OpKind::Send, k - s);
      addShard(OpKind::RecvCopy, k - s - 1);
    }
    shape.addRun(ops, 1, false);
  }
}

// An island phase as costs: a vendor library's steps read off their (one-step) plan.
void addIslandPhaseShape(CostShape& shape, const PlanRequest& request, const AllReduceLayout& layout,
                         const TopologyView& topology, int rank, bool reduceScatter) {
  if (!usesVendorSteps(topology, request.vendorIslandSteps, topology.islandOf[rank])) {
    addIslandRingShape(shape, request, layout, topology, rank, reduceScatter);
    return;
  }
  RankPlan phase = emptyPlan(request, rank, "");
  addIslandPhase(phase, request, layout, topology, rank, reduceScatter);
  shape.addPlanSteps(phase, topology);
}

// buildIslandAllReduce's shape, phase by phase, with no plan built: a phase at thousands of
// islands has thousands of ops per step (one per part) or thousands of steps.  A shard cut
// into many segments (islands of many sizes) makes the ring's direct form slower than the
// plan: it is read off the plan then.
CostShape islandAllReduceShape(const PlanRequest& request, const AllReduceLayout& layout, int rank, Algorithm algorithm,
                               CrossIslandMethod method) {
  constexpr int kMaxDirectSegments = 32;
  const TopologyView& topology = *request.topology;
  const int J = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const auto [first, last] = layout.segmentRangeOfShard(J, k);
  if (topology.islandCount() == 1 || last - first > kMaxDirectSegments)
    return costShapeOfPlan(algorithm, request, rank);
  CostShape shape;
  addIslandPhaseShape(shape, request, layout, topology, rank, true);
  if (const std::optional<LogDepthMethod> logDepth = logDepthMethodOf(method))
    addLogDepthShape(shape, *logDepth, request, layout, topology, rank);
  else if (method == CrossIslandMethod::Ring)
    addCrossIslandRingShape(shape, request, layout, J, k);
  else
    addDirectExchangeShape(shape, request, layout, J, k);
  addIslandPhaseShape(shape, request, layout, topology, rank, false);
  return shape;
}

// Which member of `island` takes care of rank q's block: q itself in its own island,
// otherwise members in turn by q's position in its island.
int blockKeeper(const TopologyView& topology, int island, int q) {
  if (topology.islandOf[q] == island) return q;
  const auto& members = topology.members[island];
  return members[topology.indexInIsland[q] % members.size()];
}

// The blocks (ranks) each member of `island` keeps, ascending, indexed by the member's
// position in the island.  One pass over the ranks, not one per step.
std::vector<std::vector<int>> keptBlocksByMember(const TopologyView& topology, int island) {
  std::vector<std::vector<int>> blocks(topology.members[island].size());
  for (int q = 0; q < topology.nranks; ++q)
    blocks[topology.indexInIsland[blockKeeper(topology, island, q)]].push_back(q);
  return blocks;
}

}  // namespace

RankPlan buildHierarchicalAllReduce(const PlanRequest& request, int rank) {
  return buildIslandAllReduce(request, rank, "hier", CrossIslandMethod::DirectExchange);
}

RankPlan buildTorusAllReduce(const PlanRequest& request, int rank) {
  return buildIslandAllReduce(request, rank, "torus", CrossIslandMethod::Ring);
}

RankPlan buildHalvingDoublingAllReduce(const PlanRequest& request, int rank) {
  return buildIslandAllReduce(request, rank, "hier-rhd", CrossIslandMethod::HalvingDoubling);
}

RankPlan buildIslandTreeAllReduce(const PlanRequest& request, int rank) {
  return buildIslandAllReduce(request, rank, "hier-tree", CrossIslandMethod::Tree);
}

RankPlan buildDoubleTreeAllReduce(const PlanRequest& request, int rank) {
  return buildIslandAllReduce(request, rank, "hier-dbtree", CrossIslandMethod::DoubleTree);
}

std::vector<CostShape> islandAllReduceShapes(Algorithm algorithm, const PlanRequest& request,
                                             const std::vector<int>& ranks) {
  CrossIslandMethod method = CrossIslandMethod::DirectExchange;
  switch (algorithm) {
    case Algorithm::Torus: method = CrossIslandMethod::Ring; break;
    case Algorithm::HierarchicalHalving: method = CrossIslandMethod::HalvingDoubling; break;
    case Algorithm::HierarchicalTree: method = CrossIslandMethod::Tree; break;
    case Algorithm::HierarchicalDoubleTree: method = CrossIslandMethod::DoubleTree; break;
    default: break;
  }
  TopologyView fallback;
  PlanRequest withTopology = request;
  withTopology.topology = &topologyOf(request, fallback);
  // One layout for all the ranks: it is O(islands) to make.
  const AllReduceLayout layout(*withTopology.topology, request.count, request.vendorIslandSteps,
                               partsPerSegment(method, withTopology.topology->islandCount()));
  std::vector<CostShape> shapes;
  for (int rank : ranks) shapes.push_back(islandAllReduceShape(withTopology, layout, rank, algorithm, method));
  return shapes;
}

RankPlan buildHierarchicalAllGather(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "hier");
  TopologyView fallback;
  const TopologyView& topology = topologyOf(request, fallback);
  const size_t c = request.count;
  const int J = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const auto& members = topology.members[J];
  const int g = static_cast<int>(members.size());
  const std::vector<std::vector<int>> kept = keptBlocksByMember(topology, J);
  Step step;
  if (!request.inPlace)
    addOp(step, Op{OpKind::Copy, -1, Region{kInputBuffer, 0, c}, fixedBlock(kOutputBuffer, c, rank)});
  for (int island = 0; island < topology.islandCount(); ++island)
    if (island != J) addOp(step, Op{OpKind::Send, blockKeeper(topology, island, rank), Region{kInputBuffer, 0, c}, {}});
  for (int q : kept[k])
    if (q != rank) addOp(step, Op{OpKind::RecvCopy, q, {}, fixedBlock(kOutputBuffer, c, q)});
  pushIfAny(plan, step);
  const int right = members[(k + 1) % g], left = members[modRank(k - 1, g)];
  for (int s = 0; s < g - 1; ++s) {
    for (int q : kept[modRank(k - s, g)]) addOp(step, Op{OpKind::Send, right, fixedBlock(kOutputBuffer, c, q), {}});
    for (int q : kept[modRank(k - s - 1, g)])
      addOp(step, Op{OpKind::RecvCopy, left, {}, fixedBlock(kOutputBuffer, c, q)});
    pushIfAny(plan, step);
  }
  return plan;
}

RankPlan buildHierarchicalReduceScatter(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "hier");
  TopologyView fallback;
  const TopologyView& topology = topologyOf(request, fallback);
  const size_t c = request.count;
  const int p = request.nranks, N = topology.islandCount();
  const int J = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const auto& members = topology.members[J];
  const int g = static_cast<int>(members.size());
  const std::vector<std::vector<int>> kept = keptBlocksByMember(topology, J);
  // Scratch: island partials at the input's offsets, then one receive slot per other island.
  const size_t slotsBase = g > 1 ? c * p : 0;
  plan.scratchCount = slotsBase + c * (N - 1);
  const int partialBuffer = g > 1 ? kScratchBuffer : kInputBuffer;
  Step step;
  const int right = members[(k + 1) % g], left = members[modRank(k - 1, g)];
  for (int s = 0; s < g - 1; ++s) {
    for (int q : kept[modRank(k - 1 - s, g)])
      addOp(step, Op{OpKind::Send, right, fixedBlock(s == 0 ? kInputBuffer : kScratchBuffer, c, q), {}});
    for (int q : kept[modRank(k - 2 - s, g)])
      addOp(step, Op{OpKind::RecvReduce, left, fixedBlock(kInputBuffer, c, q), fixedBlock(kScratchBuffer, c, q)});
    pushIfAny(plan, step);
  }
  // Island partials of other islands' blocks go to their ranks; this rank's own block
  // gathers the partials of every other island into its slots.
  for (int q : kept[k])
    if (topology.islandOf[q] != J) addOp(step, Op{OpKind::Send, q, fixedBlock(partialBuffer, c, q), {}});
  auto slot = [&](int island) {
    int index = island < J ? island : island - 1;
    return Region{kScratchBuffer, slotsBase + index * c, c};
  };
  for (int island = 0; island < N; ++island)
    if (island != J) addOp(step, Op{OpKind::RecvCopy, blockKeeper(topology, island, rank), {}, slot(island)});
  const Region output{kOutputBuffer, 0, c};
  const Region myPartial = fixedBlock(partialBuffer, c, rank);
  // Start the output from this island's partial (unless it is already there, in place).
  bool partialIsOutput = request.inPlace && partialBuffer == kInputBuffer;
  if (!partialIsOutput) addOp(step, Op{OpKind::Copy, -1, myPartial, output});
  pushIfAny(plan, step);
  for (int d = 1; d < N; ++d) {
    addOp(step, Op{OpKind::Reduce, -1, slot((J + d) % N), output});
    pushIfAny(plan, step);
  }
  if (request.average && p > 1) addOp(step, Op{OpKind::Divide, -1, {}, output});
  pushIfAny(plan, step);
  return plan;
}

RankPlan buildHierarchicalBroadcast(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "hier");
  TopologyView fallback;
  const TopologyView& topology = topologyOf(request, fallback);
  const size_t n = request.count;
  const int N = topology.islandCount();
  const int rootIsland = topology.islandOf[request.root];
  const int J = topology.islandOf[rank];
  auto leader = [&](int island) { return island == rootIsland ? request.root : topology.members[island][0]; };
  // The island's chain starts at its leader and follows member order around.
  const auto& members = topology.members[J];
  const int g = static_cast<int>(members.size());
  const int leaderIndex = topology.indexInIsland[leader(J)];
  const int position = modRank(topology.indexInIsland[rank] - leaderIndex, g);
  const int islandNext = position + 1 < g ? members[(topology.indexInIsland[rank] + 1) % g] : -1;
  const int islandPrevious = members[modRank(topology.indexInIsland[rank] - 1, g)];
  const int hop = modRank(J - rootIsland, N);  // this island's place in the leaders' chain
  const Region input{kInputBuffer, 0, n}, output{kOutputBuffer, 0, n};
  Step step;
  bool isLeader = rank == leader(J);
  if (usesVendorSteps(topology, request.vendorIslandSteps, J)) {
    // The leaders' chain first, then one vendor broadcast from the leader inside the island.
    if (rank == request.root && N > 1) addOp(step, Op{OpKind::Send, leader((J + 1) % N), input, {}});
    pushIfAny(plan, step);
    if (isLeader && rank != request.root) {
      addOp(step, Op{OpKind::RecvCopy, leader(modRank(J - 1, N)), {}, output});
      pushIfAny(plan, step);
      if (hop + 1 < N) addOp(step, Op{OpKind::Send, leader((J + 1) % N), output, {}});
      pushIfAny(plan, step);
    }
    addOp(step, Op{OpKind::IslandBroadcast, leaderIndex, rank == request.root ? input : output, output});
    pushIfAny(plan, step);
    return plan;
  }
  if (rank == request.root) {
    if (!request.inPlace) addOp(step, Op{OpKind::Copy, -1, input, output});
    if (N > 1) addOp(step, Op{OpKind::Send, leader((J + 1) % N), input, {}});
    if (islandNext >= 0) addOp(step, Op{OpKind::Send, islandNext, input, {}});
    pushIfAny(plan, step);
    return plan;
  }
  addOp(step, Op{OpKind::RecvCopy, isLeader ? leader(modRank(J - 1, N)) : islandPrevious, {}, output});
  pushIfAny(plan, step);
  if (isLeader && hop + 1 < N) addOp(step, Op{OpKind::Send, leader((J + 1) % N), output, {}});
  if (islandNext >= 0) addOp(step, Op{OpKind::Send, islandNext, output, {}});
  pushIfAny(plan, step);
  return plan;
}

}  // namespace hetccl
