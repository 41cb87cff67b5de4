#include "algorithms/island_slices.h"

#include <algorithm>

#include "algorithms/algorithm.h"
#include "algorithms/all_reduce_layout.h"

namespace hetccl {

namespace {

// One slice's plan in the three parts the interleaving moves: the island steps before its
// first ordinary step, its ordinary steps, the island steps after them.
struct SliceParts {
  std::vector<Step> before, middle, after;
};

// Moves a slice plan's input and output regions to the slice's place in the buffer; scratch
// stays where it is (slices use it one after the other: only cross-island phases touch it).
void shiftRegion(Region* region, size_t offset) {
  if (region->buffer == kInputBuffer || region->buffer == kOutputBuffer) region->offset += offset;
}

SliceParts partsOf(RankPlan&& plan, size_t offset) {
  SliceParts parts;
  size_t first = 0, end = plan.steps.size();
  while (first < end && isIslandStep(plan.steps[first])) ++first;
  while (end > first && isIslandStep(plan.steps[end - 1])) --end;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    Step& step = plan.steps[s];
    for (Op& op : step.ops) {
      shiftRegion(&op.src, offset);
      shiftRegion(&op.dst, offset);
    }
    (s < first ? parts.before : s < end ? parts.middle : parts.after).push_back(std::move(step));
  }
  return parts;
}

void append(std::vector<Step>* steps, std::vector<Step>* from) {
  for (Step& step : *from) steps->push_back(std::move(step));
  from->clear();
}

}  // namespace

bool slicesIslandSteps(Algorithm algorithm, const PlanRequest& request) {
  if (request.collective != Collective::AllReduce || !request.topology) return false;
  if (descriptorOf(algorithm).role != AlgorithmRole::IslandAware) return false;
  const TopologyView& topology = *request.topology;
  if (topology.islandCount() < 2) return false;
  for (int island = 0; island < topology.islandCount(); ++island)
    if (usesVendorSteps(topology, request.vendorIslandSteps, island)) return true;
  return false;
}

int usableIslandSlices(const PlanRequest& request, int wanted) {
  // A slice smaller than one element per rank would leave shards empty on some islands.
  const size_t most = request.count / static_cast<size_t>(std::max(1, request.nranks));
  return static_cast<int>(
      std::clamp<size_t>(static_cast<size_t>(std::min(wanted, kMaxIslandSlices)), 1, std::max<size_t>(1, most)));
}

size_t sliceBegin(size_t count, int slices, int index) { return blockBegin(count, slices, index); }

PlanRequest sliceRequest(const PlanRequest& request, int index) {
  PlanRequest slice = request;
  slice.count = blockCount(request.count, request.islandSlices, index);
  slice.islandSlices = 1;
  return slice;
}

RankPlan buildSlicedPlan(Algorithm algorithm, const PlanRequest& request, int rank) {
  const int slices = request.islandSlices;
  std::vector<SliceParts> parts;
  RankPlan plan = emptyPlan(request, rank, "");
  for (int r = 0; r < slices; ++r) {
    RankPlan slice = buildPlan(algorithm, sliceRequest(request, r), rank);
    plan.algorithm = slice.algorithm;
    plan.scratchCount = std::max(plan.scratchCount, slice.scratchCount);
    parts.push_back(partsOf(std::move(slice), sliceBegin(request.count, slices, r)));
  }
  // The island stream is kept one slice ahead: slice r + 1's reduce-scatter is queued before
  // slice r's exchange, slice r + 2's right after slice r's all-gather.
  append(&plan.steps, &parts[0].before);
  for (int r = 0; r < slices; ++r) {
    if (r + 1 < slices) append(&plan.steps, &parts[r + 1].before);
    if (!parts[r].middle.empty()) parts[r].middle.front().startsPhase = true;
    append(&plan.steps, &parts[r].middle);
    append(&plan.steps, &parts[r].after);
  }
  return plan;
}

}  // namespace hetccl
