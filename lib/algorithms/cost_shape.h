// A rank's plan as the cost model reads it: per step, only each op's kind, element count and
// whether its peer is in another island; consecutive steps that cost the same stored once, as
// a run.  A flat ring at 100,000 ranks has 200,000 steps of a few distinct costs, and the cost
// model prices every algorithm at several chunk sizes for every size a tool asks about: it
// cannot afford to build and walk the plans themselves.
//
// Every algorithm writes its plan and its shape from the same code (plan_writer.h), the shape
// without building the plan; costShapeOfPlan reads the shape off the built plan instead, the
// reference test/unit/cost_shape_test.cpp checks the written shapes against for every
// algorithm on every layout of 1-16 ranks and some of hundreds.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "algorithms/algorithm_names.h"
#include "algorithms/plan.h"

namespace hetccl {

// What the cost of one op depends on.  `count` is the elements it moves (the source of a
// send, the destination otherwise).
struct CostOp {
  OpKind kind = OpKind::Copy;
  bool crossIsland = false;
  size_t count = 0;
  int islandSize = 0;  // island collectives: the members taking part
  size_t times = 1;    // identical ops of one step, stored once
  bool sameCostAs(const CostOp& o) const {
    return kind == o.kind && crossIsland == o.crossIsland && count == o.count && islandSize == o.islandSize;
  }
  bool operator==(const CostOp& o) const { return sameCostAs(o) && times == o.times; }
};

struct CostShape {
  struct Run {
    std::vector<CostOp> ops;  // of each step of the run (none: steps where this rank idles)
    size_t steps = 0;
  };
  std::vector<Run> runs;          // the pipelined steps, in order
  std::vector<CostOp> islandOps;  // island collectives: run whole, between the pipelined phases
  size_t largestOp = 0;           // the largest count of a pipelined op (sizes the pipelines)
  bool opsWhole = false;          // one pipeline whatever the chunk (RankPlan::opsWhole)
  size_t steps() const;           // pipelined steps in all
  // Appends `steps` steps of `ops` (zero-count ops dropped, identical ones folded); merges with
  // the last run when that costs the same.  `keepEmpty`: a step left with no op still takes
  // its place (a plan that pushes every step) rather than vanishing (pushIfAny).
  void addRun(std::vector<CostOp> ops, size_t steps, bool keepEmpty);
  // Appends a built plan's steps, one by one.
  void addPlanSteps(const RankPlan& plan, const TopologyView& topology);
};

// The shapes of `ranks`' plans, as the algorithm's writer writes them.
std::vector<CostShape> costShapesOf(Algorithm algorithm, const PlanRequest& request, const std::vector<int>& ranks);
CostShape costShapeOf(Algorithm algorithm, const PlanRequest& request, int rank);
// By building the plan: the reference the written shapes are checked against.
CostShape costShapeOfPlan(Algorithm algorithm, const PlanRequest& request, int rank);

// The steps s in (0, steps) where blockCount(n, parts, (start - s) mod parts) differs from
// step s - 1's: a block index that walks backwards through `parts` nearly equal blocks, as
// rings do, changes size only where it wraps and where it enters the larger blocks.
// Appended to *points, unsorted.
void addRotationChanges(long start, int parts, size_t n, long steps, std::vector<long>* points);
// The runs [first, first + length) that cut steps [0, steps) at `points` (unsorted, repeats
// and values outside (0, steps) ignored).
std::vector<std::pair<long, long>> runsBetween(std::vector<long> points, long steps);

}  // namespace hetccl
