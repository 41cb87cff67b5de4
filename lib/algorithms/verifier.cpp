#include "algorithms/verifier.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <sstream>
#include <utility>
#include <vector>

#include "algorithms/chunking.h"

namespace hetccl {

namespace {

// One contribution: element `index` of rank `rank`'s input.
using Term = std::pair<int, size_t>;

struct Symbol {
  bool garbage = true;  // never written: reading it into a result is a bug
  int divisions = 0;
  std::vector<Term> terms;
  // A hash of how the value was computed: which inputs, combined in which order and grouping,
  // divided where.  Equal shapes are equal bits whatever the reduction (op(a, b) and op(b, a)
  // differ for max/min on NaNs, (a + b) + c and a + (b + c) for floating-point sums).
  uint64_t shape = 0;
};

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Symbol inputSymbol(int rank, size_t index) {
  return Symbol{false, 0, {{rank, index}}, mix(mix(static_cast<uint64_t>(rank) + 1) ^ index)};
}

// op(a, b), a first.
Symbol combine(const Symbol& a, const Symbol& b) {
  Symbol out{a.garbage || b.garbage, a.divisions + b.divisions, a.terms,
             mix(mix(a.shape) + 0x632be59bd9b4e019ULL * b.shape)};
  out.terms.insert(out.terms.end(), b.terms.begin(), b.terms.end());
  return out;
}

void divide(Symbol& x) {
  x.divisions++;
  x.shape = mix(x.shape ^ 0xd1b54a32d192ed03ULL);
}

// Physical storage of one rank: in place, input and output are views of one array.
struct RankMemory {
  std::vector<Symbol> input, output, scratch;
  bool aliased = false;
  bool outputHolds = true;      // aliased: which storage holds both views
  size_t inputViewOffset = 0;   // aliased: input starts here within output storage...
  size_t outputViewOffset = 0;  // ...or output starts here within input storage
  size_t inputCount = 0, outputCount = 0;
};

// The arrays of RankMemory a cell lies in.
enum class Storage { Input, Output, Scratch };

struct CellRange {
  Storage storage = Storage::Input;
  size_t begin = 0, end = 0;
};

struct Message {
  size_t count = 0;
  std::vector<Symbol> data;
  bool consumed = false;
};

// What an op reads and writes: its source (sends, receives that reduce, copies, reductions,
// island collectives), its destination (every op but a send).
bool readsSource(const Op& op) {
  return op.kind == OpKind::Send || op.kind == OpKind::RecvReduce || op.kind == OpKind::Copy ||
         op.kind == OpKind::Reduce || isIslandOp(op.kind);
}
bool writesDestination(const Op& op) { return op.kind != OpKind::Send; }

class Simulation {
 public:
  Simulation(const PlanRequest& request, const PlanBuilder& builder, const VerifyOptions& options)
      : request_(request), p_(request.nranks) {
    for (int r = 0; r < p_; ++r) plans_.push_back(builder(request, r));
    for (int r = 0; r < p_; ++r) {
      memories_.push_back(makeMemory(r, plans_[r].scratchCount));
      work_.push_back(flatten(plans_[r], options));
    }
    channels_.resize(static_cast<size_t>(p_) * p_);
  }

