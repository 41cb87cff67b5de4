// A Plan is an algorithm written down as data: for one rank, an ordered list of steps, each a
// set of operations on regions of the operation's buffers.  The executor runs it, the
// verifier proves it correct on symbolic data, and the cost model replays it to predict its
// time.  Plans know nothing of MPI, devices or pointers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/topology_view.h"
#include "base/element.h"

namespace hetccl {

// Which buffer a region lies in.  Point-to-point groups use one buffer per operation,
// numbered from kFirstUserBuffer.
enum BufferId : int { kInputBuffer = 0, kOutputBuffer = 1, kScratchBuffer = 2, kFirstUserBuffer = 3 };

// A contiguous range of elements of one buffer.
struct Region {
  int buffer = kInputBuffer;
  size_t offset = 0;
  size_t count = 0;
};

enum class OpKind : uint8_t {
  Send,        // send `src` to `peer`
  RecvCopy,    // receive from `peer` into `dst`
  RecvReduce,  // receive from `peer`, then dst = src (op) received (see Op::receivedFirst)
  Copy,        // dst = src (local)
  Reduce,      // dst = dst (op) src (local; see Op::receivedFirst)
  Divide,      // dst = dst / divisor (the end of an average)
  // Island collectives: every member of the rank's island runs the same ones, in the same
  // order, through the island's vendor library (NCCL, RCCL).  A step holding them holds
  // nothing else and is never cut into chunks: the executor runs it whole, between the
  // pipelined phases before and after it (see chunking.h).  `peer` is a root's index in the
  // island.  Reductions sum an average; the plan's Divide ops finish it.
  IslandReduceScatter,  // dst (q elements) = block `index in island` of src (g * q), summed over the island
  IslandReduce,         // on the root only: dst = src summed over the island
  IslandAllGather,      // dst (g * q elements) = every member's src (q), in island order
  IslandBroadcast,      // dst = the root's src
};
const char* opKindName(OpKind kind);
bool isIslandOp(OpKind kind);

struct Op {
  OpKind kind = OpKind::Copy;
  int peer = -1;
  Region src;
  Region dst;
  // The operand order of a reduction, which decides the bits where op(a, b) and op(b, a)
  // differ (max/min of two NaNs keep the first one's payload): RecvReduce computes dst =
  // received (op) src instead of src (op) received, Reduce dst = src (op) dst instead of
  // dst (op) src (src holding what an earlier step received).  Partners that both reduce the
  // same two partials set it on one side, so that both compute the same op(a, b).
  bool receivedFirst = false;
};

// A reduction's two operands in the order it combines them, op(first, second): `held` is what
// the rank had (Reduce: dst; RecvReduce: src), `arrived` what came from the partner (Reduce:
// src, which an earlier step received; RecvReduce: the received data).  The executor and the
// verifier both take the order from here, so that what runs is what was proved.
template <typename T>
struct ReductionOperands {
  T first;
  T second;
};
template <typename T>
ReductionOperands<T> reductionOperands(const Op& op, T held, T arrived) {
  return op.receivedFirst ? ReductionOperands<T>{arrived, held} : ReductionOperands<T>{held, arrived};
}

// All operations of a step start together; the step ends when all have completed.  A later
// step sees every effect of an earlier one.  Operations of one step must not write a region
// that another operation of the same step reads or writes (the verifier checks this).
struct Step {
  std::vector<Op> ops;
  // The executor starts a new pipelined phase here even after an ordinary step (chunking.h):
  // a plan cut into island slices (island_slices.h) runs each slice's cross-island steps as a
  // phase of their own on every rank, so that chunk m of a phase means the same elements at
  // both ends of every message.
  bool startsPhase = false;
  // A phase that may overlap the one before it (island_slices.h): the executor starts it while
  // the phase before drains, ahead of the island steps between them, and its pipelines use half
  // of the run's tags (tagHalf 0 or 1, alternating) so that the two phases' messages never match
  // each other's.  The verifier proves that the two phases and the island steps between touch
  // no memory that one of them writes.  tagHalf -1: an ordinary phase, every tag of the run.
  bool overlapsPrevious = false;
  int8_t tagHalf = -1;
};
// Whether a step is an island-collective step (its ops are island collectives).
bool isIslandStep(const Step& step);

enum class Collective : uint8_t {
  AllReduce,
  ReduceScatter,
  AllGather,
  Broadcast,
  Reduce,
  AlltoAll,
  SendRecv,
};
const char* collectiveName(Collective c);

// What the plan builders are asked for.  Counts follow NCCL: per-rank for reduce-scatter
// (recvcount), all-gather (sendcount) and all-to-all (per peer).
struct PlanRequest {
  Collective collective = Collective::AllReduce;
  size_t count = 0;
  int nranks = 1;
  int root = 0;
  bool inPlace = false;  // some plans need scratch space when input and output alias
  bool average = false;  // append the Divide of an average (op == Avg)
  // The job's islands; nullptr means one island of all ranks.  Flat plans ignore it.
  const TopologyView* topology = nullptr;
  // Islands with a vendor library (topology->islandLibrary) hand their collective steps to it;
  // false keeps hetccl's own island algorithms everywhere (floating-point max/min, whose NaN
  // and signed-zero rules the vendor libraries do not promise).
  bool vendorIslandSteps = true;
  // The hierarchical all-reduces' island slices (island_slices.h): the buffer is cut into this
  // many slices, each all-reduced by its own island steps and cross-island phase, so that the
  // vendor library's island steps of one slice overlap the network phase of another.  1: whole.
  int islandSlices = 1;
};

struct RankPlan {
  int rank = 0;
  int nranks = 1;
  std::string algorithm;  // "ring", "chain", "pairwise", "p2p", ...
  std::vector<Step> steps;
  size_t scratchCount = 0;  // elements of scratch the plan needs
  uint64_t divisor = 1;     // for Divide ops
  // Every op runs whole, never cut into chunks (chunking.h): the plan hands data between
  // regions of different lengths (a round that sends, as one message, blocks that earlier rounds
  // wrote as smaller regions), which pipelines would cut at different offsets.  Set on every
  // rank of an algorithm alike, so both ends of each transfer agree.  A receive-reduce then
  // stages its whole region, not a chunk of it.
  bool opsWhole = false;
};

// A plan with no steps yet for `rank`, named `algorithm`, dividing by the rank count (avg).
RankPlan emptyPlan(const PlanRequest& request, int rank, const char* algorithm);
// Appends an op only when its region is non-empty: both ends of a transfer compute the same
// count, so skipping empty transfers is consistent across ranks.
void addOp(Step& step, const Op& op);
// Appends `step` unless addOp left it empty (a rank with nothing to do in it skips it, as its
// peers, which compute the same counts, expect), then clears it for the builder's next step.
void pushIfAny(RankPlan& plan, Step& step);
// Element range [begin, end) of block `index` when `count` elements are split into `parts`
// nearly equal blocks (the first count % parts blocks get one extra element).
size_t blockBegin(size_t count, int parts, int index);
size_t blockCount(size_t count, int parts, int index);
// Block `index` of `buffer` when it is made of equal blocks of `blockSize` elements.
Region fixedBlock(int buffer, size_t blockSize, int index);
// `n` adjacent blocks the size of `first`, from `first` on.
inline Region blocks(Region first, int n) {
  first.count *= static_cast<size_t>(n);
  return first;
}
// The block that holds `element` (element < count).
int blockIndexOf(size_t count, int parts, size_t element);
inline int modRank(long value, int nranks) {
  long m = value % nranks;
  return static_cast<int>(m < 0 ? m + nranks : m);
}
// A readable dump of a plan, for HETCCL_DEBUG=TRACE and test failures.
std::string describePlan(const RankPlan& plan);

}  // namespace hetccl
