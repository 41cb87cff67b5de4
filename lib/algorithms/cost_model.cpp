#include "algorithms/cost_model.h"

#include "algorithms/cost_shape.h"
#include "algorithms/island_slices.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <list>
#include <map>
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
// An algorithm whose rounds give islands other roles names them (AlgorithmWriter::addRoleIslands).
std::vector<int> sampledIslands(const TopologyView& topology, Algorithm algorithm) {
  const int N = topology.islandCount();
  std::set<int> islands;
  if (N <= 32) {
    for (int island = 0; island < N; ++island) islands.insert(island);
  } else {
    int P = 1;
    while (2 * P <= N) P *= 2;
    for (int island : {0, 1, N / 2, N - 2, N - 1, P - 1, P, N - P - 1, N - P})
      if (island >= 0 && island < N) islands.insert(island);
    if (const auto addRoleIslands = descriptorOf(algorithm).writer->addRoleIslands) addRoleIslands(N, &islands);
    std::set<int> sizesSeen;
    for (int island = 0; island < N; ++island)
      if (sizesSeen.insert(topology.islandSize(island)).second) islands.insert(island);
    sizesSeen.clear();
    for (int island = N - 1; island >= 0; --island)
      if (sizesSeen.insert(topology.islandSize(island)).second) islands.insert(island);
  }
  return std::vector<int>(islands.begin(), islands.end());
}

std::vector<int> sampledRanks(const TopologyView& topology, Algorithm algorithm) {
  if (topology.nranks <= 64) {
    std::vector<int> all(topology.nranks);
    for (int r = 0; r < topology.nranks; ++r) all[r] = r;
    return all;
  }
  std::set<int> sample;
  for (int index : sampledIslands(topology, algorithm)) {
    const auto& island = topology.members[index];
    sample.insert(island.front());
    sample.insert(island[island.size() / 2]);
    sample.insert(island.back());
  }
  return std::vector<int>(sample.begin(), sample.end());
}

// The sampled ranks' cost shapes, built once for every chunk size the tuner tries.  Their runs
// cut the steps into intervals: `cuts` holds every rank's run boundaries, and within an
// interval every rank's step costs the same, so the model prices intervals, not steps.
struct PlanSummary {
  struct Rank {
    int rank = 0;
    CostShape shape;
    std::vector<std::pair<size_t, size_t>> runIntervals;  // run -> its intervals [first, last)
  };
  std::vector<Rank> ranks;
  std::vector<size_t> cuts;  // interval k is steps [cuts[k], cuts[k + 1])
  size_t opCount = 0;        // ops and runs stored: what bounds the memo
  bool sampled = false;      // some ranks stand for others (sampledRanks)
};