  VerifyResult run() {
    for (int r = 0; r < p_; ++r)
      if (!checkOverlappingPhases(r)) return result_;
    std::vector<size_t> position(p_, 0);
    std::vector<bool> posted(p_, false);
    std::vector<std::vector<std::pair<int, size_t>>> pendingSends(p_);  // channel, message
    std::vector<std::vector<size_t>> pendingRecvs(p_);                  // op indexes
    for (bool progress = true; progress;) {
      progress = false;
      for (int r = 0; r < p_; ++r) {
        if (position[r] >= work_[r].size()) continue;
        const std::vector<Op>& ops = work_[r][position[r]];
        if (!ops.empty() && isIslandOp(ops.front().kind)) {
          // An island collective: it runs once every member of the island has reached it.
          if (!posted[r]) {
            if (!checkHazards(r, ops)) return result_;
            posted[r] = true;
            progress = true;
          }
          const std::vector<int>& members = islandMembers(r);
          bool allArrived = std::all_of(members.begin(), members.end(), [&](int m) {
            return posted[m] && position[m] < work_[m].size() && !work_[m][position[m]].empty() &&
                   isIslandOp(work_[m][position[m]].front().kind);
          });
          if (!allArrived) continue;
          std::vector<const std::vector<Op>*> steps;
          for (int m : members) steps.push_back(&work_[m][position[m]]);
          if (!runIslandStep(members, steps)) return result_;
          for (int m : members) {
            posted[m] = false;
            ++position[m];
          }
          progress = true;
          continue;
        }
        if (!posted[r]) {
          if (!checkHazards(r, ops)) return result_;
          if (!postStep(r, ops, pendingSends[r], pendingRecvs[r])) return result_;
          posted[r] = true;
          progress = true;
        }
        if (!matchReceives(r, ops, pendingRecvs[r], &progress)) return result_;
        bool sendsDone = std::all_of(pendingSends[r].begin(), pendingSends[r].end(),
                                     [&](auto& s) { return channels_[s.first][s.second].consumed; });
        if (sendsDone && pendingRecvs[r].empty()) {
          pendingSends[r].clear();
          posted[r] = false;
          ++position[r];
          progress = true;
        }
      }
    }
    for (int r = 0; r < p_; ++r)
      if (position[r] < work_[r].size())
        return fail("deadlock: rank " + std::to_string(r) + " is stuck in step " + std::to_string(position[r]) + "\n" +
                    describePlan(plans_[r]));
    for (size_t c = 0; c < channels_.size(); ++c)
      for (const Message& m : channels_[c])
        if (!m.consumed)
          return fail("a message from rank " + std::to_string(c / p_) + " to rank " + std::to_string(c % p_) +
                      " was never received");
    checkResults();
    return result_;
  }

 private:
  RankMemory makeMemory(int rank, size_t scratchCount) const {
    RankMemory m;
    const size_t n = request_.count, p = static_cast<size_t>(p_);
    switch (request_.collective) {
      case Collective::ReduceScatter:
        m.inputCount = n * p;
        m.outputCount = n;
        break;
      case Collective::AllGather:
        m.inputCount = n;
        m.outputCount = n * p;
        break;
      case Collective::AlltoAll: m.inputCount = m.outputCount = n * p; break;
      default: m.inputCount = m.outputCount = n; break;
    }
    m.aliased = request_.inPlace;
    if (request_.inPlace && request_.collective == Collective::ReduceScatter) m.outputViewOffset = rank * n;
    if (request_.inPlace && request_.collective == Collective::AllGather) m.inputViewOffset = rank * n;
    // Aliased storage lives in whichever view is larger.
    m.outputHolds = !m.aliased || m.outputCount >= m.inputCount;
    m.output.resize(m.outputHolds ? m.outputCount : 0);
    m.input.resize(m.aliased && m.outputHolds ? 0 : m.inputCount);
    m.scratch.resize(scratchCount);
    for (size_t i = 0; i < m.inputCount; ++i) *cellIn(m, kInputBuffer, i) = inputSymbol(rank, i);
    return m;
  }

  // The cell behind element `index` of `buffer`, or nullptr when out of bounds.
  Symbol* cellIn(RankMemory& m, int buffer, size_t index) const {
    CellRange range;
    if (!locate(m, buffer, index, 1, &range)) return nullptr;
    std::vector<Symbol>& storage = range.storage == Storage::Input    ? m.input
                                   : range.storage == Storage::Output ? m.output
                                                                      : m.scratch;
    return &storage[range.begin];
  }

  bool locate(const RankMemory& m, int buffer, size_t offset, size_t count, CellRange* range) const {
    size_t limit = buffer == kInputBuffer ? m.inputCount : buffer == kOutputBuffer ? m.outputCount : m.scratch.size();
    if (buffer > kScratchBuffer || offset + count > limit) return false;
    if (buffer == kScratchBuffer) {
      *range = {Storage::Scratch, offset, offset + count};
      return true;
    }
    if (!m.aliased) {
      *range = {buffer == kInputBuffer ? Storage::Input : Storage::Output, offset, offset + count};
      return true;
    }
    size_t shift = 0;
    if (m.outputHolds && buffer == kInputBuffer) shift = m.inputViewOffset;
    if (!m.outputHolds && buffer == kOutputBuffer) shift = m.outputViewOffset;
    *range = {m.outputHolds ? Storage::Output : Storage::Input, offset + shift, offset + shift + count};
    return true;
  }

