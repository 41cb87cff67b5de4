// hetccl-sim's all-reduce bound (sim/bound.h): its terms, and that it is a lower bound of the
// cost model -- no algorithm's prediction, at the tuner's best chunk size or at a fixed one,
// and not the tuner's pick, comes in below it, on the example clusters and on layouts chosen
// to stress each term (one island, islands of one rank, uneven islands, a shared uplink,
// vendor-library islands, a network faster than the island links, fp32 accumulation).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "sim/bound.h"
#include "sim/cluster_description.h"
#include "sim/sweep.h"

namespace hetccl_sim {
namespace {

ClusterDescription parsed(const std::string& text) {
  std::istringstream input(text);
  ClusterDescription cluster;
  DescriptionError error;
  EXPECT_TRUE(parseClusterDescription(input, &cluster, &error)) << error.describe() << "\n" << text;
  return cluster;
}

// The bound's terms by hand: 2 islands of 4 at 100 and 50 GB/s (the model charges the slower
// inside both), 1 GB/s and 20 us between them.
TEST(SimBound, TermsFollowTheFormulas) {
  const ClusterDescription cluster = parsed(
      "island a nodes=1 ranks_per_node=4 intra=100GB/s:1us\n"
      "island b nodes=1 ranks_per_node=4 intra=50GB/s:2us\n"
      "link inter 1GB/s:20us\nreduce 500GB/s\nstep_overhead 5us\n");
  const double n = 1e9, o = 5e-6;
  const AllReduceBound bound = allReduceBound(formedIslands(cluster, hetccl::IslandScope::Node),
                                              costParametersOf(cluster, hetccl::IslandScope::Node), n);
  // Every rank can use 50 GB/s of island link and 1 GB/s of network at once.
  EXPECT_DOUBLE_EQ(bound.links, o + 2e-6 + 2 * 7 * n / (8 * 51e9));
  EXPECT_DOUBLE_EQ(bound.cross, o + 20e-6 + 2 * 1 * n / 8 / 1e9);  // = n / 4 per rank
  EXPECT_EQ(bound.uplink, 0.0);
  EXPECT_DOUBLE_EQ(bound.reduce, o + 7.0 / 8 * n / 500e9);
  EXPECT_DOUBLE_EQ(bound.total, bound.cross);
  // The old figure, kept as `phases`: each island's own link, phases added, 2 log2 rounds.
  EXPECT_DOUBLE_EQ(bound.phases, 2 * 3.0 / 4 * n / 50e9 + n / 4 / 1e9 + 7.0 / 8 * n / 500e9 + 2 * 2 * (2e-6 + o) +
                                     2 * 1 * (20e-6 + o));
}

// The per-rank and per-island floors take over from the averages where islands are uneven,
// and a shared uplink and vendor-library islands add theirs.
TEST(SimBound, UnevenIslandsUplinkAndLibraries) {
  const ClusterDescription cluster = parsed(
      "island a nodes=1 ranks_per_node=6 intra=10GB/s:1us library=nccl\n"
      "island b nodes=1 ranks_per_node=1 intra=10GB/s:1us\n"
      "link inter 5GB/s:3us\nuplink 2GB/s\nreduce 1GB/s\nstep_overhead 4us\n");
  const double n = 1e6, o = 4e-6;
  const AllReduceBound bound = allReduceBound(formedIslands(cluster, hetccl::IslandScope::Node),
                                              costParametersOf(cluster, hetccl::IslandScope::Node), n);
  // Island b's one rank has only the network: n / 5 GB/s, more than 2 x 6 n / (6 x 15 + 5 GB/s).
  EXPECT_DOUBLE_EQ(bound.links, o + 1e-6 + n / 5e9);
  EXPECT_DOUBLE_EQ(bound.cross, o + 3e-6 + n / 5e9);
  EXPECT_DOUBLE_EQ(bound.uplink, o + 3e-6 + 2 * 1.0 / 2 * n / 2e9);
  // Island a's library steps can overlap the executor's reductions: half of 6/7 n.
  EXPECT_DOUBLE_EQ(bound.reduce, o + 6.0 / 7 * n / 1e9 / 2);
  EXPECT_DOUBLE_EQ(bound.total, bound.uplink);
}

TEST(SimBound, OneRankIsOneStep) {
  const ClusterDescription cluster = parsed("island a nodes=1 ranks_per_node=1 intra=10GB/s:1us\nstep_overhead 7us\n");
  const AllReduceBound bound = allReduceBound(formedIslands(cluster, hetccl::IslandScope::Node),
                                              costParametersOf(cluster, hetccl::IslandScope::Node), 1 << 20);
  EXPECT_DOUBLE_EQ(bound.total, 7e-6);
}

// What one sweep runs with.
struct SweepCase {
  hetccl::IslandScope scope = hetccl::IslandScope::Node;
  size_t elementSize = 4;
  bool accumulate = false;  // fp32 accumulation of a 2-byte type
  size_t chunkBytes = 0;    // 0: the tuner's choice
  int depth = 4;
};

std::string describe(const SweepCase& c) {
  std::ostringstream text;
  text << (c.scope == hetccl::IslandScope::Node ? "node" : "job") << " islands, " << c.elementSize << "-byte type"
       << (c.accumulate ? " accumulated in float32" : "") << ", chunk "
       << (c.chunkBytes ? std::to_string(c.chunkBytes) : "tuned") << ", depth " << c.depth;
  return text.str();
}

// 1 KiB to 1 GiB by `factor`: every algorithm's prediction and the pick at least the bound,
// to floating-point rounding.
void expectNothingBelowTheBound(const std::string& name, const ClusterDescription& cluster, const SweepCase& c,
                                size_t factor) {
  SCOPED_TRACE(name + ", " + describe(c));
  const hetccl::TopologyView topology = topologyOf(cluster, c.scope);
  hetccl::TunerSettings tuning;
  tuning.pipelineDepth = c.depth;
  if (c.chunkBytes > 0) {
    tuning.chunkBytes = c.chunkBytes;
    tuning.chunkBytesSet = true;
  }
  std::vector<size_t> sizes;
  for (size_t size = size_t{1} << 10; size <= size_t{1} << 30; size *= factor) sizes.push_back(size);
  const std::vector<SizePrediction> rows =
      predictSweep(topology, formedIslands(cluster, c.scope), costParametersOf(cluster, c.scope), tuning,
                   hetccl::Collective::AllReduce, c.elementSize, sizes, c.accumulate);
  ASSERT_FALSE(rows.empty());
  constexpr double kRounding = 1e-9;
  for (const SizePrediction& row : rows) {
    ASSERT_TRUE(row.hasBound);
    const double bound = row.bound.total;
    EXPECT_GT(bound, 0);
    for (const AlgorithmPrediction& p : row.algorithms) {
      if (!p.applies) continue;
      EXPECT_GE(p.choice.predictedSeconds, bound * (1 - kRounding))
          << hetccl::algorithmName(p.algorithm) << " at " << row.bytes << " B, chunk " << p.choice.chunkBytes << ", "
          << p.choice.islandSlices << " slices: " << p.choice.predictedSeconds * 1e6 << " us, bound " << bound * 1e6
          << " us (links " << row.bound.links * 1e6 << ", cross " << row.bound.cross * 1e6 << ", uplink "
          << row.bound.uplink * 1e6 << ", reduce " << row.bound.reduce * 1e6 << ")";
    }
    EXPECT_GE(row.pick.predictedSeconds, bound * (1 - kRounding))
        << "pick " << hetccl::algorithmName(row.pick.algorithm) << " at " << row.bytes << " B";
  }
}

std::vector<SweepCase> everyWay(bool accumulate) {
  std::vector<SweepCase> cases;
  for (hetccl::IslandScope scope : {hetccl::IslandScope::Node, hetccl::IslandScope::Job}) {
    cases.push_back({scope});
    if (accumulate) cases.push_back({scope, 2, true});
  }
  return cases;
}

TEST(SimBound, NoPredictionBeatsTheBoundOnTheExamples) {
  const std::filesystem::path examples = HETCCL_SIM_EXAMPLES;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(examples))
    if (entry.path().extension() == ".cluster") files.push_back(entry.path());
  ASSERT_GE(files.size(), 5u) << examples;
  for (const std::filesystem::path& file : files) {
    std::ifstream input(file);
    std::stringstream text;
    text << input.rdbuf();
    const ClusterDescription cluster = parsed(text.str());
    // Job scope turns the largest example's vendors into two islands of tens of thousands of
    // ranks, whose island rings the model reads step by step (seconds): node scope only there.
    const bool large = cluster.rankCount() > 4096;
    for (const SweepCase& c : everyWay(!large)) {
      if (large && c.scope == hetccl::IslandScope::Job) continue;
      expectNothingBelowTheBound(file.filename().string(), cluster, c, large ? 4 : 2);
    }
  }
}

// Layouts that stress one term each, with the library's default rates (reduce 4 GB/s, about
// the links' 5 GB/s: the reduce floor can bind) or with set ones.
TEST(SimBound, NoPredictionBeatsTheBoundOnSyntheticClusters) {
  const std::pair<const char*, const char*> clusters[] = {
      {"one rank", "island a nodes=1 ranks_per_node=1 intra=10GB/s:1us\n"},
      {"one island", "island a nodes=1 ranks_per_node=8 intra=100GB/s:2us\nreduce 50GB/s\nstep_overhead 2us\n"},
      {"one island, default rates", "island a nodes=1 ranks_per_node=5 intra=5GB/s:5us\n"},
      {"one island over nodes", "island a nodes=4 ranks_per_node=4 intra=100GB/s:2us\nlink inter 10GB/s:4us\n"},
      {"islands of one rank", "island a nodes=16 ranks_per_node=1 intra=100GB/s:2us\nlink inter 10GB/s:4us\n"},
      // hier crosses in two network rounds whatever the island count: below log2 p rounds.
      {"islands of one rank, slow network latency",
       "island a nodes=16 ranks_per_node=1 intra=100GB/s:2us\n"
       "link inter 10GB/s:100us\nstep_overhead 1us\n"},
      {"two ranks",
       "island a nodes=1 ranks_per_node=1 intra=1GB/s:1us\n"
       "island b nodes=1 ranks_per_node=1 intra=1GB/s:1us\nlink inter 10GB/s:4us\n"},
      {"many islands of two",
       "island a nodes=7 ranks_per_node=2 intra=50GB/s:2us\n"
       "island b nodes=5 ranks_per_node=2 intra=40GB/s:3us\nlink inter 20GB/s:5us\n"
       "reduce 200GB/s\nstep_overhead 3us\n"},
      {"uneven islands",
       "island a nodes=1 ranks_per_node=8 intra=100GB/s:2us\n"
       "island b nodes=1 ranks_per_node=3 intra=30GB/s:3us\n"
       "island c nodes=1 ranks_per_node=1 intra=30GB/s:3us\nlink inter 12GB/s:5us\n"},
      {"network faster than the island links",
       "island a nodes=2 ranks_per_node=4 intra=5GB/s:1us\n"
       "island b nodes=1 ranks_per_node=4 intra=5GB/s:1us\n"
       "link inter 50GB/s:5us\nreduce 500GB/s\n"},
      {"shared uplink",
       "island a nodes=2 ranks_per_node=4 intra=100GB/s:2us\n"
       "island b nodes=2 ranks_per_node=4 intra=100GB/s:2us\n"
       "link inter 25GB/s:5us\nuplink 20GB/s\nreduce 400GB/s\nstep_overhead 5us\n"},
      {"shared uplink, interleaved",
       "island a nodes=3 ranks_per_node=2 intra=20GB/s:2us\n"
       "island b nodes=2 ranks_per_node=2 intra=20GB/s:2us\n"
       "link inter 10GB/s:5us\nuplink 3GB/s\nlayout interleaved\n"},
      {"library islands",
       "island nvidia nodes=2 ranks_per_node=4 intra=150GB/s:2us library=nccl\n"
       "island amd nodes=2 ranks_per_node=4 intra=50GB/s:3us library=rccl\n"
       "link inter 25GB/s:5us\nreduce 300GB/s\ncopy 400GB/s\nstep_overhead 5us\n"},
      {"library and own islands, slow reductions",
       "island nvidia nodes=1 ranks_per_node=8 intra=100GB/s:2us library=nccl\n"
       "island amd nodes=1 ranks_per_node=8 intra=100GB/s:2us\n"
       "link inter 100GB/s:3us\nreduce 2GB/s\nstep_overhead 2us\n"},
      // Sliced plans run the libraries' reductions beside the executor's: the reduce term's k = 2.
      {"library islands, slow reductions",
       "island a nodes=1 ranks_per_node=8 intra=200GB/s:1us library=nccl\n"
       "island b nodes=1 ranks_per_node=8 intra=200GB/s:1us library=nccl\n"
       "link inter 200GB/s:1us\nreduce 1GB/s\nstep_overhead 1us\n"},
      {"library islands, default rates",
       "island a nodes=2 ranks_per_node=2 intra=5GB/s:5us library=nccl\n"
       "island b nodes=1 ranks_per_node=3 intra=5GB/s:5us library=nccl\n"
       "link inter 5GB/s:5us\n"},
  };
  for (const auto& [name, text] : clusters) {
    const ClusterDescription cluster = parsed(text);
    for (const SweepCase& c : everyWay(true)) expectNothingBelowTheBound(name, cluster, c, 2);
    // The bound holds at any chunk size and depth, not only the tuner's.
    for (size_t chunk : {size_t{4} << 10, size_t{64} << 20})
      for (int depth : {1, 16})
        expectNothingBelowTheBound(name, cluster, {hetccl::IslandScope::Node, 4, false, chunk, depth}, 4);
  }
}

}  // namespace
}  // namespace hetccl_sim
