// The cost model: replays plans (as their cost shapes: cost_shape.h) over an alpha-beta-gamma
// model of the links to predict how long an operation takes, so the tuner can choose an
// algorithm and chunk size and hetccl-sim can answer "what if" for clusters we do not have.
//
// Per step of a pipeline (a plan step cut to one chunk), a rank spends
//   max over link classes of (alpha + bytes sent on that class * beta)   -- egress is serial,
//   the same for what it receives (ingress), then gamma per byte it reduces and the copy cost
//   per byte it copies locally, plus a fixed per-step overhead of the executor.  Where the
//   islands share an uplink (CostParameters::islandUplinkBeta), a step also lasts at least as
//   long as the uplink takes to carry what all of an island's ranks send across in it.
// A step of the job takes as long as its slowest rank; a pipeline's latency L is the sum of
// its steps.  Each rank's egress and ingress per link class and its device are serial
// resources; B is the longest any of them is busy per pipeline (a flat ring crossing a slow
// link keeps that link busy in every step).  With M chunk pipelines, D in flight, the
// operation takes about max(W, L + (M - 1) * B): the slots' latency bound or the busiest
// resource's throughput bound, whichever binds.  W is, for the latest rank, the time before
// its first step plus ceil(M / D) times the steps from its first to its last: a slot holds a
// pipeline while its rank works on it, not while the rank waits for a chain or a tree to
// reach it (ranks idle in those steps: plan_writer.h, idleSteps).  Where every rank works in
// the first step and the last, W = ceil(M / D) * L.  The last pipeline carries what is left
// of the largest op, often less than a chunk: its L and B are its own (a phase of 2.4 chunks
// costs 2.4 chunks' bytes, not 3).
#pragma once

#include <vector>

#include "algorithms/algorithm.h"

namespace hetccl {

struct LinkCost {
  double alpha = 5e-6;      // seconds per message
  double beta = 1.0 / 5e9;  // seconds per byte
};

struct CostParameters {
  LinkCost intraIsland;
  LinkCost interIsland;
  // Seconds per byte of everything an island's ranks send to other islands at once (and,
  // separately, receive from them): a trunk between two vendors' switches that concurrent
  // cross-island pairs share.  0: no shared limit, each rank's own inter-island link binds.
  double islandUplinkBeta = 0;
  double gamma = 1.0 / 4e9;     // seconds per byte reduced (read two, write one)
  double copyBeta = 1.0 / 5e9;  // seconds per byte copied locally
  double stepOverhead = 10e-6;  // executor bookkeeping per pipeline step
};

struct CostQuery {
  Algorithm algorithm = Algorithm::Ring;
  PlanRequest request;  // request.topology must be set
  size_t elementSize = 4;
  size_t chunkBytes = size_t{1} << 20;
  int pipelineDepth = 4;
};

// Predicted seconds.  Ranks are sampled when there are many (the first, a middle and the last
// rank of every island, or of a bounded set of them when there are many: see
// sampledIslands), since plans are symmetric within islands and across islands of one role.
double predictSeconds(const CostQuery& query, const CostParameters& parameters);

// The same prediction taken apart, for tools (hetccl-sim --explain): total =
// islandSteps + max(slotBound, latency + (pipelines - 2) * busiest + lastBusiest), or
// islandSteps + max(slotBound, latency) for one pipeline.
struct CostBreakdown {
  double total = 0;
  double islandSteps = 0;  // vendor-library island collectives, run whole
  // Island slices (island_slices.h): the island steps before and after one slice's exchange,
  // the exchange itself (its own breakdown's pipelined part), and how many slices; total is
  // then the timeline of the island stream beside the executor's phases, not the sum.
  int islandSlices = 1;
  double islandBefore = 0, islandAfter = 0, sliceExchange = 0;
  double latency = 0;                             // one pipeline through every step (L)
  double latencyInIsland = 0, latencyAcross = 0;  // L split: steps with no / some cross-island op
  double slotBound = 0;                           // W, the slots' latency bound (above)
  double busiest = 0;                             // the busiest resource per pipeline (B)
  double lastBusiest = 0;            // B of the last pipeline, which carries what is left (< a chunk); 0: one pipeline
  const char* busiestResource = "";  // "egress intra", ..., "device", "island uplink"
  size_t pipelines = 0;
  int depth = 0;
};
CostBreakdown explainSeconds(const CostQuery& query, const CostParameters& parameters);

// The time of slices whose island steps take `before` and `after` and whose exchange takes
// `exchange`, interleaved as island_slices.h writes them: the island stream runs the island
// steps in plan order, each once the executor has queued it, and each exchange starts when its
// slice's reduce-scatter has ended and the exchange before has `overlap` left to run (the
// executor starts it while that one drains: island_slices.h).
struct SliceCost {
  double before = 0, exchange = 0, after = 0;
  double overlap = 0;  // of the exchange's time, what may run beside the exchange before's end
};
double slicedTimeline(const std::vector<SliceCost>& slices);

}  // namespace hetccl