  // The steps a rank runs, in order, as the executor with one slot would: phase by phase,
  // each ordinary phase cut into pipelines run one after another, island steps whole.
  std::vector<std::vector<Op>> flatten(const RankPlan& plan, const VerifyOptions& options) const {
    std::vector<std::vector<Op>> steps;
    if (options.chunkElements == 0 || plan.opsWhole) {
      for (const Step& step : plan.steps) steps.push_back(step.ops);
      return steps;
    }
    for (const PlanPhase& phase : planPhases(plan)) {
      if (phase.island) {
        steps.push_back(plan.steps[phase.firstStep].ops);
        continue;
      }
      const size_t pipelines = pipelineCount(plan, phase, options.chunkElements);
      for (size_t i = 0; i < pipelines; ++i) {
        size_t m = options.reversePipelines ? pipelines - 1 - i : i;
        for (size_t s = phase.firstStep; s < phase.endStep; ++s) {
          std::vector<Op> ops;
          sliceStep(plan.steps[s], m, options.chunkElements, &ops);
          if (!ops.empty()) steps.push_back(ops);
        }
      }
    }
    return steps;
  }

  const std::vector<int>& islandMembers(int rank) {
    if (!request_.topology) {
      if (allRanks_.empty())
        for (int r = 0; r < p_; ++r) allRanks_.push_back(r);
      return allRanks_;
    }
    return request_.topology->members[request_.topology->islandOf[rank]];
  }

  // Runs one island-collective step of every member at once (they have all reached it):
  // checks that the members called the same collectives with matching sizes and roots, then
  // applies them, every source read before any destination is written.
  bool runIslandStep(const std::vector<int>& members, const std::vector<const std::vector<Op>*>& steps) {
    const int g = static_cast<int>(members.size());
    const std::vector<Op>& reference = *steps[0];
    for (int i = 0; i < g; ++i) {
      const std::vector<Op>& ops = *steps[i];
      bool same = ops.size() == reference.size();
      for (size_t o = 0; same && o < ops.size(); ++o)
        same = ops[o].kind == reference[o].kind && ops[o].peer == reference[o].peer &&
               ops[o].src.count == reference[o].src.count && ops[o].dst.count == reference[o].dst.count;
      if (!same)
        return failAt(members[i], "its island-collective step differs from rank " + std::to_string(members[0]) + "'s");
    }
    for (size_t o = 0; o < reference.size(); ++o) {
      const Op& op = reference[o];
      const bool gathers = op.kind == OpKind::IslandAllGather, scatters = op.kind == OpKind::IslandReduceScatter;
      const bool rooted = op.kind == OpKind::IslandReduce || op.kind == OpKind::IslandBroadcast;
      const bool sizesFit = gathers    ? op.dst.count == op.src.count * g
                            : scatters ? op.src.count == op.dst.count * g
                                       : op.src.count == op.dst.count;
      if (!sizesFit || (rooted && (op.peer < 0 || op.peer >= g)))
        return failAt(members[0], std::string(opKindName(op.kind)) +
                                      " has sizes or a root that do not fit an island of " + std::to_string(g));
      // A vendor library reads and writes in place only in its own documented forms; any
      // other overlap of source and destination is undefined there.
      for (int i = 0; i < g; ++i) {
        const Op& mine = (*steps[i])[o];
        CellRange from, to;
        locate(memories_[members[i]], mine.src.buffer, mine.src.offset, mine.src.count, &from);
        locate(memories_[members[i]], mine.dst.buffer, mine.dst.offset, mine.dst.count, &to);
        if (from.storage != to.storage || from.end <= to.begin || to.end <= from.begin) continue;
        const size_t block = scatters ? op.dst.count : op.src.count;
        const bool inPlaceForm = scatters  ? to.begin == from.begin + i * block
                                 : gathers ? from.begin == to.begin + i * block
                                           : from.begin == to.begin;
        if (!inPlaceForm)
          return failAt(members[i],
                        std::string(opKindName(op.kind)) + " overlaps its source and destination other than in place");
      }
      std::vector<std::vector<Symbol>> sources(g);
      for (int i = 0; i < g; ++i) {
        const Op& mine = (*steps[i])[o];
        for (size_t e = 0; e < mine.src.count; ++e)
          sources[i].push_back(*cellIn(memories_[members[i]], mine.src.buffer, mine.src.offset + e));
      }
      for (int i = 0; i < g; ++i) {
        const Op& mine = (*steps[i])[o];
        RankMemory& memory = memories_[members[i]];
        for (size_t e = 0; e < mine.dst.count; ++e) {
          Symbol value;
          if (op.kind == OpKind::IslandAllGather) {
            value = sources[e / op.src.count][e % op.src.count];
          } else if (op.kind == OpKind::IslandBroadcast) {
            value = sources[op.peer][e];
          } else {
            if (op.kind == OpKind::IslandReduce && i != op.peer) break;  // only the root receives
            const size_t from = op.kind == OpKind::IslandReduceScatter ? i * op.dst.count + e : e;
            value = sources[0][from];
            for (int j = 1; j < g; ++j) value = combine(value, sources[j][from]);
          }
          if (value.garbage)
            return failAt(members[i], std::string(opKindName(op.kind)) + " uses an element that was never written");
          *cellIn(memory, mine.dst.buffer, mine.dst.offset + e) = std::move(value);
        }
      }
    }
    return true;
  }

