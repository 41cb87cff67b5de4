#include "algorithms/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <list>
#include <memory>
#include <set>
#include <utility>

namespace hetccl {

namespace {

// Islands whose ranks stand for all: every island when there are few; otherwise the islands
// whose roles differ in some plan -- the first and last two and a middle one (ring
// neighbours, tree roots and leaves), both sides of the largest power of two P <= N and of
// N - P (recursive halving/doubling folds islands P.. into islands 0..), and the first and
// last island of every size (the slowest island).  Plans of islands of one size and role are
// the same up to relabelling, and a job of 12,288 islands would otherwise build 36,864 plans.
std::vector<int> sampledIslands(const TopologyView& topology) {
  const int N = topology.islandCount();
  std::set<int> islands;
  if (N <= 32) {
    for (int island = 0; island < N; ++island) islands.insert(island);
  } else {
    int P = 1;
    while (2 * P <= N) P *= 2;
    for (int island : {0, 1, N / 2, N - 2, N - 1, P - 1, P, N - P - 1, N - P})
      if (island >= 0 && island < N) islands.insert(island);
    std::set<int> sizesSeen;
    for (int island = 0; island < N; ++island)
      if (sizesSeen.insert(topology.islandSize(island)).second) islands.insert(island);
    sizesSeen.clear();
    for (int island = N - 1; island >= 0; --island)
      if (sizesSeen.insert(topology.islandSize(island)).second) islands.insert(island);
  }
  return std::vector<int>(islands.begin(), islands.end());
}

std::vector<int> sampledRanks(const TopologyView& topology) {
  if (topology.nranks <= 64) {
    std::vector<int> all(topology.nranks);
    for (int r = 0; r < topology.nranks; ++r) all[r] = r;
    return all;
  }
  std::set<int> sample;
  for (int index : sampledIslands(topology)) {
    const auto& island = topology.members[index];
    sample.insert(island.front());
    sample.insert(island[island.size() / 2]);
    sample.insert(island.back());
  }
  return std::vector<int>(sample.begin(), sample.end());
}

// What the cost of one op depends on.  `count` is the elements it moves (the source of a
// send, the destination otherwise): chunk 0 of it is min(count, chunk elements).
struct OpCost {
  OpKind kind;
  bool crossIsland;
  size_t count;
  int islandSize;    // island collectives: the members taking part
  size_t times = 1;  // identical ops of one step, stored once
  bool operator==(const OpCost& o) const {
    return kind == o.kind && crossIsland == o.crossIsland && count == o.count && islandSize == o.islandSize &&
           times == o.times;
  }
};

bool sameCost(const OpCost& a, const OpCost& b) {
  return a.kind == b.kind && a.crossIsland == b.crossIsland && a.count == b.count && a.islandSize == b.islandSize;
}

// Folds the identical ops of one step (ops [begin, end)) into the first of them, with a count
// of how many: a hierarchical step at thousands of islands sends thousands of parts of equal
// size, and there are rarely more than a few kinds in a step (a step with many kept as is
// after kMaxKinds).  What a step costs is a sum over its ops of whole byte counts, exact in
// doubles in any order, so the results are the same bits as op by op.
void foldIdenticalOps(std::vector<OpCost>& ops, size_t begin) {
  constexpr size_t kMaxKinds = 16;
  size_t kept = begin;
  for (size_t i = begin; i < ops.size(); ++i) {
    size_t same = kept;
    for (size_t k = begin; k < kept && k < begin + kMaxKinds; ++k)
      if (sameCost(ops[k], ops[i])) same = k;
    if (same < kept)
      ops[same].times += ops[i].times;
    else
      ops[kept++] = ops[i];
  }
  ops.resize(kept);
}

// The sampled ranks' plans reduced to what the cost model reads, so that they are built once
// for every chunk size the tuner tries, not once per chunk size.  Consecutive steps that cost
// the same (a ring's thousands of steps differ by at most one element) are stored once, as
// a run, and costed once.
struct PlanSummary {
  struct StepRun {
    uint32_t opsBegin, opsEnd;  // the ops of each step of the run
    size_t firstStep, steps;
  };
  struct Rank {
    std::vector<OpCost> ops;
    std::vector<StepRun> runs;
    std::vector<OpCost> islandOps;  // run whole, between the pipelined phases
    size_t largestOp = 0;           // largestOpCount of the plan's pipelined steps
  };
  std::vector<Rank> ranks;
  size_t steps = 0;    // of the longest plan
  size_t opCount = 0;  // ops and runs stored: what bounds the memo
};

PlanSummary summarize(const CostQuery& query) {
  const TopologyView& topology = *query.request.topology;
  PlanSummary summary;
  // One plan at a time: a large job's plans have thousands of steps each.
  for (int rank : sampledRanks(topology)) {
    const RankPlan plan = buildPlan(query.algorithm, query.request, rank);
    PlanSummary::Rank costs;
    const int islandSize = topology.islandSize(topology.islandOf[rank]);
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      if (isIslandStep(plan.steps[s])) {
        for (const Op& op : plan.steps[s].ops)
          costs.islandOps.push_back(OpCost{op.kind, false, op.dst.count, islandSize});
        continue;
      }
      const uint32_t begin = static_cast<uint32_t>(costs.ops.size());
      for (const Op& op : plan.steps[s].ops) {
        costs.largestOp = std::max({costs.largestOp, op.src.count, op.dst.count});
        bool cross = op.peer >= 0 && topology.islandOf[op.peer] != topology.islandOf[rank];
        costs.ops.push_back(OpCost{op.kind, cross, op.kind == OpKind::Send ? op.src.count : op.dst.count, 0});
      }
      foldIdenticalOps(costs.ops, begin);
      PlanSummary::StepRun* last = costs.runs.empty() ? nullptr : &costs.runs.back();
      if (last && std::equal(costs.ops.begin() + last->opsBegin, costs.ops.begin() + last->opsEnd,
                             costs.ops.begin() + begin, costs.ops.end())) {
        costs.ops.resize(begin);
        ++last->steps;
      } else {
        costs.runs.push_back(PlanSummary::StepRun{begin, static_cast<uint32_t>(costs.ops.size()), s, 1});
      }
    }
    summary.steps = std::max(summary.steps, plan.steps.size());
    summary.opCount += costs.ops.size() + costs.runs.size();
    summary.ranks.push_back(std::move(costs));
  }
  return summary;
}

// Everything a plan depends on (not the chunk size, element size or link costs).
struct PlanKey {
  Algorithm algorithm;
  Collective collective;
  size_t count;
  int nranks, root;
  bool inPlace, average, vendorIslandSteps;
  std::vector<int> islandOf, indexInIsland;
  std::vector<bool> islandLibrary;