PlanSummary summarize(const CostQuery& query) {
  const TopologyView& topology = *query.request.topology;
  PlanSummary summary;
  const std::vector<int> ranks = sampledRanks(topology, query.algorithm);
  summary.sampled = static_cast<int>(ranks.size()) < topology.nranks;
  std::vector<CostShape> shapes = costShapesOf(query.algorithm, query.request, ranks);
  for (size_t i = 0; i < shapes.size(); ++i) {
    PlanSummary::Rank entry;
    entry.rank = ranks[i];
    entry.shape = std::move(shapes[i]);
    size_t step = 0;
    summary.cuts.push_back(0);
    for (const CostShape::Run& run : entry.shape.runs) {
      step += run.steps;
      summary.cuts.push_back(step);
      summary.opCount += run.ops.size() + 1;
    }
    summary.ranks.push_back(std::move(entry));
  }
  std::sort(summary.cuts.begin(), summary.cuts.end());
  summary.cuts.erase(std::unique(summary.cuts.begin(), summary.cuts.end()), summary.cuts.end());
  for (PlanSummary::Rank& rank : summary.ranks) {
    size_t step = 0, interval = 0;
    for (const CostShape::Run& run : rank.shape.runs) {
      const size_t first = interval;
      step += run.steps;
      while (summary.cuts[interval] < step) ++interval;
      rank.runIntervals.emplace_back(first, interval);
    }
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
  double busy[5] = {0, 0, 0, 0, 0};         // egress intra, egress inter, ingress intra, ingress inter, device
  double crossSent = 0, crossReceived = 0;  // bytes to and from other islands (the island's uplink)
};

// The cost of ops [begin, end) of one rank cut to chunk 0; *any is false when every op's
// chunk is empty (the step does not run).
StepCost stepCost(const std::vector<CostOp>& ops, size_t chunkElements, size_t elementSize,
                  const CostParameters& parameters, bool* any) {
  double sent[2] = {0, 0}, received[2] = {0, 0};
  bool sends[2] = {false, false}, receives[2] = {false, false};
  double reduced = 0, copied = 0;
  *any = false;
  for (const CostOp* op = ops.data(); op != ops.data() + ops.size(); ++op) {
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
  cost.crossSent = sent[1];
  cost.crossReceived = received[1];
  cost.seconds = parameters.stepOverhead + network + cost.busy[4];
  return cost;
}

// An island collective as a vendor library's ring runs it over the island's links: g - 1
// rounds each moving (and, for a reduce-scatter, reducing) one block; the reduce or broadcast
// of the few elements left over, a tree's log2(g) hops.
double islandSeconds(const CostOp& op, size_t elementSize, const CostParameters& parameters) {
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

// What the sampled ranks of one island send to and receive from other islands, per interval
// of steps (the island's shared uplink: CostParameters::islandUplinkBeta).
struct IslandTraffic {
  std::vector<double> sent, received;  // bytes per step, summed over the sampled ranks
  int sampledRanks = 0;
};

// Stretches each interval's steps to what the island's uplink takes to carry the whole
// island's cross-island bytes (the sampled ranks' scaled to the island's size: plans are
// symmetric within an island), each direction on its own; returns how long the busier
// direction is busy per pipeline.
double addIslandUplinks(const IslandTraffic& traffic, int islandSize, const std::vector<size_t>& cuts,
                        const CostParameters& parameters, std::vector<double>* intervalTime,
                        std::vector<bool>* intervalCrosses) {
  const double scale = static_cast<double>(islandSize) / traffic.sampledRanks;
  double busySending = 0, busyReceiving = 0;
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    const double bytes = std::max(traffic.sent[k], traffic.received[k]) * scale;
    if (bytes <= 0) continue;
    const double steps = static_cast<double>(cuts[k + 1] - cuts[k]);
    const double seconds = parameters.stepOverhead + parameters.interIsland.alpha + bytes * parameters.islandUplinkBeta;
    (*intervalTime)[k] = std::max((*intervalTime)[k], seconds);
    (*intervalCrosses)[k] = true;
    busySending += traffic.sent[k] * scale * parameters.islandUplinkBeta * steps;
    busyReceiving += traffic.received[k] * scale * parameters.islandUplinkBeta * steps;
  }
  return std::max(busySending, busyReceiving);
}

const char* const kResourceNames[5] = {"egress intra", "egress inter", "ingress intra", "ingress inter", "device"};

// One pipeline through the plan with chunks of `chunkElements`: when each interval of steps
// starts, each rank's span of intervals, and its busiest resource.
struct OnePipeline {
  std::vector<double> elapsed;  // before interval k; back(): the pipeline's latency L
  std::vector<std::pair<size_t, size_t>> spans;
  double busiest = 0;  // the most any one resource of any rank is busy per pipeline (B)
  const char* busiestResource = "";
  double latencyInIsland = 0, latencyAcross = 0;
};

OnePipeline priceOnePipeline(const PlanSummary& summary, const CostQuery& query, const CostParameters& parameters,
                             size_t chunkElements) {
  OnePipeline pipeline;
  // A step of the job takes as long as its slowest rank: per interval of steps, the slowest.
  const size_t intervals = summary.cuts.size() - 1;
  std::vector<double> intervalTime(intervals, 0.0);
  std::vector<bool> intervalCrosses(intervals, false);
  const bool sharedUplinks = parameters.islandUplinkBeta > 0;
  std::map<int, IslandTraffic> islandTraffic;  // sampled islands, when their uplinks are shared
  // Per rank, the intervals from its first step to the end of its last: a slot holds a
  // pipeline only while the rank works on it, not while the rank waits for its turn.
  for (const PlanSummary::Rank& rank : summary.ranks) {
    std::pair<size_t, size_t> span{0, 0};
    IslandTraffic* traffic = nullptr;
    if (sharedUplinks) {
      traffic = &islandTraffic[query.request.topology->islandOf[rank.rank]];
      traffic->sent.resize(intervals, 0.0);
      traffic->received.resize(intervals, 0.0);
      ++traffic->sampledRanks;
    }
    double busy[5] = {0, 0, 0, 0, 0};
    bool started = false;  // this rank has done its first step
    for (size_t r = 0; r < rank.shape.runs.size(); ++r) {
      const CostShape::Run& run = rank.shape.runs[r];
      bool any = false;
      StepCost cost = stepCost(run.ops, chunkElements, query.elementSize, parameters, &any);
      if (!any) continue;
      const bool crosses = cost.busy[1] > 0 || cost.busy[3] > 0;
      // A sampled rank that idles before its first step waits for data passed on by ranks
      // that may not be sampled (a chain's, a tree's): each step of its wait is priced as the
      // step it then does.  With every rank summarized, their own steps price the wait.
      if (!started) {
        span.first = rank.runIntervals[r].first;
        if (summary.sampled)
          for (size_t k = 0; k < span.first; ++k) {
            intervalTime[k] = std::max(intervalTime[k], cost.seconds);
            if (crosses) intervalCrosses[k] = true;
          }
        started = true;
      }
      span.second = rank.runIntervals[r].second;  // runs come in step order
      for (size_t k = rank.runIntervals[r].first; k < rank.runIntervals[r].second; ++k) {
        intervalTime[k] = std::max(intervalTime[k], cost.seconds);
        if (crosses) intervalCrosses[k] = true;
        if (traffic != nullptr) {
          traffic->sent[k] += cost.crossSent;
          traffic->received[k] += cost.crossReceived;
        }
      }
      for (int b = 0; b < 5; ++b) busy[b] += cost.busy[b] * static_cast<double>(run.steps);
    }
    for (int b = 0; b < 5; ++b)
      if (busy[b] > pipeline.busiest) {
        pipeline.busiest = busy[b];
        pipeline.busiestResource = kResourceNames[b];
      }
    if (started) pipeline.spans.push_back(span);
  }
  for (const auto& [island, traffic] : islandTraffic) {
    const double busy = addIslandUplinks(traffic, query.request.topology->islandSize(island), summary.cuts, parameters,
                                         &intervalTime, &intervalCrosses);
    if (busy > pipeline.busiest) {
      pipeline.busiest = busy;
      pipeline.busiestResource = "island uplink";
    }
  }
  pipeline.elapsed.assign(intervals + 1, 0.0);
  for (size_t k = 0; k < intervals; ++k) {
    const double seconds = intervalTime[k] * static_cast<double>(summary.cuts[k + 1] - summary.cuts[k]);
    pipeline.elapsed[k + 1] = pipeline.elapsed[k] + seconds;
    (intervalCrosses[k] ? pipeline.latencyAcross : pipeline.latencyInIsland) += seconds;
  }
  return pipeline;
}

}  // namespace

double predictSeconds(const CostQuery& query, const CostParameters& parameters) {
  return explainSeconds(query, parameters).total;
}

double slicedTimeline(const std::vector<SliceCost>& slices) {
  const size_t count = slices.size();
  double executor = 0, island = 0;  // when each is free
  double started = 0;               // when the last exchange started
  std::vector<double> reduceScattered(count, 0.0);
  auto queue = [&](double seconds) { return island = std::max(island, executor) + seconds; };
  for (size_t r = 0; r < std::min<size_t>(2, count); ++r) reduceScattered[r] = queue(slices[r].before);
  for (size_t r = 0; r < count; ++r) {
    // An exchange starts while the one before drains (Step::overlapsPrevious): all that its
    // pipelines do before they reach the busiest resource, which the one before still holds.
    const double drainOfPrevious = r == 0 ? 0 : slices[r].overlap;
    started = std::max({executor - drainOfPrevious, started, reduceScattered[r]});
    executor = std::max(executor, started + slices[r].exchange);
    queue(slices[r].after);
    if (r + 2 < count) reduceScattered[r + 2] = queue(slices[r + 2].before);
  }
  return std::max(executor, island);
}

namespace {

// A sliced plan: an edge slice and an inner one priced whole (island_slices.h cuts no other
// sizes, up to an element), their parts laid on the timeline.  The breakdown is the inner
// slice's, with the totals of all.
CostBreakdown explainSliced(const CostQuery& query, const CostParameters& parameters) {
  const int slices = query.request.islandSlices;
  auto priced = [&](int index) {
    CostQuery slice = query;
    slice.request = sliceRequest(query.request, index);
    return explainSeconds(slice, parameters);
  };
  const CostBreakdown edge = priced(0), inner = slices > 2 ? priced(1) : edge;
  auto costOf = [](const CostBreakdown& b) {
    const double exchange = b.total - b.islandSteps;
    // What one pipeline spends off its busiest resource: the fill the next exchange overlaps.
    const double overlap = std::clamp(b.latency - b.busiest, 0.0, exchange);
    return SliceCost{b.islandBefore, exchange, b.islandAfter, overlap};
  };
  std::vector<SliceCost> timeline(static_cast<size_t>(slices), costOf(inner));
  timeline.front() = timeline.back() = costOf(edge);
  CostBreakdown breakdown = inner;
  breakdown.islandSlices = slices;
  breakdown.sliceExchange = inner.total - inner.islandSteps;
  breakdown.islandSteps = 2 * edge.islandSteps + (slices - 2) * inner.islandSteps;
  breakdown.total = slicedTimeline(timeline);
  return breakdown;
}

}  // namespace

CostBreakdown explainSeconds(const CostQuery& query, const CostParameters& parameters) {
  if (query.request.islandSlices > 1 && slicesIslandSteps(query.algorithm, query.request))
    return explainSliced(query, parameters);
  CostBreakdown breakdown;
  thread_local SummaryMemo memo;
  const std::shared_ptr<const PlanSummary> summary = memo.get(query);
  size_t chunkElements = std::max<size_t>(1, query.chunkBytes / query.elementSize);
  // Island collectives run whole, outside the pipelines: the slowest island's add up.
  double islandTime = 0;
  for (const PlanSummary::Rank& rank : summary->ranks) {
    double mine = 0, before = 0;
    for (const CostOp& op : rank.shape.islandOps) {
      const double seconds = islandSeconds(op, query.elementSize, parameters);
      mine += seconds;
      // An island all-reduce reduces before its exchange and gathers or broadcasts after it.
      if (op.kind == OpKind::IslandReduceScatter || op.kind == OpKind::IslandReduce) before += seconds;
    }
    islandTime = std::max(islandTime, mine);
    breakdown.islandBefore = std::max(breakdown.islandBefore, before);
    breakdown.islandAfter = std::max(breakdown.islandAfter, mine - before);
  }
  size_t largestOp = 0;
  bool opsWhole = false;
  for (const PlanSummary::Rank& rank : summary->ranks) {
    largestOp = std::max(largestOp, rank.shape.largestOp);
    opsWhole = opsWhole || rank.shape.opsWhole;
  }
  if (opsWhole) chunkElements = std::max<size_t>(1, largestOp);  // one pipeline (RankPlan::opsWhole)
  const size_t pipelines = (largestOp + chunkElements - 1) / chunkElements;
  breakdown.islandSteps = islandTime;
  if (pipelines == 0) {
    breakdown.total = parameters.stepOverhead + islandTime;
    return breakdown;
  }
  // The first pipeline carries full chunks; the last one what is left of the largest op,
  // priced for that (a phase of 2.4 chunks was priced as 3 full ones: 1.25x its bytes, and the
  // tuner kept away from every chunk that does not divide the blocks).
  const OnePipeline full = priceOnePipeline(*summary, query, parameters, chunkElements);
  const size_t lastChunk = largestOp - (pipelines - 1) * chunkElements;
  const bool lastIsPartial = pipelines > 1 && lastChunk < chunkElements;
  const OnePipeline partial = lastIsPartial ? priceOnePipeline(*summary, query, parameters, lastChunk) : OnePipeline{};
  const OnePipeline& last = lastIsPartial ? partial : full;
  const double latency = full.elapsed.back();
  // Either each rank's slots run their pipelines back to back once its turn comes (latency
  // bound W: a chain's last rank starts late but holds each pipeline for one step), or the
  // busiest resource never rests once the first pipeline has filled the plan (throughput
  // bound).  Where every rank works from the first step to the last, W = ceil(m / depth) L.
  const size_t depth =
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(1, query.pipelineDepth)), pipelines));
  const size_t rounds = (pipelines + depth - 1) / depth;
  // Slot 0 holds pipelines 0, depth, 2 depth ...: the last one too when (m - 1) % depth == 0.
  const bool slotZeroEndsPartial = (pipelines - 1) % depth == 0;
  double latencyBound = 0;
  for (const auto& [first, end] : full.spans) {
    const double span = full.elapsed[end] - full.elapsed[first];
    const double lastSpan = slotZeroEndsPartial ? last.elapsed[end] - last.elapsed[first] : span;
    latencyBound = std::max(latencyBound, full.elapsed[first] + static_cast<double>(rounds - 1) * span + lastSpan);
  }
  const double throughputBound =
      pipelines == 1 ? latency : latency + static_cast<double>(pipelines - 2) * full.busiest + last.busiest;
  breakdown.latencyAcross = full.latencyAcross;
  breakdown.latencyInIsland = full.latencyInIsland;
  breakdown.busiestResource = full.busiestResource;
  breakdown.lastBusiest = pipelines > 1 ? last.busiest : 0;
  breakdown.latency = latency;
  breakdown.slotBound = latencyBound;
  breakdown.busiest = full.busiest;
  breakdown.pipelines = pipelines;
  breakdown.depth = static_cast<int>(depth);
  breakdown.total = islandTime + std::max(latencyBound, throughputBound);
  return breakdown;
}

}  // namespace hetccl
