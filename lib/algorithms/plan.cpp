#include "algorithms/plan.h"

#include <algorithm>
#include <sstream>

namespace hetccl {

const char* opKindName(OpKind kind) {
  switch (kind) {
    case OpKind::Send: return "send";
    case OpKind::RecvCopy: return "recv-copy";
    case OpKind::RecvReduce: return "recv-reduce";
    case OpKind::Copy: return "copy";
    case OpKind::Reduce: return "reduce";
    case OpKind::Divide: return "divide";
    case OpKind::IslandReduceScatter: return "island-reduce-scatter";
    case OpKind::IslandReduce: return "island-reduce";
    case OpKind::IslandAllGather: return "island-all-gather";
    case OpKind::IslandBroadcast: return "island-broadcast";
  }
  return "?";
}

bool isIslandOp(OpKind kind) {
  return kind == OpKind::IslandReduceScatter || kind == OpKind::IslandReduce || kind == OpKind::IslandAllGather ||
         kind == OpKind::IslandBroadcast;
}

bool isIslandStep(const Step& step) { return !step.ops.empty() && isIslandOp(step.ops.front().kind); }

const char* collectiveName(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "allreduce";
    case Collective::ReduceScatter: return "reducescatter";
    case Collective::AllGather: return "allgather";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::AlltoAll: return "alltoall";
    case Collective::SendRecv: return "sendrecv";
  }
  return "?";
}

RankPlan emptyPlan(const PlanRequest& request, int rank, const char* algorithm) {
  RankPlan plan;
  plan.rank = rank;
  plan.nranks = request.nranks;
  plan.algorithm = algorithm;
  plan.divisor = static_cast<uint64_t>(request.nranks);
  return plan;
}

void addOp(Step& step, const Op& op) {
  size_t count = (op.kind == OpKind::Send) ? op.src.count : op.dst.count;
  if (count > 0) step.ops.push_back(op);
}

void pushIfAny(RankPlan& plan, Step& step) {
  // A copy, not a move: builders reuse `step`, and its capacity, for the next step.
  if (!step.ops.empty()) plan.steps.push_back(step);
  step.ops.clear();
}

size_t blockBegin(size_t count, int parts, int index) {
  size_t base = count / parts, extra = count % parts;
  size_t i = static_cast<size_t>(index);
  return i * base + std::min(i, extra);
}

size_t blockCount(size_t count, int parts, int index) {
  return count / parts + (static_cast<size_t>(index) < count % parts ? 1 : 0);
}

Region fixedBlock(int buffer, size_t blockSize, int index) {
  return Region{buffer, static_cast<size_t>(index) * blockSize, blockSize};
}

int blockIndexOf(size_t count, int parts, size_t element) {
  size_t base = count / parts, extra = count % parts;
  // The first `extra` blocks have base + 1 elements.
  if (element < extra * (base + 1)) return static_cast<int>(element / (base + 1));
  return static_cast<int>(extra + (element - extra * (base + 1)) / base);
}

static void describeRegion(std::ostream& out, const Region& r) {
  static const char* names[] = {"in", "out", "scratch"};
  if (r.buffer < kFirstUserBuffer)
    out << names[r.buffer];
  else
    out << "user" << (r.buffer - kFirstUserBuffer);
  out << "[" << r.offset << "+" << r.count << "]";
}

std::string describePlan(const RankPlan& plan) {
  std::ostringstream out;
  out << plan.algorithm << " rank " << plan.rank << "/" << plan.nranks << ", " << plan.steps.size()
      << " steps, scratch " << plan.scratchCount << "\n";
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    out << "  step " << s << ":";
    for (const Op& op : plan.steps[s].ops) {
      out << " " << opKindName(op.kind);
      if (op.peer >= 0) out << "(" << op.peer << ")";
      out << " ";
      if (op.kind == OpKind::Send || op.kind == OpKind::RecvReduce || op.kind == OpKind::Copy ||
          op.kind == OpKind::Reduce || isIslandOp(op.kind)) {
        describeRegion(out, op.src);
        if (op.kind != OpKind::Send) out << "->";
      }
      if (op.kind != OpKind::Send) describeRegion(out, op.dst);
      if (op.receivedFirst) out << " received-first";
      out << ";";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace hetccl
