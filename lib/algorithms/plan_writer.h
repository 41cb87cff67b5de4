// Where an algorithm writes its steps: each algorithm is one function template over a writer,
// and the writer decides what the steps become.  PlanWriter makes them the ops of a rank's
// plan (what the executor runs and the verifier proves); ShapeWriter makes them their costs
// (cost_shape.h), without the plan: a flat ring at 100,000 ranks has 200,000 steps, and a
// step of an island all-reduce at thousands of islands has thousands of parts, which the cost
// model cannot afford to build for every size and chunk it prices.  One code for both, so the
// cost model prices the plan the executor runs (test/unit/cost_shape_test.cpp checks it).
//
// The vocabulary, on either writer:
//   add(op)            one op of the current step (dropped when it moves nothing, as addOp)
//   endStep(keepEmpty) the step is complete; an empty one vanishes (pushIfAny) unless kept
//   needScratch(n)     the plan needs n elements of scratch
//   name(text)         the plan's name for logs ("ring", "chain", ...)
//   opsWhole()         the plan's ops run whole, never in chunks (RankPlan::opsWhole)
//   addParts(layout, buffer, segment, first, end, write)
//                      write(w, atom, part) adds the ops of each part [first, end) of a
//                      segment (all_reduce_layout.h); the shape prices one part of each size
//   repeatSteps(steps, changes, body)
//                      body(s) writes step s of `steps`; changes(&points) appends the steps
//                      where the cost may change, and the shape writes one step per run
//   idleSteps(w, steps) (a function) steps where this rank waits; they keep ranks' steps aligned
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "algorithms/all_reduce_layout.h"
#include "algorithms/cost_shape.h"
#include "algorithms/plan.h"

namespace hetccl {

class PlanWriter {
 public:
  PlanWriter(const PlanRequest& request, int rank) : plan_(emptyPlan(request, rank, "")) {}
  void name(const char* algorithm) { plan_.algorithm = algorithm; }
  void opsWhole() { plan_.opsWhole = true; }
  void add(const Op& op) { addOp(step_, op); }
  void endStep(bool keepEmpty = false) {
    if (keepEmpty && step_.ops.empty())
      plan_.steps.push_back(step_);
    else
      pushIfAny(plan_, step_);
  }
  void needScratch(size_t count) { plan_.scratchCount = std::max(plan_.scratchCount, count); }
  template <typename Write>
  void addParts(const AllReduceLayout& layout, int buffer, int segment, int firstPart, int endPart, Write write) {
    for (int part = firstPart; part < endPart; ++part) write(*this, layout.atom(buffer, segment, part), part);
  }
  template <typename Changes, typename Body>
  void repeatSteps(long steps, Changes&&, Body body) {
    for (long s = 0; s < steps; ++s) body(s);
  }
  RankPlan take() { return std::move(plan_); }

 private:
  RankPlan plan_;
  Step step_;
};

class ShapeWriter {
 public:
  // `topology` says which peers are in another island; it must outlive the writer.
  ShapeWriter(const TopologyView& topology, int rank) : topology_(topology), island_(topology.islandOf[rank]) {}
  void name(const char*) {}
  void opsWhole() { shape_.opsWhole = true; }
  // As CostShape::addPlanSteps reads an op of a built plan.
  void add(const Op& op) {
    const size_t count = op.kind == OpKind::Send ? op.src.count : op.dst.count;
    if (count == 0) return;
    if (isIslandOp(op.kind)) {
      shape_.islandOps.push_back(CostOp{op.kind, false, count, topology_.islandSize(island_)});
      islandStep_ = true;
      return;
    }
    ops_.push_back(CostOp{op.kind, crosses(op.peer), count, 0});
  }
  void add(const Op& op, size_t times) {
    const size_t before = ops_.size();
    add(op);
    if (ops_.size() > before) ops_.back().times = times;
  }
  void endStep(bool keepEmpty = false) {
    if (!islandStep_) shape_.addRun(ops_, stepsPerStep_, keepEmpty);  // island ops are priced whole
    ops_.clear();
    islandStep_ = false;
  }
  void needScratch(size_t) {}
  // Parts of one size cost alike (the same kinds, link classes and counts): one part of each
  // size is written, counted as many times as there are parts of its size.
  template <typename Write>
  void addParts(const AllReduceLayout& layout, int buffer, int segment, int firstPart, int endPart, Write write) {
    layout.forEachPartSize(segment, firstPart, endPart, [&](int part, size_t parts) {
      partOps_.clear();
      PartOps one{partOps_};
      write(one, layout.atom(buffer, segment, part), part);
      for (const Op& op : partOps_) add(op, parts);
    });
  }
  template <typename Changes, typename Body>
  void repeatSteps(long steps, Changes&& changes, Body body) {
    std::vector<long> points;
    changes(&points);
    for (auto [first, length] : runsBetween(std::move(points), steps)) {
      stepsPerStep_ = static_cast<size_t>(length);
      body(first);
    }
    stepsPerStep_ = 1;
  }
  CostShape take() { return std::move(shape_); }

 private:
  // Collects the ops one part's write adds, before they are priced (into a buffer the writer
  // keeps: an island phase at tens of thousands of ranks writes parts in every one of its steps).
  struct PartOps {
    std::vector<Op>& ops;
    void add(const Op& op) { ops.push_back(op); }
  };
  bool crosses(int peer) const { return peer >= 0 && topology_.islandOf[peer] != island_; }

  const TopologyView& topology_;
  int island_;
  CostShape shape_;
  std::vector<CostOp> ops_;
  std::vector<Op> partOps_;
  size_t stepsPerStep_ = 1;  // inside repeatSteps: the steps one written step stands for
  bool islandStep_ = false;
};

// A repeatSteps whose steps all cost the same.
inline void noCostChanges(std::vector<long>*) {}

// `steps` steps in which this rank does nothing, waiting for data that ranks before it in a
// chain or a tree are still passing on.  The executor skips them; the cost model lines ranks'
// steps up by index, so without them a chain of p ranks would look like 2 steps deep.
template <typename W>
void idleSteps(W& w, long steps) {
  w.repeatSteps(steps, noCostChanges, [&](long) { w.endStep(true); });
}

}  // namespace hetccl