  explicit PlanKey(const CostQuery& query)
      : algorithm(query.algorithm),
        collective(query.request.collective),
        count(query.request.count),
        nranks(query.request.nranks),
        root(query.request.root),
        inPlace(query.request.inPlace),
        average(query.request.average),
        vendorIslandSteps(query.request.vendorIslandSteps),
        islandOf(query.request.topology->islandOf),
        indexInIsland(query.request.topology->indexInIsland),
        islandLibrary(query.request.topology->islandLibrary) {}
  bool operator==(const PlanKey& o) const {
    return algorithm == o.algorithm && collective == o.collective && count == o.count && nranks == o.nranks &&
           root == o.root && inPlace == o.inPlace && average == o.average && vendorIslandSteps == o.vendorIslandSteps &&
           islandOf == o.islandOf && indexInIsland == o.indexInIsland && islandLibrary == o.islandLibrary;
  }
};

// The tuner asks for every algorithm at several chunk sizes, and tools ask again for the
// ranking: the last few summaries are kept, per thread (no locking, no sharing), bounded in
// number and size.  A pure memo: results are the same with or without it.
class SummaryMemo {
 public:
  std::shared_ptr<const PlanSummary> get(const CostQuery& query) {
    PlanKey key(query);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().second;
      }
    auto summary = std::make_shared<const PlanSummary>(summarize(query));
    if (summary->opCount <= kMaxOps) {
      entries_.emplace_front(std::move(key), summary);
      size_t ops = 0, kept = 0;
      for (auto it = entries_.begin(); it != entries_.end(); ++it, ++kept) {
        ops += it->second->opCount;
        if (kept == kMaxEntries || ops > kMaxOps) {
          entries_.erase(it, entries_.end());
          break;
        }
      }
    }
    return summary;
  }

