// The executor run for real — one thread per rank, host devices, the loopback transport with
// the staged and pacing decorators on top — on every plan the verifier checks: flat (ring,
// chains, direct all-to-all, send/recv), hierarchical, torus, the log-depth ones and small
// (recursive doubling): every row of the algorithm table, with and without island steps, on
// 1 to 8 ranks in equal, uneven and interleaved islands, whole and cut into tiny chunks in
// deep pipelines, in place and out of place; every rank's output compared with the direct
// computation.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>

#include "algorithms/algorithm.h"
#include "algorithms/p2p_plan.h"
#include "collective_case.h"
#include "thread_ranks.h"

namespace hetccl {
namespace {

const Collective kCollectives[] = {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                                   Collective::Broadcast, Collective::Reduce,        Collective::AlltoAll,
                                   Collective::SendRecv};

bool reduces(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce;
}
bool rooted(Collective c) { return c == Collective::Broadcast || c == Collective::Reduce; }

// Island ids of the layouts worth running at `p` ranks, each once.
std::vector<std::vector<int>> layoutsFor(int p) {
  std::vector<int> one(p, 0), halves, interleaved, singletons, threeWays, unevenTail;
  for (int r = 0; r < p; ++r) {
    halves.push_back(r < p / 2 ? 0 : 1);
    interleaved.push_back(r % 2);
    singletons.push_back(r);
    threeWays.push_back((r * 7) % 3);
    unevenTail.push_back(r == p - 1 ? 1 : 0);  // 3+1, 7+1, ...
  }
  std::vector<std::vector<int>> candidates{one, halves, interleaved, singletons, threeWays, unevenTail};
  if (p == 8) candidates.push_back({0, 0, 0, 0, 0, 1, 1, 2});  // 5+2+1
  if (p == 4) candidates.push_back({0, 0, 1, 2});              // 2+1+1
  if (p == 6) candidates.push_back({0, 1, 0, 1, 0, 1});        // 3x2, interleaved
  std::vector<std::vector<int>> layouts;
  std::set<std::vector<int>> seen;
  for (const auto& ids : candidates)
    if (seen.insert(TopologyView::fromIslandIds(ids).islandOf).second) layouts.push_back(ids);
  return layouts;
}

// Which islands hand their island steps to island collectives: none, all, the first only,
// all but the first.
std::vector<std::vector<bool>> delegationsFor(int islands) {
  std::vector<bool> none(islands, false), all(islands, true), first(islands, false), others(islands, true);
  first[0] = true;
  others[0] = false;
  std::vector<std::vector<bool>> result;
  for (const auto& d : {none, all, first, others})
    if (std::find(result.begin(), result.end(), d) == result.end()) result.push_back(d);
  return result;
}

// Draws the parameters that each case varies around its plan: a fixed seed, so every run of
// the suite runs the same cases (a failure prints every parameter of its case).
class Variation {
 public:
  template <class T>
  T pick(const std::vector<T>& choices) {
    return choices[next_() % choices.size()];
  }

