// The plan verifier: runs the plans of every rank of a job on symbolic data and proves that
// every output element holds each expected contribution exactly once (and, for an average,
// is divided exactly once), and that every rank of an all-reduce computed each element with
// the same grouping and operand order, or copied it from a rank that did (so that all ranks
// hold identical bits, also for floating-point sums and for max/min on NaNs).  It also checks
// that transfers match in size and order, that nothing deadlocks when sends complete only on
// a matching receive (the strictest MPI semantics), that no step races with itself, and that
// no buffer is accessed out of bounds.  It needs no MPI: plans are data.
#pragma once

#include <functional>
#include <string>

#include "algorithms/plan.h"

namespace hetccl {

using PlanBuilder = std::function<RankPlan(const PlanRequest&, int rank)>;

struct VerifyOptions {
  // 0: run the plan's steps as written; otherwise run it cut into pipelines of this many
  // elements, one pipeline after the other, as the executor would with one slot.
  size_t chunkElements = 0;
  // Run the pipelines last-to-first, which exposes any dependency between pipelines.
  bool reversePipelines = false;
};

struct VerifyResult {
  bool ok = true;
  std::string error;  // the first problem found, with rank, step and element
};

VerifyResult verifyPlan(const PlanRequest& request, const PlanBuilder& builder, const VerifyOptions& options = {});

}  // namespace hetccl