 private:
  static constexpr size_t kMaxEntries = 8;            // more than the algorithms of one choice
  static constexpr size_t kMaxOps = size_t{1} << 21;  // ops and runs: about 32 MiB
  std::list<std::pair<PlanKey, std::shared_ptr<const PlanSummary>>> entries_;
};

// What one rank's chunk-sized step costs: its duration, and how long it keeps each of the
// rank's serial resources busy (egress and ingress per link class, the device).
struct StepCost {
  double seconds = 0;
  double busy[5] = {0, 0, 0, 0, 0};  // egress intra, egress inter, ingress intra, ingress inter, device
};

// The cost of ops [begin, end) of one rank cut to chunk 0; *any is false when every op's
// chunk is empty (the step does not run).
StepCost stepCost(const OpCost* begin, const OpCost* end, size_t chunkElements, size_t elementSize,
                  const CostParameters& parameters, bool* any) {
  double sent[2] = {0, 0}, received[2] = {0, 0};
  bool sends[2] = {false, false}, receives[2] = {false, false};
  double reduced = 0, copied = 0;
  *any = false;
  for (const OpCost* op = begin; op != end; ++op) {
    const size_t count = std::min(op->count, chunkElements);
    if (count == 0) continue;
    *any = true;
    double bytes = static_cast<double>(count * elementSize * op->times);
    int linkClass = op->crossIsland ? 1 : 0;
    switch (op->kind) {
      case OpKind::Send:
        sent[linkClass] += bytes;
        sends[linkClass] = true;
        break;
      case OpKind::RecvCopy:
        received[linkClass] += bytes;
        receives[linkClass] = true;
        break;
      case OpKind::RecvReduce:
        received[linkClass] += bytes;
        receives[linkClass] = true;
        reduced += bytes;
        break;
      case OpKind::Reduce: reduced += bytes; break;
      case OpKind::Copy: copied += bytes; break;
      case OpKind::Divide: copied += bytes; break;
      case OpKind::IslandReduceScatter:
      case OpKind::IslandReduce:
      case OpKind::IslandAllGather:
      case OpKind::IslandBroadcast: break;  // never pipelined: see islandSeconds
    }
  }
  const LinkCost* links[2] = {&parameters.intraIsland, &parameters.interIsland};
  StepCost cost;
  double network = 0;
  for (int c = 0; c < 2; ++c) {
    if (sends[c]) cost.busy[c] = links[c]->alpha + sent[c] * links[c]->beta;
    if (receives[c]) cost.busy[2 + c] = links[c]->alpha + received[c] * links[c]->beta;
    network = std::max({network, cost.busy[c], cost.busy[2 + c]});
  }
  cost.busy[4] = reduced * parameters.gamma + copied * parameters.copyBeta;
  cost.seconds = parameters.stepOverhead + network + cost.busy[4];
  return cost;
}

// An island collective as a vendor library's ring runs it over the island's links: g - 1
// rounds each moving (and, for a reduce-scatter, reducing) one block; the reduce or broadcast
// of the few elements left over, a tree's log2(g) hops.
double islandSeconds(const OpCost& op, size_t elementSize, const CostParameters& parameters) {
  const LinkCost& link = parameters.intraIsland;
  const double g = op.islandSize;
  double block = static_cast<double>(op.count * elementSize);
  switch (op.kind) {
    case OpKind::IslandReduceScatter:
      return parameters.stepOverhead + (g - 1) * (link.alpha + block * (link.beta + parameters.gamma));
    case OpKind::IslandAllGather:
      block /= g;  // the op's count is the gathered whole
      return parameters.stepOverhead + (g - 1) * (link.alpha + block * link.beta);
    case OpKind::IslandReduce:
      return parameters.stepOverhead + std::ceil(std::log2(g)) * (link.alpha + block * (link.beta + parameters.gamma));
    case OpKind::IslandBroadcast:
      return parameters.stepOverhead + std::ceil(std::log2(g)) * (link.alpha + block * link.beta);
    default: return 0;
  }
}

}  // namespace

