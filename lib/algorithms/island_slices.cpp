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

// Moves a slice plan's input and output regions to the slice's place in the buffer, and its
// scratch to the slice's half of the plan's: a slice's exchange overlaps the one before it
// (Step::overlapsPrevious), never the one two before, so two halves are enough.
void shiftRegion(Region* region, size_t offset, size_t scratchOffset) {
  if (region->buffer == kInputBuffer || region->buffer == kOutputBuffer) region->offset += offset;
  if (region->buffer == kScratchBuffer) region->offset += scratchOffset;
}

bool reducesOverIsland(const Step& step) {
  if (!isIslandStep(step)) return false;
  const OpKind kind = step.ops.front().kind;
  return kind == OpKind::IslandReduceScatter || kind == OpKind::IslandReduce;
}

// Split by what the island steps do, not only by where they sit: a rank with no share of the
// cross-island exchange (a slice smaller than the ranks) has island steps only, and its island
// must still see every member call them in one order: reductions before, gathers after.
SliceParts partsOf(RankPlan&& plan, size_t offset, size_t scratchOffset) {
  SliceParts parts;
  size_t first = 0, end = plan.steps.size();
  while (first < end && reducesOverIsland(plan.steps[first])) ++first;
  while (end > first && isIslandStep(plan.steps[end - 1])) --end;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    Step& step = plan.steps[s];
    for (Op& op : step.ops) {
      shiftRegion(&op.src, offset, scratchOffset);
      shiftRegion(&op.dst, offset, scratchOffset);
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

namespace {

// Slices are cut in quarter shares: the first and last one quarter of the others' size, since
// their island steps are the only ones nothing overlaps (the first reduce-scatter, the last
// all-gather).  Two slices are halves.
constexpr size_t kInnerShare = 4, kEdgeShare = 1;
size_t sharesBefore(int slices, int index) {
  if (slices <= 2 || index == 0) return static_cast<size_t>(index) * kInnerShare;
  return kEdgeShare + static_cast<size_t>(std::min(index, slices - 1) - 1) * kInnerShare +
         (index == slices ? kEdgeShare : 0);
}

}  // namespace

int usableIslandSlices(const PlanRequest& request, int wanted) {
  // Every slice needs at least one element per rank, or some islands' shards would be empty.
  const size_t perRank = std::max(1, request.nranks);
  int slices = std::clamp(wanted, 1, kMaxIslandSlices);
  while (slices > 1 && request.count / sharesBefore(slices, slices) * kEdgeShare < perRank) --slices;
  return slices;
}

size_t sliceBegin(size_t count, int slices, int index) {
  // 128-bit: count x shares may pass 2^64 for the largest counts.
  const unsigned __int128 shares = sharesBefore(slices, slices);
  return static_cast<size_t>(static_cast<unsigned __int128>(count) * sharesBefore(slices, index) / shares);
}

size_t sliceCount(size_t count, int slices, int index) {
  return sliceBegin(count, slices, index + 1) - sliceBegin(count, slices, index);
}

PlanRequest sliceRequest(const PlanRequest& request, int index) {
  PlanRequest slice = request;
  slice.count = sliceCount(request.count, request.islandSlices, index);
  slice.islandSlices = 1;
  return slice;
}

RankPlan buildSlicedPlan(Algorithm algorithm, const PlanRequest& request, int rank) {
  const int slices = request.islandSlices;
  std::vector<RankPlan> slicePlans;
  RankPlan plan = emptyPlan(request, rank, "");
  size_t sliceScratch = 0;
  for (int r = 0; r < slices; ++r) {
    slicePlans.push_back(buildPlan(algorithm, sliceRequest(request, r), rank));
    plan.algorithm = slicePlans.back().algorithm;
    sliceScratch = std::max(sliceScratch, slicePlans.back().scratchCount);
  }
  plan.scratchCount = sliceScratch * static_cast<size_t>(std::min(slices, 2));
  std::vector<SliceParts> parts;
  for (int r = 0; r < slices; ++r)
    parts.push_back(partsOf(std::move(slicePlans[r]), sliceBegin(request.count, slices, r), (r % 2) * sliceScratch));
  // The island stream is kept one slice ahead: slice r + 1's reduce-scatter is queued before
  // slice r's exchange, slice r + 2's right after slice r's all-gather.  Each exchange may
  // start while the one before drains (the executor then queues the island steps between them
  // once that one has ended): its phases use the slice's half of the tags.
  append(&plan.steps, &parts[0].before);
  for (int r = 0; r < slices; ++r) {
    if (r + 1 < slices) append(&plan.steps, &parts[r + 1].before);
    for (Step& step : parts[r].middle) step.tagHalf = static_cast<int8_t>(r % 2);
    if (!parts[r].middle.empty()) {
      parts[r].middle.front().startsPhase = true;
      parts[r].middle.front().overlapsPrevious = r > 0;
    }
    append(&plan.steps, &parts[r].middle);
    append(&plan.steps, &parts[r].after);
  }
  return plan;
}

}  // namespace hetccl
