#include "algorithms/cost_shape.h"

#include <algorithm>

#include "algorithms/algorithm.h"

namespace hetccl {

namespace {

// Folds identical ops into the first of them, with a count of how many: a hierarchical step
// at thousands of islands sends thousands of parts of equal size, and there are rarely more
// than a few kinds in a step (a step with many is kept as is after kMaxKinds).  What a step
// costs is a sum over its ops of whole byte counts, exact in doubles in any order.
void foldIdenticalOps(std::vector<CostOp>& ops) {
  constexpr size_t kMaxKinds = 16;
  size_t kept = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].count == 0 || ops[i].times == 0) continue;
    size_t same = kept;
    for (size_t k = 0; k < kept && k < kMaxKinds; ++k)
      if (ops[k].sameCostAs(ops[i])) same = k;
    if (same < kept)
      ops[same].times += ops[i].times;
    else
      ops[kept++] = ops[i];
  }
  ops.resize(kept);
}

}  // namespace

size_t CostShape::steps() const {
  size_t total = 0;
  for (const Run& run : runs) total += run.steps;
  return total;
}

void CostShape::addRun(std::vector<CostOp> ops, size_t steps, bool keepEmpty) {
  foldIdenticalOps(ops);
  if (steps == 0 || (ops.empty() && !keepEmpty)) return;
  for (const CostOp& op : ops) largestOp = std::max(largestOp, op.count);
  if (!runs.empty() && runs.back().ops == ops) {
    runs.back().steps += steps;
    return;
  }
  runs.push_back(Run{std::move(ops), steps});
}

void CostShape::addPlanSteps(const RankPlan& plan, const TopologyView& topology) {
  const int island = topology.islandOf[plan.rank];
  opsWhole = opsWhole || plan.opsWhole;
  std::vector<CostOp> ops;
  for (const Step& step : plan.steps) {
    if (isIslandStep(step)) {
      for (const Op& op : step.ops)
        islandOps.push_back(CostOp{op.kind, false, op.dst.count, topology.islandSize(island)});
      continue;
    }
    ops.clear();
    for (const Op& op : step.ops) {
      const bool cross = op.peer >= 0 && topology.islandOf[op.peer] != island;
      ops.push_back(CostOp{op.kind, cross, op.kind == OpKind::Send ? op.src.count : op.dst.count, 0});
    }
    addRun(ops, 1, true);  // a plan holds only the steps it runs
  }
}

CostShape costShapeOfPlan(Algorithm algorithm, const PlanRequest& request, int rank) {
  CostShape shape;
  const TopologyView single = request.topology ? TopologyView{} : TopologyView::singleIsland(request.nranks);
  shape.addPlanSteps(buildPlan(algorithm, request, rank), request.topology ? *request.topology : single);
  return shape;
}

std::vector<CostShape> costShapesOf(Algorithm algorithm, const PlanRequest& request, const std::vector<int>& ranks) {
  return descriptorOf(algorithm).writer->shapes(request, ranks);
}

CostShape costShapeOf(Algorithm algorithm, const PlanRequest& request, int rank) {
  return std::move(costShapesOf(algorithm, request, {rank}).front());
}

void addRotationChanges(long start, int parts, size_t n, long steps, std::vector<long>* points) {
  const long rem = static_cast<long>(n % static_cast<size_t>(parts));
  if (rem == 0) return;  // equal blocks: the count never changes
  auto mod = [&](long v) { return ((v % parts) + parts) % parts; };
  // The index wraps from block 0 (larger) to block parts - 1 (smaller), and steps from block
  // rem (smaller) to block rem - 1 (larger).
  for (long first : {mod(start + 1), mod(start - rem + 1)})
    for (long s = first; s < steps; s += parts)
      if (s > 0) points->push_back(s);
}

std::vector<std::pair<long, long>> runsBetween(std::vector<long> points, long steps) {
  points.erase(std::remove_if(points.begin(), points.end(), [&](long s) { return s <= 0 || s >= steps; }),
               points.end());
  points.push_back(0);
  points.push_back(steps);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<std::pair<long, long>> runs;
  for (size_t i = 0; i + 1 < points.size(); ++i) runs.emplace_back(points[i], points[i + 1] - points[i]);
  return runs;
}

}  // namespace hetccl