double predictSeconds(const CostQuery& query, const CostParameters& parameters) {
  return explainSeconds(query, parameters).total;
}

CostBreakdown explainSeconds(const CostQuery& query, const CostParameters& parameters) {
  static const char* const kResourceNames[5] = {"egress intra", "egress inter", "ingress intra", "ingress inter",
                                                "device"};
  CostBreakdown breakdown;
  thread_local SummaryMemo memo;
  const std::shared_ptr<const PlanSummary> summary = memo.get(query);
  const size_t chunkElements = std::max<size_t>(1, query.chunkBytes / query.elementSize);
  // Island collectives run whole, outside the pipelines: the slowest island's add up.
  double islandTime = 0;
  for (const PlanSummary::Rank& rank : summary->ranks) {
    double mine = 0;
    for (const OpCost& op : rank.islandOps) mine += islandSeconds(op, query.elementSize, parameters);
    islandTime = std::max(islandTime, mine);
  }
  size_t pipelines = 0;
  for (const PlanSummary::Rank& rank : summary->ranks)
    pipelines = std::max(pipelines, (rank.largestOp + chunkElements - 1) / chunkElements);
  breakdown.islandSteps = islandTime;
  if (pipelines == 0) {
    breakdown.total = parameters.stepOverhead + islandTime;
    return breakdown;
  }
  // Costs of the first (full-size) pipeline; later pipelines are the same or smaller.
  std::vector<double> stepTime(summary->steps, 0.0);
  std::vector<bool> stepCrosses(summary->steps, false);
  double busiest = 0;  // the most any one resource of any rank is busy per pipeline
  for (const PlanSummary::Rank& rank : summary->ranks) {
    double busy[5] = {0, 0, 0, 0, 0};
    const OpCost* ops = rank.ops.data();
    for (const PlanSummary::StepRun& run : rank.runs) {
      bool any = false;
      StepCost cost =
          stepCost(ops + run.opsBegin, ops + run.opsEnd, chunkElements, query.elementSize, parameters, &any);
      if (!any) continue;
      // Step by step, so that the sums round exactly as without runs.
      const bool crosses = cost.busy[1] > 0 || cost.busy[3] > 0;
      for (size_t s = run.firstStep; s < run.firstStep + run.steps; ++s) {
        stepTime[s] = std::max(stepTime[s], cost.seconds);
        if (crosses) stepCrosses[s] = true;
        for (int r = 0; r < 5; ++r) busy[r] += cost.busy[r];
      }
    }
    for (int r = 0; r < 5; ++r)
      if (busy[r] > busiest) {
        busiest = busy[r];
        breakdown.busiestResource = kResourceNames[r];
      }
  }
  double latency = 0;
  for (size_t s = 0; s < stepTime.size(); ++s) {
    latency += stepTime[s];
    (stepCrosses[s] ? breakdown.latencyAcross : breakdown.latencyInIsland) += stepTime[s];
  }
  // Either each slot's pipelines run back to back (latency bound), or the busiest resource
  // never rests once the first pipeline has filled the plan (throughput bound).
  const double depth = std::max(1, std::min<int>(query.pipelineDepth, static_cast<int>(pipelines)));
  const double m = static_cast<double>(pipelines);
  breakdown.latency = latency;
  breakdown.busiest = busiest;
  breakdown.pipelines = pipelines;
  breakdown.depth = static_cast<int>(depth);
  breakdown.total = islandTime + std::max(std::ceil(m / depth) * latency, latency + (m - 1) * busiest);
  return breakdown;
}

}  // namespace hetccl