  // A phase that overlaps the one before it (Step::overlapsPrevious) runs beside that phase
  // and ahead of the island steps between them, in any interleaving: none of them may touch
  // an element that another writes.  (The executor overlaps two phases only on different halves
  // of the tags, so their messages cannot match each other's; their order among themselves is
  // the one checked below.)
  bool checkOverlappingPhases(int rank) {
    const RankPlan& plan = plans_[rank];
    const RankMemory& m = memories_[rank];
    struct Access {
      bool write;
      CellRange range;
    };
    auto accessesOf = [&](size_t firstStep, size_t endStep, std::vector<Access>* accesses) {
      for (size_t s = firstStep; s < endStep; ++s)
        for (const Op& op : plan.steps[s].ops) {
          CellRange range;
          if (readsSource(op) && locate(m, op.src.buffer, op.src.offset, op.src.count, &range))
            accesses->push_back({false, range});
          if (writesDestination(op) && locate(m, op.dst.buffer, op.dst.offset, op.dst.count, &range))
            accesses->push_back({true, range});
        }
    };
    const std::vector<PlanPhase> phases = planPhases(plan);
    size_t previous = phases.size();  // the last ordinary phase seen
    for (size_t i = 0; i < phases.size(); ++i) {
      if (phases[i].island) continue;
      const Step& first = plan.steps[phases[i].firstStep];
      if (first.overlapsPrevious && previous < phases.size()) {
        const int8_t before = plan.steps[phases[previous].firstStep].tagHalf;
        if (first.tagHalf >= 0 && before >= 0 && first.tagHalf != before) {
          std::vector<Access> earlier, mine;
          accessesOf(phases[previous].firstStep, phases[i].firstStep, &earlier);
          accessesOf(phases[i].firstStep, phases[i].endStep, &mine);
          for (const Access& a : mine)
            for (const Access& b : earlier)
              if ((a.write || b.write) && a.range.storage == b.range.storage && a.range.begin < b.range.end &&
                  b.range.begin < a.range.end)
                return failAt(rank, "a phase that overlaps the one before it (step " +
                                        std::to_string(phases[i].firstStep) +
                                        ") touches elements that it or an island step between writes");
        }
      }
      previous = i;
    }
    return true;
  }

  bool checkHazards(int rank, const std::vector<Op>& ops) {
    RankMemory& m = memories_[rank];
    struct Access {
      size_t op;
      bool write;
      CellRange range;
    };
    std::vector<Access> accesses;
    const bool island = !ops.empty() && isIslandOp(ops.front().kind);
    for (const Op& op : ops)
      if (isIslandOp(op.kind) != island) return failAt(rank, "a step mixes island collectives with other ops");
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      auto add = [&](const Region& region, bool write) {
        CellRange range;
        if (!locate(m, region.buffer, region.offset, region.count, &range)) return false;
        accesses.push_back({i, write, range});
        return true;
      };
      bool inBounds = true;
      if (readsSource(op)) inBounds &= add(op.src, false);
      if (writesDestination(op)) inBounds &= add(op.dst, true);
      if (!inBounds) return failAt(rank, "an op reaches outside its buffer");
      if ((op.kind == OpKind::RecvReduce || op.kind == OpKind::Copy || op.kind == OpKind::Reduce) &&
          op.src.count != op.dst.count)
        return failAt(rank, "source and destination lengths differ");
    }
    for (const Access& a : accesses)
      for (const Access& b : accesses) {
        if (a.op == b.op || !(a.write || b.write)) continue;
        if (a.range.storage == b.range.storage && a.range.begin < b.range.end && b.range.begin < a.range.end)
          return failAt(rank, "two ops of one step touch the same elements and one writes");
      }
    // Within one op, a source may alias its destination only exactly (elementwise).
    for (const Op& op : ops) {
      if (op.kind != OpKind::RecvReduce && op.kind != OpKind::Copy && op.kind != OpKind::Reduce) continue;
      CellRange s, d;
      locate(m, op.src.buffer, op.src.offset, op.src.count, &s);
      locate(m, op.dst.buffer, op.dst.offset, op.dst.count, &d);
      if (s.storage == d.storage && s.begin != d.begin && s.begin < d.end && d.begin < s.end)
        return failAt(rank, "an op's source partly overlaps its destination");
    }
    return true;
  }

