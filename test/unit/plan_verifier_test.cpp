// Every algorithm of the table that treats ranks alike (the flat ones and native's fallback;
// island_plans_test.cpp sweeps the island-aware ones over island layouts), on every
// collective it applies to, for 1..17 ranks and awkward counts, in place and out of place,
// run by the symbolic verifier as written and cut into pipelines (both orders), plus proof
// that the verifier rejects broken plans.
#include <gtest/gtest.h>

#include "algorithms/algorithm.h"
#include "algorithms/flat_plans.h"
#include "algorithms/verifier.h"

namespace hetccl {
namespace {

const Collective kCollectives[] = {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                                   Collective::Broadcast, Collective::Reduce,        Collective::AlltoAll,
                                   Collective::SendRecv};
const size_t kCounts[] = {0, 1, 2, 3, 5, 7, 16, 17, 31, 64, 97};

bool isReducing(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce;
}

void verifyAll(Algorithm algorithm, const PlanRequest& request) {
  const VerifyOptions modes[] = {{0, false}, {3, false}, {3, true}, {1, true}};
  auto builder = [algorithm](const PlanRequest& r, int rank) { return buildPlan(algorithm, r, rank); };
  for (const VerifyOptions& mode : modes) {
    if (mode.chunkElements == 1 && request.count > 17) continue;  // slow and adds nothing
    VerifyResult result = verifyPlan(request, builder, mode);
    ASSERT_TRUE(result.ok) << algorithmName(algorithm) << " " << collectiveName(request.collective) << " nranks "
                           << request.nranks << " count " << request.count << " root " << request.root
                           << (request.inPlace ? " in-place" : " out-of-place") << (request.average ? " avg" : "")
                           << " chunk " << mode.chunkElements << (mode.reversePipelines ? " reversed" : "") << "\n"
                           << result.error;
  }
}

TEST(SingleIslandPlans, EveryAlgorithmCollectiveRankCountAndSizeVerifies) {
  int verified = 0;
  for (Algorithm algorithm : allAlgorithms())
    for (int nranks = 1; nranks <= 17; ++nranks)
      for (Collective collective : kCollectives) {
        if (descriptorOf(algorithm).role == AlgorithmRole::IslandAware ||
            !algorithmApplies(algorithm, collective, TopologyView::singleIsland(nranks), nullptr))
          continue;
        for (size_t count : kCounts)
          for (bool inPlace : {false, true}) {
            PlanRequest request{collective, count, nranks, 0, inPlace, false};
            std::vector<int> roots{0};
            if (collective == Collective::Broadcast || collective == Collective::Reduce)
              roots = {0, nranks / 2, nranks - 1};
            for (int root : roots) {
              request.root = root;
              request.average = false;
              verifyAll(algorithm, request);
              if (isReducing(collective)) {
                request.average = true;
                verifyAll(algorithm, request);
              }
              if (HasFatalFailure()) return;
              ++verified;
            }
          }
      }
  EXPECT_GT(verified, 3000);
}

// A ring all-reduce with its last all-gather step removed leaves one block stale on every
// rank: the verifier must say so.
TEST(Verifier, RejectsAPlanMissingAStep) {
  PlanRequest request{Collective::AllReduce, 10, 4, 0, false, false};
  auto broken = [](const PlanRequest& r, int rank) {
    RankPlan plan = buildFlatPlan(r, rank);
    plan.steps.pop_back();
    return plan;
  };
  VerifyResult result = verifyPlan(request, broken);
  EXPECT_FALSE(result.ok);
}

// Receiving into the wrong block adds one contribution twice and loses another.
TEST(Verifier, RejectsADoubleCountedContribution) {
  PlanRequest request{Collective::AllReduce, 12, 3, 0, false, false};
  auto broken = [](const PlanRequest& r, int rank) {
    RankPlan plan = buildFlatPlan(r, rank);
    if (rank == 1) std::swap(plan.steps[0].ops[1].dst, plan.steps[1].ops[1].dst);
    return plan;
  };
  EXPECT_FALSE(verifyPlan(request, broken).ok);
}

// Two ranks that both receive before they send deadlock under rendezvous semantics.
TEST(Verifier, RejectsADeadlock) {
  PlanRequest request{Collective::SendRecv, 4, 2, 0, false, false};
  auto broken = [](const PlanRequest& r, int rank) {
    RankPlan plan = buildFlatPlan(r, rank);
    Step receive, send;
    for (const Op& op : plan.steps[0].ops) (op.kind == OpKind::Send ? send : receive).ops.push_back(op);
    plan.steps = {receive, send};
    return plan;
  };
  VerifyResult result = verifyPlan(request, broken);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("deadlock"), std::string::npos) << result.error;
}

TEST(Verifier, RejectsAMissingDivisionForAverage) {
  PlanRequest request{Collective::AllReduce, 9, 3, 0, false, true};
  auto broken = [](const PlanRequest& r, int rank) {
    PlanRequest sumOnly = r;
    sumOnly.average = false;
    return buildFlatPlan(sumOnly, rank);
  };
  EXPECT_FALSE(verifyPlan(request, broken).ok);
}

// A pipeline dependency across chunks (a whole-buffer copy feeding block sends) is caught
// only when pipelines run separately: the in-place all-to-all must copy block by block.
TEST(Verifier, RejectsACrossChunkDependency) {
  PlanRequest request{Collective::AlltoAll, 5, 3, 0, true, false};
  auto broken = [](const PlanRequest& r, int rank) {
    RankPlan plan = buildFlatPlan(r, rank);
    Step wholeCopy;
    wholeCopy.ops.push_back(Op{OpKind::Copy, -1, Region{kInputBuffer, 0, 15}, Region{kScratchBuffer, 0, 15}});
    plan.steps[0] = wholeCopy;
    return plan;
  };
  EXPECT_TRUE(verifyPlan(request, broken, {0, false}).ok);
  EXPECT_FALSE(verifyPlan(request, broken, {2, false}).ok);
}

}  // namespace
}  // namespace hetccl