 private:
  std::mt19937 next_{20261201};
};

// The sweep's largest rank count: 8, or HETCCL_TEST_LOOPBACK_MAX_RANKS where set (2 to 8).
// The ThreadSanitizer pass sets 5 and the ASan pass 6 (scripts/run-tsan-tests.sh,
// run-asan-tests.sh): under TSan the sweep to 8 took three quarters of that pass's time, while
// every algorithm, collective and kind of layout (whole, halves, interleaved, singletons, three
// ways, uneven tail) already runs at 2 to 5 ranks.  A smaller count runs a prefix of the same
// cases (ranks go up, parameters come from one seeded sequence).
int sweepMaxRanks() {
  const char* text = std::getenv("HETCCL_TEST_LOOPBACK_MAX_RANKS");
  if (text == nullptr || *text == '\0') return 8;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 2 || value > 8) {
    ADD_FAILURE() << "HETCCL_TEST_LOOPBACK_MAX_RANKS=" << text << ": expected 2 to 8";
    return 8;
  }
  return static_cast<int>(value);
}

void expectRuns(const CollectiveCase& c) {
  Status status = runCollectiveCase(c);
  ASSERT_TRUE(status.isOk()) << c.describe() << "\n" << status.message();
}

// Every algorithm on every collective and island layout it applies to, twice (out of place,
// then in place), each time with another count, reduction, type, chunk, depth, link stack and
// island delegation.
TEST(ExecutorLoopback, EveryPlanOnOneToEightRanksMatchesTheDirectComputation) {
  Variation vary;
  int cases = 0;
  const int maxRanks = sweepMaxRanks();
  for (int p = 1; p <= maxRanks; ++p)
    for (const std::vector<int>& ids : layoutsFor(p)) {
      const TopologyView topology = TopologyView::fromIslandIds(ids);
      // Every algorithm of the list the tuner and HETCCL_ALGO use, so a new one runs here too
      // (native applies only with a vendor library, which these ranks do not have).
      for (Algorithm algorithm : allAlgorithms())
        for (Collective collective : kCollectives) {
          if (!algorithmApplies(algorithm, collective, topology, nullptr)) continue;
          std::set<int> roots{0};
          if (rooted(collective)) roots = {0, p / 2, p - 1};
          for (int root : roots)
            for (bool inPlace : {false, true}) {
              CollectiveCase c;
              c.algorithm = algorithm;
              c.shape = {collective, vary.pick<size_t>({0, 1, 2, 5, 13, 37, 64, 97, 150}), p, root, ReduceOp::Sum};
              if (reduces(collective))
                c.shape.op = vary.pick<ReduceOp>({ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min});
              c.islandIds = ids;
              c.islandLibrary = descriptorOf(algorithm).role != AlgorithmRole::Flat
                                    ? vary.pick(delegationsFor(topology.islandCount()))
                                    : std::vector<bool>{};
              c.vendorIslandSteps = vary.pick<bool>({true, true, false});
              c.islandSlices = vary.pick<int>({1, 1, 2, 3});
              c.inPlace = inPlace;
              c.type = vary.pick<ElementType>({ElementType::Int32, ElementType::Float32});
              c.chunkElements = vary.pick<size_t>({1, 2, 3, 5, 16, size_t{1} << 20});
              c.pipelineDepth = vary.pick<int>({1, 2, 3, 4, 8, 9});
              c.links = vary.pick(allLinkStacks());
              expectRuns(c);
              if (HasFatalFailure()) return;
              ++cases;
            }
        }
    }
  std::printf("ran %d collective cases on 1 to %d ranks\n", cases, maxRanks);
  EXPECT_GT(cases, maxRanks == 8 ? 500 : 50 * maxRanks);
}

// Chunks of one to a few elements with up to kMaxPipelineDepth pipelines in flight, over
// every link stack: the executor's slot reuse and the transports' ordering under load.  Every
// algorithm of the table on every collective it applies to, each on the first of these
// layouts it runs on after the one the previous case took (island-aware ones on several
// islands), so that the cases spread over the layouts and island libraries.
TEST(ExecutorLoopback, TinyChunksInDeepPipelines) {
  struct Layout {
    std::vector<int> islandIds;
    std::vector<bool> islandLibrary;
  };
  const std::vector<Layout> layouts{
      {{0, 0, 0, 0, 0}, {}},
      {{0, 0, 0, 1}, {}},
      {{0, 1, 0, 1, 0, 1}, {true, false}},
      {{0, 0, 1, 1, 2, 2}, {true, true, true}},
      {{0, 0, 0, 0, 0, 0, 0}, {}},
      {{0, 0, 1, 1, 2, 2}, {false, true, false}},
      {{0, 1, 2, 3, 4}, {}},
      {{0, 0, 0, 0, 0, 1, 1, 2}, {}},
      {{0, 1, 1, 0, 1}, {}},
      {{0, 0, 1, 1, 1}, {false, true}},
  };
  const std::vector<LinkStack>& stacks = allLinkStacks();
  int cases = 0;
  size_t next = 0;  // the layout to try first
  for (Algorithm algorithm : allAlgorithms())
    for (Collective collective : kCollectives) {
      const bool islandAware = descriptorOf(algorithm).role == AlgorithmRole::IslandAware;
      const Layout* layout = nullptr;
      for (size_t tried = 0; tried < layouts.size() && !layout; ++tried) {
        const Layout& candidate = layouts[(next + tried) % layouts.size()];
        const TopologyView topology = TopologyView::fromIslandIds(candidate.islandIds);
        if ((!islandAware || topology.islandCount() > 1) &&
            algorithmApplies(algorithm, collective, topology, nullptr)) {
          layout = &candidate;
          next = (next + tried + 1) % layouts.size();
        }
      }
      if (!layout) continue;  // applies to none of these layouts
      for (const LinkStack& links : stacks)
        for (auto [chunk, depth] : {std::pair<size_t, int>{1, 9}, {3, kMaxPipelineDepth}}) {
          CollectiveCase c;
          c.algorithm = algorithm;
          const int p = static_cast<int>(layout->islandIds.size());
          c.shape = {collective, 61, p, rooted(collective) ? p - 1 : 0,
                     collective == Collective::AllReduce ? ReduceOp::Avg : ReduceOp::Sum};
          c.islandIds = layout->islandIds;
          c.islandLibrary = layout->islandLibrary;
          c.islandSlices = 1 + cases % 3;
          c.inPlace = cases % 2 == 1;
          c.type = cases % 3 == 0 ? ElementType::Float32 : ElementType::Int32;
          c.chunkElements = chunk;
          c.pipelineDepth = depth;
          c.links = links;
          expectRuns(c);
          if (HasFatalFailure()) return;
          ++cases;
        }
    }
  std::printf("ran %d collective cases\n", cases);
}

// One job running collectives back to back, as a communicator does: the executor's staging
// space, the staged transport's slot pool and the tags are reused from call to call.  Run
// with a device per rank and with one device for all, as communicators of one process share.
TEST(ExecutorLoopback, CollectivesBackToBackOnTheSameRanks) {
  const std::vector<int> ids{0, 0, 1, 1, 1};
  const std::vector<LinkStack>& stacks = allLinkStacks();
  for (bool shareOneDevice : {false, true})
    for (const LinkStack& links : stacks) {
      std::vector<CollectiveCase> sequence;
      for (Collective collective : kCollectives)
        for (Algorithm algorithm : allAlgorithms()) {
          CollectiveCase c;
          c.algorithm = algorithm;
          c.shape = {collective, 23 + sequence.size(), 5, rooted(collective) ? 3 : 0,
                     reduces(collective) ? ReduceOp::Avg : ReduceOp::Sum};
          c.islandIds = ids;
          c.islandLibrary = {true, sequence.size() % 2 == 0};
          c.inPlace = sequence.size() % 3 == 0;
          c.chunkElements = 1 + sequence.size() % 4;
          c.pipelineDepth = 1 + static_cast<int>(sequence.size() % 5);
          c.links = links;
          if (algorithmApplies(algorithm, collective, c.topology(), nullptr)) sequence.push_back(c);
        }
      ThreadJob job;
      job.nranks = static_cast<int>(ids.size());
      job.links = links;
      job.topology = TopologyView::fromIslandIds(ids);
      job.topology.islandLibrary = {true, true};  // island collectives for whichever case asks
      job.shareOneDevice = shareOneDevice;
      Status status = runOnThreadRanks(job, [&](RankContext& context) {
        for (size_t i = 0; i < sequence.size(); ++i) {
          const TopologyView topology = sequence[i].topology();
          const int tagBase = static_cast<int>(i % 4) * kMaxPipelineDepth;
          Status one = runCollectiveOnRank(sequence[i], topology, tagBase, context);
          if (!one.isOk()) return Status(one.code(), sequence[i].describe() + "\n" + one.message());
        }
        return Status::ok();
      });
      ASSERT_TRUE(status.isOk()) << links.describe() << (shareOneDevice ? ", one device" : "") << "\n"
                                 << status.message();
    }
}

// ---- Point-to-point plans (the group calls) -----------------------------------------------

// Byte `i` of message `k` from `source` to `destination`.
uint8_t messageByte(int source, int destination, int k, size_t i) {
  return static_cast<uint8_t>(source * 31 + destination * 17 + k * 101 + i * 7);
}

// Every rank sends two messages to every rank, itself included, of sizes (0 among them) that
// differ per message: the k-th send to a peer must land in the peer's k-th receive from it.
Status exchangeAllPairs(RankContext& context, size_t chunkBytes, int depth) {
  const int p = context.nranks, me = context.rank;
  auto bytesOf = [](int source, int destination, int k) {
    return static_cast<size_t>((source * 3 + destination * 5 + k * 7) % 23) * 3;
  };
  struct Message {
    int peer, k;
  };
  std::vector<PointToPoint> operations;
  std::vector<Message> messages;  // per operation
  for (int peer = 0; peer < p; ++peer)
    for (int k = 0; k < 2; ++k) {
      operations.push_back(PointToPoint{true, peer, bytesOf(me, peer, k), false});
      operations.push_back(PointToPoint{false, peer, bytesOf(peer, me, k), false});
      messages.insert(messages.end(), {{peer, k}, {peer, k}});
    }
  RankMemory memory(context);
  PlanBuffers buffers(kFirstUserBuffer, nullptr);
  for (size_t o = 0; o < operations.size(); ++o) {
    char* buffer = nullptr;
    HETCCL_TRY(memory.allocate(operations[o].bytes, &buffer));
    for (size_t i = 0; i < operations[o].bytes; ++i)
      buffer[i] = static_cast<char>(operations[o].isSend ? messageByte(me, messages[o].peer, messages[o].k, i) : 0);
    buffers.push_back(buffer);
  }
  RankPlan plan = buildPointToPointPlan(operations, me, p);
  ExecutionSettings settings;
  settings.chunkBytes = chunkBytes;
  settings.pipelineDepth = depth;
  HETCCL_TRY(context.executor.run(plan, buffers, ElementType::Uint8, ReduceOp::Sum, 0, settings));
  for (size_t o = 0; o < operations.size(); ++o) {
    if (operations[o].isSend) continue;
    const uint8_t* received = reinterpret_cast<const uint8_t*>(buffers[kFirstUserBuffer + o]);
    for (size_t i = 0; i < operations[o].bytes; ++i)
      if (received[i] != messageByte(messages[o].peer, me, messages[o].k, i))
        return HETCCL_STATUS(Code::InternalError, "message %d from rank %d: byte %zu wrong\n%s", messages[o].k,
                             messages[o].peer, i, describePlan(plan).c_str());
  }
  return Status::ok();
}

// Partners swap one buffer in place (a send from memory being received into goes through
// scratch); with an odd rank count the last rank swaps with itself.
Status swapInPlace(RankContext& context, size_t chunkBytes, int depth) {
  const int p = context.nranks, me = context.rank;
  int partner = me ^ 1;
  if (partner >= p) partner = me;
  const size_t bytes = 45;
  RankMemory memory(context);
  char* buffer = nullptr;
  HETCCL_TRY(memory.allocate(bytes, &buffer));
  for (size_t i = 0; i < bytes; ++i) buffer[i] = static_cast<char>(messageByte(me, partner, 0, i));
  std::vector<PointToPoint> operations{{true, partner, bytes, true}, {false, partner, bytes, false}};
  RankPlan plan = buildPointToPointPlan(operations, me, p);
  char* scratch = nullptr;
  HETCCL_TRY(memory.allocate(plan.scratchCount, &scratch));
  PlanBuffers buffers{nullptr, nullptr, scratch, buffer, buffer};
  ExecutionSettings settings;
  settings.chunkBytes = chunkBytes;
  settings.pipelineDepth = depth;
  HETCCL_TRY(context.executor.run(plan, buffers, ElementType::Uint8, ReduceOp::Sum, 0, settings));
  for (size_t i = 0; i < bytes; ++i)
    if (static_cast<uint8_t>(buffer[i]) != messageByte(partner, me, 0, i))
      return HETCCL_STATUS(Code::InternalError, "swap with rank %d: byte %zu wrong\n%s", partner, i,
                           describePlan(plan).c_str());
  return Status::ok();
}

TEST(ExecutorLoopback, PointToPointGroups) {
  const std::vector<LinkStack>& stacks = allLinkStacks();
  for (int p = 1; p <= 6; ++p)
    for (const LinkStack& links : stacks)
      for (auto [chunk, depth] : {std::pair<size_t, int>{size_t{1} << 20, 4}, {4, 3}, {1, 8}}) {
        ThreadJob job;
        job.nranks = p;
        job.links = links;
        Status status = runOnThreadRanks(job, [&, chunk = chunk, depth = depth](RankContext& context) {
          HETCCL_TRY(exchangeAllPairs(context, chunk, depth));
          return swapInPlace(context, chunk, depth);
        });
        ASSERT_TRUE(status.isOk()) << p << " ranks over " << links.describe() << ", chunk " << chunk << " depth "
                                   << depth << "\n"
                                   << status.message();
      }
}

}  // namespace
}  // namespace hetccl