  bool postStep(int rank, const std::vector<Op>& ops, std::vector<std::pair<int, size_t>>& sends,
                std::vector<size_t>& recvs) {
    RankMemory& m = memories_[rank];
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      if (op.kind == OpKind::Send) {
        if (op.peer < 0 || op.peer >= p_) return failAt(rank, "send to an invalid peer");
        Message message{op.src.count, {}, false};
        for (size_t e = 0; e < op.src.count; ++e) {
          Symbol value = *cellIn(m, op.src.buffer, op.src.offset + e);
          if (value.garbage) return failAt(rank, "sends an element that was never written");
          message.data.push_back(std::move(value));
        }
        int channel = rank * p_ + op.peer;
        channels_[channel].push_back(std::move(message));
        sends.push_back({channel, channels_[channel].size() - 1});
      } else if (op.kind == OpKind::RecvCopy || op.kind == OpKind::RecvReduce) {
        if (op.peer < 0 || op.peer >= p_) return failAt(rank, "receive from an invalid peer");
        recvs.push_back(i);
      } else if (op.kind == OpKind::Copy) {
        std::vector<Symbol> values;
        for (size_t e = 0; e < op.src.count; ++e) values.push_back(*cellIn(m, op.src.buffer, op.src.offset + e));
        for (size_t e = 0; e < op.dst.count; ++e) *cellIn(m, op.dst.buffer, op.dst.offset + e) = values[e];
      } else if (op.kind == OpKind::Reduce) {
        for (size_t e = 0; e < op.dst.count; ++e) {
          Symbol* dst = cellIn(m, op.dst.buffer, op.dst.offset + e);
          const Symbol* src = cellIn(m, op.src.buffer, op.src.offset + e);
          if (dst->garbage || src->garbage) return failAt(rank, "reduces an element that was never written");
          const auto operands = reductionOperands<const Symbol*>(op, dst, src);
          *dst = combine(*operands.first, *operands.second);
        }
      } else if (op.kind == OpKind::Divide) {
        for (size_t e = 0; e < op.dst.count; ++e) divide(*cellIn(m, op.dst.buffer, op.dst.offset + e));
      }
    }
    return true;
  }

  // Matches this rank's pending receives, in posting order per peer, against the oldest
  // unconsumed messages from that peer (MPI's non-overtaking rule).
  bool matchReceives(int rank, const std::vector<Op>& ops, std::vector<size_t>& recvs, bool* progress) {
    RankMemory& m = memories_[rank];
    std::vector<size_t> stillPending;
    std::vector<bool> peerBlocked(p_, false);
    for (size_t opIndex : recvs) {
      const Op& op = ops[opIndex];
      std::deque<Message>& channel = channels_[op.peer * p_ + rank];
      auto message = std::find_if(channel.begin(), channel.end(), [](const Message& msg) { return !msg.consumed; });
      if (peerBlocked[op.peer] || message == channel.end()) {
        peerBlocked[op.peer] = true;
        stillPending.push_back(opIndex);
        continue;
      }
      if (message->count != op.dst.count)
        return failAt(rank, "receives " + std::to_string(op.dst.count) + " elements from rank " +
                                std::to_string(op.peer) + ", which sent " + std::to_string(message->count));
      for (size_t e = 0; e < op.dst.count; ++e) {
        Symbol value = message->data[e];
        if (op.kind == OpKind::RecvReduce) {
          Symbol local = *cellIn(m, op.src.buffer, op.src.offset + e);
          if (local.garbage) return failAt(rank, "reduces an element that was never written");
          const auto operands = reductionOperands<const Symbol*>(op, &local, &value);
          value = combine(*operands.first, *operands.second);
        }
        *cellIn(m, op.dst.buffer, op.dst.offset + e) = std::move(value);
      }
      message->consumed = true;
      *progress = true;
    }
    recvs = stillPending;
    return true;
  }

