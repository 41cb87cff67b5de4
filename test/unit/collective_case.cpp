#include "collective_case.h"

#include <algorithm>
#include <sstream>

namespace hetccl {

TopologyView CollectiveCase::topology() const {
  TopologyView view = TopologyView::fromIslandIds(islandIds);
  view.islandLibrary = islandLibrary;
  return view;
}

std::string CollectiveCase::describe() const {
  std::ostringstream text;
  text << algorithmName(algorithm) << " " << collectiveName(shape.collective) << " on " << topology().describe()
       << " (islands";
  for (int id : islandIds) text << " " << id;
  text << "; library";
  for (bool library : islandLibrary) text << " " << library;
  if (!vendorIslandSteps) text << ", unused for this reduction";
  if (islandSlices > 1) text << "; " << islandSlices << " island slices";
  text << ") count " << shape.count << " root " << shape.root << (inPlace ? " in-place " : " out-of-place ")
       << reduceOpName(shape.op) << " " << elementTypeName(type) << " chunk " << chunkElements << " depth "
       << pipelineDepth << " over " << links.describe();
  return text.str();
}

namespace {

// Outside every input value, so that an element nobody wrote stands out.
constexpr double kUnwritten = -1;

Status mismatch(const RankPlan& plan, const char* what, size_t index, double expected, double found) {
  return HETCCL_STATUS(Code::InternalError, "%s element %zu is %g, expected %g\n%s", what, index, found, expected,
                       describePlan(plan).c_str());
}

}  // namespace

Status runCollectiveOnRank(const CollectiveCase& c, const TopologyView& topology, int tagBase, RankContext& context) {
  const CollectiveShape& shape = c.shape;
  const int rank = context.rank;
  PlanRequest request;
  request.collective = shape.collective;
  request.count = shape.count;
  request.nranks = shape.nranks;
  request.root = shape.root;
  request.inPlace = c.inPlace;
  request.average = shape.op == ReduceOp::Avg;
  request.topology = &topology;
  request.vendorIslandSteps = c.vendorIslandSteps;
  request.islandSlices = c.islandSlices;
  const RankPlan plan = buildPlan(c.algorithm, request, rank);

  // The API's layouts: in place, input and output are views of one allocation (the output's
  // own block of it for reduce-scatter, the input's for all-gather).
  const size_t inputs = inputCount(shape), outputs = outputCount(shape), size = elementSize(c.type);
  RankMemory memory(context);
  char *input = nullptr, *output = nullptr, *scratch = nullptr;
  if (c.inPlace) {
    HETCCL_TRY(memory.allocate(std::max(inputs, outputs) * size, &output));
    input = output;
    if (shape.collective == Collective::ReduceScatter) output = input + rank * shape.count * size;
    if (shape.collective == Collective::AllGather) input = output + rank * shape.count * size;
  } else {
    HETCCL_TRY(memory.allocate(inputs * size, &input));
    HETCCL_TRY(memory.allocate(outputs * size, &output));
    for (size_t i = 0; i < outputs; ++i) storeElement(output, i, c.type, kUnwritten);
  }
  HETCCL_TRY(memory.allocate(plan.scratchCount * size, &scratch));
  for (size_t i = 0; i < inputs; ++i) storeElement(input, i, c.type, inputValue(rank, i));

  ExecutionSettings settings;
  settings.chunkBytes = c.chunkElements * size;
  settings.pipelineDepth = c.pipelineDepth;
  HETCCL_TRY(context.executor.run(plan, PlanBuffers{input, output, scratch}, c.type, shape.op, tagBase, settings));

  const bool rootOnly = shape.collective == Collective::Reduce && rank != shape.root;
  for (size_t i = 0; i < outputs; ++i) {
    const double found = loadElement(output, i, c.type);
    if (std::optional<double> expected = expectedOutput(shape, c.type, rank, i)) {
      if (found != *expected) return mismatch(plan, "output", i, *expected, found);
    } else if (!c.inPlace && rootOnly && found != kUnwritten) {
      // The API lets such a rank pass no output buffer at all.
      return mismatch(plan, "output of a rank that is not the root", i, kUnwritten, found);
    }
  }
  if (!c.inPlace)  // the input is const to the caller
    for (size_t i = 0; i < inputs; ++i)
      if (loadElement(input, i, c.type) != inputValue(rank, i))
        return mismatch(plan, "input", i, inputValue(rank, i), loadElement(input, i, c.type));
  return Status::ok();
}

Status runCollectiveCase(const CollectiveCase& c) {
  ThreadJob job;
  job.nranks = static_cast<int>(c.islandIds.size());
  job.links = c.links;
  job.topology = c.topology();
  const TopologyView topology = job.topology;
  return runOnThreadRanks(job, [&](RankContext& context) { return runCollectiveOnRank(c, topology, 0, context); });
}

}  // namespace hetccl
