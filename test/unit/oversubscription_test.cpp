// Ranks that outnumber a host's hardware threads (link_parameters.h): how many per thread the
// link defaults see, and what the scheduler hand-off they then price does to the tuner's choice.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "algorithms/tuner.h"
#include "core/link_parameters.h"

namespace hetccl {
namespace {

// Ranks on `hosts[i]` whose host offers `threads[i]` hardware threads.
JobTopology ranksOn(const std::vector<std::string>& hosts, const std::vector<int>& threads) {
  JobTopology topology;
  for (size_t i = 0; i < hosts.size(); ++i) {
    RankDescriptor rank;
    std::strncpy(rank.host, hosts[i].c_str(), sizeof rank.host - 1);
    rank.hardwareThreads = threads[i];
    topology.ranks.push_back(rank);
  }
  return topology;
}

TEST(Oversubscription, CountsRanksPerHardwareThreadOfTheBusiestHost) {
  std::string host;
  EXPECT_EQ(ranksPerHardwareThread(ranksOn({"a", "a"}, {2, 2}), &host), 1.0);
  EXPECT_EQ(ranksPerHardwareThread(ranksOn({"a", "a", "b", "b"}, {2, 2, 2, 2}), &host), 1.0);
  EXPECT_EQ(ranksPerHardwareThread(ranksOn({"a", "a", "a", "a"}, {2, 2, 2, 2}), &host), 2.0);
  EXPECT_EQ(host, "a");
  EXPECT_EQ(ranksPerHardwareThread(ranksOn({"a", "b", "b", "b"}, {4, 2, 2, 2}), &host), 1.5);
  EXPECT_EQ(host, "b");
}

// A host whose thread count is unknown (0: a simulated host) is never called oversubscribed.
TEST(Oversubscription, UnknownThreadCountsAreNotOversubscribed) {
  std::string host;
  EXPECT_EQ(ranksPerHardwareThread(ranksOn({"a", "a", "a", "a"}, {0, 0, 0, 0}), &host), 1.0);
  EXPECT_TRUE(host.empty());
}

// The chain broadcast of 8 MiB on 4 ranks: with the same-node defaults it is cut into the
// smallest chunks; priced with the hand-off of 2 ranks per thread, into chunks of at least
// 1 MiB (measured on 4 ranks of a 2-thread host: 256 KiB 0.66x MPI, 1 MiB 1.03x, 4 MiB 1.33x).
TEST(Oversubscription, TheHandOffMakesTheTunerChooseLargerChunks) {
  const TopologyView oneIsland = TopologyView::fromIslandIds({0, 0, 0, 0});
  CostParameters alone;
  alone.intraIsland = alone.interIsland = LinkCost{3e-6, 1.0 / 5e9};
  CostParameters oversubscribed = alone;
  oversubscribed.intraIsland.alpha = oversubscribed.interIsland.alpha = 3e-6 + kOversubscribedHandOff;
  PlanRequest request{Collective::Broadcast, size_t{2} << 20, 4, 0, true, false, &oneIsland};
  Tuner tunedAlone(oneIsland, alone, TunerSettings{});
  Tuner tunedOversubscribed(oneIsland, oversubscribed, TunerSettings{});
  const TuningChoice a = tunedAlone.choose(request, 4), o = tunedOversubscribed.choose(request, 4);
  EXPECT_EQ(a.chunkBytes, size_t{256} << 10);
  EXPECT_GE(o.chunkBytes, size_t{1} << 20);
  EXPECT_GT(o.predictedSeconds, a.predictedSeconds);
}

}  // namespace
}  // namespace hetccl