  void expectAt(int rank, size_t index, std::vector<Term> expected) {
    if (!result_.ok) return;
    Symbol* cell = cellIn(memories_[rank], kOutputBuffer, index);
    std::vector<Term> got = cell->terms;
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    int divisions = (request_.average && p_ > 1 && expected.size() > 1) ? 1 : 0;
    if (cell->garbage || got != expected || cell->divisions != divisions) {
      std::ostringstream out;
      out << "rank " << rank << " output[" << index << "] holds {";
      for (const Term& t : got) out << " r" << t.first << "[" << t.second << "]";
      out << " } divided " << cell->divisions << " times" << (cell->garbage ? " (never written)" : "") << "; expected "
          << expected.size() << " contributions divided " << divisions << " times\n"
          << describePlan(plans_[rank]);
      fail(out.str());
    }
  }

  // Every rank of an all-reduce must hold the same bits: its elements computed in the same
  // order and grouping as rank 0's, or copied from the one rank that computed them.
  void expectSameAsRankZero(int rank, size_t count) {
    for (size_t i = 0; i < count && result_.ok; ++i) {
      const Symbol* mine = cellIn(memories_[rank], kOutputBuffer, i);
      const Symbol* first = cellIn(memories_[0], kOutputBuffer, i);
      if (mine->shape != first->shape)
        fail("rank " + std::to_string(rank) + " output[" + std::to_string(i) +
             "] holds the right contributions but reduced in another order or grouping than rank 0's (the ranks "
             "would differ in their bits)\n" +
             describePlan(plans_[rank]) + describePlan(plans_[0]));
    }
  }

  void checkResults() {
    const size_t n = request_.count;
    for (int r = 0; r < p_; ++r) {
      auto everyRank = [&](size_t index) {
        std::vector<Term> terms;
        for (int q = 0; q < p_; ++q) terms.push_back({q, index});
        return terms;
      };
      switch (request_.collective) {
        case Collective::AllReduce:
          for (size_t i = 0; i < n; ++i) expectAt(r, i, everyRank(i));
          expectSameAsRankZero(r, n);
          break;
        case Collective::ReduceScatter:
          for (size_t i = 0; i < n; ++i) expectAt(r, i, everyRank(r * n + i));
          break;
        case Collective::AllGather:
          for (int q = 0; q < p_; ++q)
            for (size_t i = 0; i < n; ++i) expectAt(r, q * n + i, {{q, i}});
          break;
        case Collective::Broadcast:
          for (size_t i = 0; i < n; ++i) expectAt(r, i, {{request_.root, i}});
          break;
        case Collective::Reduce:
          if (r == request_.root)
            for (size_t i = 0; i < n; ++i) expectAt(r, i, everyRank(i));
          break;
        case Collective::AlltoAll:
          for (int q = 0; q < p_; ++q)
            for (size_t i = 0; i < n; ++i) expectAt(r, q * n + i, {{q, r * n + i}});
          break;
        case Collective::SendRecv:
          for (size_t i = 0; i < n; ++i) expectAt(r, i, {{modRank(r - 1, p_), i}});
          break;
      }
    }
  }

  VerifyResult fail(const std::string& message) {
    if (result_.ok) result_ = VerifyResult{false, message};
    return result_;
  }
  bool failAt(int rank, const std::string& message) {
    fail("rank " + std::to_string(rank) + ": " + message + "\n" + describePlan(plans_[rank]));
    return false;
  }

  PlanRequest request_;
  int p_;
  std::vector<RankPlan> plans_;
  std::vector<RankMemory> memories_;
  std::vector<std::vector<std::vector<Op>>> work_;
  std::vector<std::deque<Message>> channels_;  // index sender * p + receiver
  std::vector<int> allRanks_;                  // the one island when the request names no topology
  VerifyResult result_;
};

}  // namespace

VerifyResult verifyPlan(const PlanRequest& request, const PlanBuilder& builder, const VerifyOptions& options) {
  Simulation simulation(request, builder, options);
  return simulation.run();
}

}  // namespace hetccl
