// The cost shapes the writers write (plan_writer.h) against the shapes read off the built
// plans: step by step, the same ops (kind, peer in another island or not, count, how many),
// the same island collectives and the same largest op, for every algorithm of the table on
// every collective it applies to, on every layout of 1-16 ranks, with and without vendor
// islands, and for the all-reduces on a few layouts of hundreds of ranks.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <tuple>

#include "algorithms/algorithm.h"
#include "algorithms/cost_shape.h"
#include "island_layouts.h"

namespace hetccl {
namespace {

// A step's ops with identical ones added up, in a fixed order: the direct shapes may list a
// step's ops in another order, or split one op into several of the same cost.
using OpKey = std::tuple<int, bool, size_t, int>;
using CanonicalStep = std::map<OpKey, size_t>;

CanonicalStep canonical(const std::vector<CostOp>& ops) {
  CanonicalStep step;
  for (const CostOp& op : ops)
    if (op.count > 0 && op.times > 0)
      step[{static_cast<int>(op.kind), op.crossIsland, op.count, op.islandSize}] += op.times;
  return step;
}

std::vector<CanonicalStep> stepsOf(const CostShape& shape) {
  std::vector<CanonicalStep> steps;
  for (const CostShape::Run& run : shape.runs) steps.insert(steps.end(), run.steps, canonical(run.ops));
  return steps;
}

std::string describe(const CanonicalStep& step) {
  std::ostringstream out;
  for (const auto& [key, times] : step)
    out << " " << opKindName(static_cast<OpKind>(std::get<0>(key))) << (std::get<1>(key) ? "(x)" : "") << " "
        << std::get<2>(key) << "x" << times;
  return out.str();
}

// Compares the two shapes of `rank`; returns "" when equal, else where they differ.
std::string compareShapes(Algorithm algorithm, const PlanRequest& request, int rank) {
  const CostShape direct = costShapeOf(algorithm, request, rank);
  const CostShape reference = costShapeOfPlan(algorithm, request, rank);
  std::ostringstream out;
  const std::vector<CanonicalStep> a = stepsOf(direct), b = stepsOf(reference);
  if (a.size() != b.size()) out << a.size() << " steps, the plan has " << b.size() << "; ";
  for (size_t s = 0; s < std::min(a.size(), b.size()); ++s)
    if (a[s] != b[s]) {
      out << "step " << s << ":" << describe(a[s]) << " | plan:" << describe(b[s]) << "; ";
      break;
    }
  if (canonical(direct.islandOps) != canonical(reference.islandOps)) out << "island ops differ; ";
  if (direct.largestOp != reference.largestOp)
    out << "largest op " << direct.largestOp << ", the plan's " << reference.largestOp << "; ";
  if (direct.opsWhole != reference.opsWhole)
    out << "ops whole " << direct.opsWhole << ", the plan's " << reference.opsWhole << "; ";
  if (out.str().empty()) return "";
  return std::string(algorithmName(algorithm)) + " " + collectiveName(request.collective) + " rank " +
         std::to_string(rank) + " count " + std::to_string(request.count) + (request.inPlace ? " in place" : "") +
         (request.average ? " avg" : "") + " on " + request.topology->describe() + ": " + out.str();
}

// The shared layouts, and islands of 2 and of 3 (the last one short).
std::vector<std::vector<int>> layoutsFor(int p) {
  std::vector<std::vector<int>> layouts = islandLayoutsFor(p);
  for (int g : {2, 3}) {
    std::vector<int> ids;
    for (int r = 0; r < p; ++r) ids.push_back(r / g);
    layouts.push_back(ids);
  }
  return layouts;
}

// No island delegates, all do, only the first does.
std::vector<std::vector<bool>> delegationsFor(int islands) {
  std::vector<bool> first(islands, false);
  first[0] = true;
  return {{}, std::vector<bool>(islands, true), first};
}

const Collective kCollectives[] = {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                                   Collective::Broadcast, Collective::Reduce,        Collective::AlltoAll,
                                   Collective::SendRecv};

TEST(CostShape, WrittenShapesMatchThePlansOnEveryLayoutOfUpTo16Ranks) {
  int compared = 0;
  for (int p = 1; p <= 16; ++p)
    for (const auto& ids : layoutsFor(p)) {
      TopologyView topology = TopologyView::fromIslandIds(ids);
      for (const std::vector<bool>& delegation : delegationsFor(topology.islandCount())) {
        topology.islandLibrary = delegation;
        for (Algorithm algorithm : allAlgorithms())
          for (Collective collective : kCollectives) {
            if (!algorithmApplies(algorithm, collective, topology, nullptr)) continue;
            // The all-reduces' shapes are where the writers fold runs and parts: every count.
            const bool allReduce = collective == Collective::AllReduce;
            const bool reduces =
                allReduce || collective == Collective::ReduceScatter || collective == Collective::Reduce;
            for (size_t count :
                 {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{16}, size_t{37}, size_t{1000}, size_t{4099}})
              for (bool inPlace : {false, true})
                for (bool average : {false, true}) {
                  if ((!allReduce && count > 37) || (average && !reduces)) continue;
                  const int root = collective == Collective::Broadcast || collective == Collective::Reduce ? p - 1 : 0;
                  const PlanRequest request{collective, count, p, root, inPlace, average, &topology};
                  for (int rank = 0; rank < p; ++rank) {
                    ASSERT_EQ(compareShapes(algorithm, request, rank), "");
                    ++compared;
                  }
                }
          }
      }
    }
  EXPECT_GT(compared, 50000);
}

TEST(CostShape, WrittenShapesMatchThePlansAtHundredsOfRanks) {
  std::vector<TopologyView> layouts = {islandsOf(96, 8), islandsOf(37, 5, 3), islandsOf(2, 300, 150), islandsOf(48, 4)};
  layouts[3].islandLibrary = std::vector<bool>(48, true);
  for (const TopologyView& topology : layouts)
    for (Algorithm algorithm : allAlgorithms()) {
      if (!algorithmApplies(algorithm, Collective::AllReduce, topology, nullptr)) continue;
      const size_t p = static_cast<size_t>(topology.nranks);
      for (size_t count : {p * 8 + 3, (size_t{1} << 20) + 7})
        for (bool average : {false, true}) {
          const PlanRequest request{Collective::AllReduce, count, topology.nranks, 0, false, average, &topology};
          for (int island : {0, 1, topology.islandCount() / 2, topology.islandCount() - 1})
            for (int rank : {topology.members[island].front(), topology.members[island].back()})
              ASSERT_EQ(compareShapes(algorithm, request, rank), "");
        }
    }
}

TEST(CostShape, RunsBetweenCutsAtEveryPointOnce) {
  const std::vector<std::pair<long, long>> runs = runsBetween({7, 3, 3, 0, 10, -2, 12}, 10);
  const std::vector<std::pair<long, long>> expected = {{0, 3}, {3, 4}, {7, 3}};
  EXPECT_EQ(runs, expected);
  EXPECT_TRUE(runsBetween({}, 0).empty());
}

}  // namespace
}  // namespace hetccl
