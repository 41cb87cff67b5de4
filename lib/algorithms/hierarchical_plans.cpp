#include "algorithms/hierarchical_plans.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "algorithms/all_reduce_layout.h"
#include "algorithms/log_depth_cross_island.h"

namespace hetccl {

namespace {

// How the owners of a segment (one per island) all-reduce it across islands: one method per
// island all-reduce row.  Direct exchange and the torus' ring cut each segment into one part
// per island; recursive halving/doubling into a power of two of parts; the binomial tree
// leaves it whole, the double binary tree cuts it in two.  The choice sets AllReduceLayout's
// parts.
enum class CrossIslandMethod {
  HierDirectExchange,  // "hier": each part straight to its owner's island and back, two rounds
  TorusRing,           // "torus": a ring along the column of equal islands, 2(N - 1) rounds
  HalvingDoubling,     // "hier-rhd"  (log_depth_cross_island.h)
  BinomialTree,        // "hier-tree"
  DoubleBinaryTree,    // "hier-dbtree"
};

// The largest power of two <= n (n >= 1).
int powerOfTwoAtMost(int n) {
  int p = 1;
  while (2 * p <= n) p *= 2;
  return p;
}

int partsPerSegment(CrossIslandMethod method, int islands) {
  switch (method) {
    case CrossIslandMethod::HalvingDoubling: return powerOfTwoAtMost(islands);
    case CrossIslandMethod::BinomialTree: return 1;
    case CrossIslandMethod::DoubleBinaryTree: return islands > 1 ? 2 : 1;
    case CrossIslandMethod::HierDirectExchange:
    case CrossIslandMethod::TorusRing: return islands;
  }
  return islands;
}

// The log-depth methods are written in log_depth_cross_island.cpp.
std::optional<LogDepthMethod> logDepthMethodOf(CrossIslandMethod method) {
  switch (method) {
    case CrossIslandMethod::HalvingDoubling: return LogDepthMethod::HalvingDoubling;
    case CrossIslandMethod::BinomialTree: return LogDepthMethod::BinomialTree;
    case CrossIslandMethod::DoubleBinaryTree: return LogDepthMethod::DoubleBinaryTree;
    case CrossIslandMethod::HierDirectExchange:
    case CrossIslandMethod::TorusRing: return std::nullopt;
  }
  return std::nullopt;
}

// write(w, atom, part) for every part of every segment of shard `k` of `island`, in buffer order.
template <typename W, typename Write>
void addShardParts(W& w, const AllReduceLayout& layout, int buffer, int island, int k, Write write) {
  const auto [first, last] = layout.segmentRangeOfShard(island, k);
  for (int segment = first; segment < last; ++segment) w.addParts(layout, buffer, segment, 0, layout.parts(), write);
}

// Ring reduce-scatter inside the island (member k ends owning shard k in the output).
template <typename W>
void islandRingReduceScatter(W& w, const PlanRequest& request, const AllReduceLayout& layout,
                             const TopologyView& topology, int rank) {
  const int island = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const int g = topology.islandSize(island);
  const auto& members = topology.members[island];
  if (g == 1) {
    if (!request.inPlace)
      addShardParts(w, layout, kInputBuffer, island, 0, [](auto& to, const Region& a, int) {
        to.add(Op{OpKind::Copy, -1, a, Region{kOutputBuffer, a.offset, a.count}});
      });
    w.endStep();
    return;
  }
  const int right = members[(k + 1) % g], left = members[modRank(k - 1, g)];
  for (int s = 0; s < g - 1; ++s) {
    addShardParts(w, layout, s == 0 ? kInputBuffer : kOutputBuffer, island, modRank(k - 1 - s, g),
                  [&](auto& to, const Region& a, int) {
                    to.add(Op{OpKind::Send, right, a, {}});
                  });
    addShardParts(w, layout, kInputBuffer, island, modRank(k - 2 - s, g), [&](auto& to, const Region& a, int) {
      to.add(Op{OpKind::RecvReduce, left, a, Region{kOutputBuffer, a.offset, a.count}});
    });
    w.endStep();
  }
}

template <typename W>
void islandRingAllGather(W& w, const AllReduceLayout& layout, const TopologyView& topology, int rank) {
  const int island = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const int g = topology.islandSize(island);
  const auto& members = topology.members[island];
  const int right = members[(k + 1) % g], left = members[modRank(k - 1, g)];
  for (int s = 0; s < g - 1; ++s) {
    addShardParts(w, layout, kOutputBuffer, island, modRank(k - s, g), [&](auto& to, const Region& a, int) {
      to.add(Op{OpKind::Send, right, a, {}});
    });
    addShardParts(w, layout, kOutputBuffer, island, modRank(k - s - 1, g), [&](auto& to, const Region& a, int) {
      to.add(Op{OpKind::RecvCopy, left, {}, a});
    });
    w.endStep();
  }
}

// The same through the island's vendor library: one reduce-scatter of equal blocks, and the
// elements left over reduced onto the last member (see IslandShards).
template <typename W>
void vendorIslandReduceScatter(W& w, const PlanRequest& request, const TopologyView& topology, int rank) {
  const int g = topology.islandSize(topology.islandOf[rank]), k = topology.indexInIsland[rank];
  const size_t n = request.count, q = n / g, blocks = q * g, tail = n - blocks;
  w.add(Op{OpKind::IslandReduceScatter, -1, Region{kInputBuffer, 0, blocks}, Region{kOutputBuffer, k * q, q}});
  w.add(Op{OpKind::IslandReduce, g - 1, Region{kInputBuffer, blocks, tail}, Region{kOutputBuffer, blocks, tail}});
  w.endStep();
}

template <typename W>
void vendorIslandAllGather(W& w, const PlanRequest& request, const TopologyView& topology, int rank) {
  const int g = topology.islandSize(topology.islandOf[rank]), k = topology.indexInIsland[rank];
  const size_t n = request.count, q = n / g, blocks = q * g, tail = n - blocks;
  w.add(Op{OpKind::IslandAllGather, -1, Region{kOutputBuffer, k * q, q}, Region{kOutputBuffer, 0, blocks}});
  w.add(Op{OpKind::IslandBroadcast, g - 1, Region{kOutputBuffer, blocks, tail}, Region{kOutputBuffer, blocks, tail}});
  w.endStep();
}

// The island phase before (reduce-scatter) or after (all-gather) the cross-island one: the
// island's vendor library where it has one, hetccl's ring otherwise.
template <typename W>
void islandPhase(W& w, const PlanRequest& request, const AllReduceLayout& layout, const TopologyView& topology,
                 int rank, bool reduceScatter) {
  const bool vendorSteps = usesVendorSteps(topology, request.vendorIslandSteps, topology.islandOf[rank]);
  if (reduceScatter && vendorSteps)
    vendorIslandReduceScatter(w, request, topology, rank);
  else if (reduceScatter)
    islandRingReduceScatter(w, request, layout, topology, rank);
  else if (vendorSteps)
    vendorIslandAllGather(w, request, topology, rank);
  else
    islandRingAllGather(w, layout, topology, rank);
}

// Torus: the owners of each segment of this rank's shard (island J's) all-reduce it by a ring
// along their column, in place in the output: a reduce-scatter that leaves part J + 1 finished
// here, then an all-gather.  Each segment's part index walks backwards through its N parts,
// so the steps change cost only where addRotationChanges says.
template <typename W>
void torusRingAcrossIslands(W& w, const PlanRequest& request, const AllReduceLayout& layout, int J, int k) {
  const int N = layout.islands();
  const auto [first, last] = layout.segmentRangeOfShard(J, k);
  const int next = (J + 1) % N, previous = modRank(J - 1, N);
  // Step s sends part `sendStart` - s and receives part `sendStart` - s - 1.
  auto phase = [&](long sendStart, OpKind receive) {
    auto changes = [&](std::vector<long>* points) {
      for (int i = first; i < last; ++i) {
        addRotationChanges(sendStart, N, layout.segmentLength(i), N - 1, points);
        addRotationChanges(sendStart - 1, N, layout.segmentLength(i), N - 1, points);
      }
    };
    w.repeatSteps(N - 1, changes, [&](long s) {
      for (int i = first; i < last; ++i) {
        w.add(Op{OpKind::Send, layout.owner(next, i), layout.atom(kOutputBuffer, i, modRank(sendStart - s, N)), {}});
        const Region part = layout.atom(kOutputBuffer, i, modRank(sendStart - s - 1, N));
        w.add(Op{receive, layout.owner(previous, i), receive == OpKind::RecvReduce ? part : Region{}, part});
      }
      w.endStep();
    });
  };
  phase(J, OpKind::RecvReduce);
  if (request.average)
    for (int i = first; i < last; ++i) w.add(Op{OpKind::Divide, -1, {}, layout.atom(kOutputBuffer, i, next)});
  w.endStep();
  phase(J + 1, OpKind::RecvCopy);
}

// Hier: every owner sends part t to the owner in island t and receives its own part from all
// others into scratch slots (one step, so nothing waits in a cycle), folds them in island
// order, then sends the finished part to every other owner.
template <typename W>
void hierExchangeAcrossIslands(W& w, const PlanRequest& request, const AllReduceLayout& layout, int J, int k) {
  const int N = layout.islands();
  const auto [first, last] = layout.segmentRangeOfShard(J, k);
  const size_t slotSize = layout.largestShard();
  const size_t myShardBegin = layout.shardBegin(J, k);
  auto slotRegion = [&](int island, const Region& mine) {
    int slot = island < J ? island : island - 1;
    return Region{kScratchBuffer, slot * slotSize + (mine.offset - myShardBegin), mine.count};
  };
  // For each segment, `write` on the parts of every other island.
  auto forOtherIslands = [&](int segment, auto write) {
    w.addParts(layout, kOutputBuffer, segment, 0, J, write);
    w.addParts(layout, kOutputBuffer, segment, J + 1, N, write);
  };
  w.needScratch(slotSize * (N - 1));
  for (int i = first; i < last; ++i) {
    const Region mine = layout.atom(kOutputBuffer, i, J);
    forOtherIslands(i, [&](auto& to, const Region& theirs, int t) {
      to.add(Op{OpKind::Send, layout.owner(t, i), theirs, {}});
      to.add(Op{OpKind::RecvCopy, layout.owner(t, i), {}, slotRegion(t, mine)});
    });
  }
  w.endStep();
  w.repeatSteps(N - 1, noCostChanges, [&](long d) {
    const int from = (J + static_cast<int>(d) + 1) % N;
    for (int i = first; i < last; ++i) {
      const Region mine = layout.atom(kOutputBuffer, i, J);
      w.add(Op{OpKind::Reduce, -1, slotRegion(from, mine), mine});
    }
    w.endStep();
  });
  if (request.average)
    for (int i = first; i < last; ++i) w.add(Op{OpKind::Divide, -1, {}, layout.atom(kOutputBuffer, i, J)});
  w.endStep();
  for (int i = first; i < last; ++i) {
    const Region mine = layout.atom(kOutputBuffer, i, J);
    forOtherIslands(i, [&](auto& to, const Region& theirs, int t) {
      to.add(Op{OpKind::Send, layout.owner(t, i), mine, {}});
      to.add(Op{OpKind::RecvCopy, layout.owner(t, i), {}, theirs});
    });
  }
  w.endStep();
}

// The island all-reduces: the island phase, the owners across islands by `method`, the island
// phase back.
template <typename W>
void islandAllReduce(W& w, const PlanRequest& request, const AllReduceLayout& layout, const TopologyView& topology,
                     int rank, CrossIslandMethod method) {
  const int J = topology.islandOf[rank], k = topology.indexInIsland[rank];
  islandPhase(w, request, layout, topology, rank, true);
  if (topology.islandCount() > 1) {
    if (const std::optional<LogDepthMethod> logDepth = logDepthMethodOf(method))
      writeLogDepthAcrossIslands(w, *logDepth, request, layout, topology, rank);
    else if (method == CrossIslandMethod::TorusRing)
      torusRingAcrossIslands(w, request, layout, J, k);
    else
      hierExchangeAcrossIslands(w, request, layout, J, k);
  } else if (request.average && request.nranks > 1) {
    addShardParts(w, layout, kOutputBuffer, 0, k, [](auto& to, const Region& a, int) {
      to.add(Op{OpKind::Divide, -1, {}, a});
    });
    w.endStep();
  }
  islandPhase(w, request, layout, topology, rank, false);
}

AllReduceLayout layoutFor(const PlanRequest& request, const TopologyView& topology, CrossIslandMethod method) {
  return AllReduceLayout(topology, request.count, request.vendorIslandSteps,
                         partsPerSegment(method, topology.islandCount()));
}

template <CrossIslandMethod Method>
struct IslandAllReduceWrite {
  template <typename W>
  void operator()(W& w, const PlanRequest& request, const TopologyView& topology, int rank) const {
    w.name(nameOf(Method));
    islandAllReduce(w, request, layoutFor(request, topology, Method), topology, rank, Method);
  }
  static const char* nameOf(CrossIslandMethod method) {
    switch (method) {
      case CrossIslandMethod::HierDirectExchange: return "hier";
      case CrossIslandMethod::TorusRing: return "torus";
      case CrossIslandMethod::HalvingDoubling: return "hier-rhd";
      case CrossIslandMethod::BinomialTree: return "hier-tree";
      case CrossIslandMethod::DoubleBinaryTree: return "hier-dbtree";
    }
    return "?";
  }
};

// The shapes of `ranks`' island all-reduces, with one layout for all (it is O(islands) to
// make).  A shard cut into many segments (islands of many sizes) makes the torus' runs many:
// its plan is as quick to write, and is read instead.
template <CrossIslandMethod Method>
std::vector<CostShape> islandAllReduceShapes(const PlanRequest& request, const std::vector<int>& ranks) {
  constexpr int kMaxWrittenSegments = 32;
  TopologyView fallback;
  PlanRequest withTopology = request;
  withTopology.topology = &topologyOf(request, fallback);
  const TopologyView& topology = *withTopology.topology;
  const AllReduceLayout layout = layoutFor(request, topology, Method);
  std::vector<CostShape> shapes;
  for (int rank : ranks) {
    const auto [first, last] = layout.segmentRangeOfShard(topology.islandOf[rank], topology.indexInIsland[rank]);
    if (last - first > kMaxWrittenSegments) {
      PlanWriter plan(withTopology, rank);
      islandAllReduce(plan, withTopology, layout, topology, rank, Method);
      shapes.emplace_back().addPlanSteps(plan.take(), topology);
      continue;
    }
    ShapeWriter shape(topology, rank);
    islandAllReduce(shape, withTopology, layout, topology, rank, Method);
    shapes.push_back(shape.take());
  }
  return shapes;
}

template <CrossIslandMethod Method>
constexpr AlgorithmWriter islandAllReduceWriter(void (*addRoleIslands)(int, std::set<int>*) = nullptr) {
  return AlgorithmWriter{&planOf<IslandAllReduceWrite<Method>>, &islandAllReduceShapes<Method>, addRoleIslands};
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

template <typename W>
void hierAllGather(W& w, const PlanRequest& request, const TopologyView& topology, int rank) {
  w.name("hier");
  const size_t c = request.count;
  const int J = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const auto& members = topology.members[J];
  const int g = static_cast<int>(members.size());
  const std::vector<std::vector<int>> kept = keptBlocksByMember(topology, J);
  if (!request.inPlace) w.add(Op{OpKind::Copy, -1, Region{kInputBuffer, 0, c}, fixedBlock(kOutputBuffer, c, rank)});
  for (int island = 0; island < topology.islandCount(); ++island)
    if (island != J) w.add(Op{OpKind::Send, blockKeeper(topology, island, rank), Region{kInputBuffer, 0, c}, {}});
  for (int q : kept[k])
    if (q != rank) w.add(Op{OpKind::RecvCopy, q, {}, fixedBlock(kOutputBuffer, c, q)});
  w.endStep();
  const int right = members[(k + 1) % g], left = members[modRank(k - 1, g)];
  for (int s = 0; s < g - 1; ++s) {
    for (int q : kept[modRank(k - s, g)]) w.add(Op{OpKind::Send, right, fixedBlock(kOutputBuffer, c, q), {}});
    for (int q : kept[modRank(k - s - 1, g)]) w.add(Op{OpKind::RecvCopy, left, {}, fixedBlock(kOutputBuffer, c, q)});
    w.endStep();
  }
}

template <typename W>
void hierReduceScatter(W& w, const PlanRequest& request, const TopologyView& topology, int rank) {
  w.name("hier");
  const size_t c = request.count;
  const int p = request.nranks, N = topology.islandCount();
  const int J = topology.islandOf[rank], k = topology.indexInIsland[rank];
  const auto& members = topology.members[J];
  const int g = static_cast<int>(members.size());
  const std::vector<std::vector<int>> kept = keptBlocksByMember(topology, J);
  // Scratch: island partials at the input's offsets, then one receive slot per other island.
  const size_t slotsBase = g > 1 ? c * p : 0;
  w.needScratch(slotsBase + c * (N - 1));
  const int partialBuffer = g > 1 ? kScratchBuffer : kInputBuffer;
  const int right = members[(k + 1) % g], left = members[modRank(k - 1, g)];
  for (int s = 0; s < g - 1; ++s) {
    for (int q : kept[modRank(k - 1 - s, g)])
      w.add(Op{OpKind::Send, right, fixedBlock(s == 0 ? kInputBuffer : kScratchBuffer, c, q), {}});
    for (int q : kept[modRank(k - 2 - s, g)])
      w.add(Op{OpKind::RecvReduce, left, fixedBlock(kInputBuffer, c, q), fixedBlock(kScratchBuffer, c, q)});
    w.endStep();
  }
  // Island partials of other islands' blocks go to their ranks; this rank's own block
  // gathers the partials of every other island into its slots.
  for (int q : kept[k])
    if (topology.islandOf[q] != J) w.add(Op{OpKind::Send, q, fixedBlock(partialBuffer, c, q), {}});
  auto slot = [&](int island) {
    int index = island < J ? island : island - 1;
    return Region{kScratchBuffer, slotsBase + index * c, c};
  };
  for (int island = 0; island < N; ++island)
    if (island != J) w.add(Op{OpKind::RecvCopy, blockKeeper(topology, island, rank), {}, slot(island)});
  const Region output{kOutputBuffer, 0, c};
  const Region myPartial = fixedBlock(partialBuffer, c, rank);
  // Start the output from this island's partial (unless it is already there, in place).
  bool partialIsOutput = request.inPlace && partialBuffer == kInputBuffer;
  if (!partialIsOutput) w.add(Op{OpKind::Copy, -1, myPartial, output});
  w.endStep();
  for (int d = 1; d < N; ++d) {
    w.add(Op{OpKind::Reduce, -1, slot((J + d) % N), output});
    w.endStep();
  }
  if (request.average && p > 1) w.add(Op{OpKind::Divide, -1, {}, output});
  w.endStep();
}

template <typename W>
void hierBroadcast(W& w, const PlanRequest& request, const TopologyView& topology, int rank) {
  w.name("hier");
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
  bool isLeader = rank == leader(J);
  if (usesVendorSteps(topology, request.vendorIslandSteps, J)) {
    // The leaders' chain first, then one vendor broadcast from the leader inside the island.
    if (rank == request.root && N > 1) w.add(Op{OpKind::Send, leader((J + 1) % N), input, {}});
    w.endStep();
    if (isLeader && rank != request.root) {
      w.add(Op{OpKind::RecvCopy, leader(modRank(J - 1, N)), {}, output});
      w.endStep();
      if (hop + 1 < N) w.add(Op{OpKind::Send, leader((J + 1) % N), output, {}});
      w.endStep();
    }
    w.add(Op{OpKind::IslandBroadcast, leaderIndex, rank == request.root ? input : output, output});
    w.endStep();
    return;
  }
  if (rank == request.root) {
    if (!request.inPlace) w.add(Op{OpKind::Copy, -1, input, output});
    if (N > 1) w.add(Op{OpKind::Send, leader((J + 1) % N), input, {}});
    if (islandNext >= 0) w.add(Op{OpKind::Send, islandNext, input, {}});
    w.endStep();
    return;
  }
  w.add(Op{OpKind::RecvCopy, isLeader ? leader(modRank(J - 1, N)) : islandPrevious, {}, output});
  w.endStep();
  if (isLeader && hop + 1 < N) w.add(Op{OpKind::Send, leader((J + 1) % N), output, {}});
  if (islandNext >= 0) w.add(Op{OpKind::Send, islandNext, output, {}});
  w.endStep();
}

// "hier": the island all-reduce by direct exchange, and the three collectives above.
struct HierWrite {
  template <typename W>
  void operator()(W& w, const PlanRequest& request, const TopologyView& topology, int rank) const {
    switch (request.collective) {
      case Collective::AllReduce:
        return IslandAllReduceWrite<CrossIslandMethod::HierDirectExchange>{}(w, request, topology, rank);
      case Collective::AllGather: return hierAllGather(w, request, topology, rank);
      case Collective::ReduceScatter: return hierReduceScatter(w, request, topology, rank);
      case Collective::Broadcast: return hierBroadcast(w, request, topology, rank);
      default: return;  // the row claims these four only (algorithmApplies)
    }
  }
};

std::vector<CostShape> hierShapes(const PlanRequest& request, const std::vector<int>& ranks) {
  if (request.collective == Collective::AllReduce)
    return islandAllReduceShapes<CrossIslandMethod::HierDirectExchange>(request, ranks);
  return shapesOf<HierWrite>(request, ranks);
}

}  // namespace

extern const AlgorithmWriter kHierWriter{&planOf<HierWrite>, &hierShapes};
extern const AlgorithmWriter kTorusWriter = islandAllReduceWriter<CrossIslandMethod::TorusRing>();
extern const AlgorithmWriter kHierRhdWriter = islandAllReduceWriter<CrossIslandMethod::HalvingDoubling>();
extern const AlgorithmWriter kHierTreeWriter = islandAllReduceWriter<CrossIslandMethod::BinomialTree>();
extern const AlgorithmWriter kHierDbtreeWriter =
    islandAllReduceWriter<CrossIslandMethod::DoubleBinaryTree>(&addDoubleTreeRoleIslands);

}  // namespace hetccl
