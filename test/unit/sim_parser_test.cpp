// hetccl-sim's cluster description (every statement, every error with its line), its
// command line, and the sweep's link to the library's tuner.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "algorithms/algorithm.h"
#include "perf/perf_types.h"
#include "sim/cluster_description.h"
#include "sim/sim_options.h"
#include "sim/sweep.h"

namespace hetccl_sim {
namespace {

const char kMixedCluster[] =
    "# 2 nodes x 4 V100 + 1 node x 4 W7800\n"
    "\n"
    "island nvidia nodes=2 ranks_per_node=4 intra=150GB/s:2us\n"
    "island amd    nodes=1 ranks_per_node=4 intra=64GB/s:3us   # one node\n"
    "link inter 200Gb/s:5us\n"
    "reduce 500GB/s\n"
    "copy 1TB/s\n"
    "step_overhead 4us\n"
    "uplink 50GB/s\n"
    "layout interleaved\n";

bool parse(const std::string& text, ClusterDescription* cluster, DescriptionError* error) {
  std::istringstream input(text);
  return parseClusterDescription(input, cluster, error);
}

// The error of a description that must not parse.
DescriptionError errorOf(const std::string& text) {
  ClusterDescription cluster;
  DescriptionError error;
  EXPECT_FALSE(parse(text, &cluster, &error)) << text;
  return error;
}

const std::string kIsland = "island a nodes=1 ranks_per_node=2 intra=10GB/s:1us\n";

TEST(SimDescription, ParsesEveryStatement) {
  ClusterDescription cluster;
  DescriptionError error;
  ASSERT_TRUE(parse(kMixedCluster, &cluster, &error)) << error.describe();
  ASSERT_EQ(cluster.islands.size(), 2u);
  EXPECT_EQ(cluster.islands[0].name, "nvidia");
  EXPECT_EQ(cluster.islands[0].nodes, 2);
  EXPECT_EQ(cluster.islands[0].ranksPerNode, 4);
  EXPECT_DOUBLE_EQ(cluster.islands[0].intraNode.alpha, 2e-6);
  EXPECT_DOUBLE_EQ(cluster.islands[0].intraNode.beta, 1 / 150e9);
  EXPECT_EQ(cluster.islands[1].line, 4);
  EXPECT_TRUE(cluster.networkSet);
  EXPECT_DOUBLE_EQ(cluster.network.beta, 1 / 25e9);  // 200 Gb/s
  EXPECT_DOUBLE_EQ(cluster.reduceBytesPerSecond, 500e9);
  EXPECT_DOUBLE_EQ(cluster.copyBytesPerSecond, 1e12);
  EXPECT_DOUBLE_EQ(cluster.stepOverheadSeconds, 4e-6);
  EXPECT_DOUBLE_EQ(cluster.uplinkBytesPerSecond, 50e9);
  EXPECT_DOUBLE_EQ(costParametersOf(cluster, hetccl::IslandScope::Job).islandUplinkBeta, 1 / 50e9);
  EXPECT_EQ(cluster.layout, RankLayout::Interleaved);
  EXPECT_EQ(cluster.rankCount(), 12);
}

TEST(SimDescription, OptionalSettingsKeepTheLibraryDefaults) {
  ClusterDescription cluster;
  DescriptionError error;
  ASSERT_TRUE(parse(kIsland, &cluster, &error)) << error.describe();
  hetccl::CostParameters defaults;
  hetccl::CostParameters costs = costParametersOf(cluster, hetccl::IslandScope::Job);
  EXPECT_DOUBLE_EQ(costs.gamma, defaults.gamma);
  EXPECT_DOUBLE_EQ(costs.copyBeta, defaults.copyBeta);
  EXPECT_DOUBLE_EQ(costs.stepOverhead, defaults.stepOverhead);
  EXPECT_EQ(costs.islandUplinkBeta, 0.0);
  EXPECT_EQ(cluster.layout, RankLayout::Contiguous);
  // One island on one node never crosses the network: its intra link is the island link.
  EXPECT_DOUBLE_EQ(costs.intraIsland.beta, 1 / 10e9);
}

TEST(SimDescription, RanksAreNumberedByLayout) {
  ClusterDescription cluster;
  DescriptionError error;
  ASSERT_TRUE(parse(kMixedCluster, &cluster, &error));
  // Interleaved by node: nvidia node 0, amd node 0, nvidia node 1.
  hetccl::TopologyView interleaved = topologyOf(cluster, hetccl::IslandScope::Job);
  EXPECT_EQ(interleaved.islandOf, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0}));
  cluster.layout = RankLayout::Contiguous;
  hetccl::TopologyView contiguous = topologyOf(cluster, hetccl::IslandScope::Job);
  EXPECT_EQ(contiguous.islandOf, (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(contiguous.islandSize(0), 8);
}

// The library's default: an island per vendor and node.  kMixedCluster's nodes (nvidia,
// amd, nvidia, interleaved) become three islands of four, each inside one node, so the
// intra-island class is the slowest node-local link and the network is only across islands.
TEST(SimDescription, NodeScopeFormsAnIslandPerNode) {
  ClusterDescription cluster;
  DescriptionError error;
  ASSERT_TRUE(parse(kMixedCluster, &cluster, &error));
  const hetccl::TopologyView topology = topologyOf(cluster, hetccl::IslandScope::Node);
  EXPECT_EQ(topology.islandOf, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(topology.islandLibrary.size(), 3u);
  const std::vector<FormedIsland> islands = formedIslands(cluster, hetccl::IslandScope::Node);
  ASSERT_EQ(islands.size(), 3u);
  EXPECT_EQ(islands[1].declared, 1);  // amd
  EXPECT_EQ(islands[2].declared, 0);  // nvidia's second node
  const hetccl::CostParameters costs = costParametersOf(cluster, hetccl::IslandScope::Node);
  EXPECT_DOUBLE_EQ(costs.intraIsland.beta, 1 / 64e9);
  EXPECT_DOUBLE_EQ(costs.intraIsland.alpha, 3e-6);
  EXPECT_DOUBLE_EQ(costs.interIsland.beta, 1 / 25e9);
}

TEST(SimDescription, IntraIslandCostIsTheSlowestLinkInsideAnyIsland) {
  ClusterDescription cluster;
  DescriptionError error;
  ASSERT_TRUE(parse(kMixedCluster, &cluster, &error));
  hetccl::CostParameters costs = costParametersOf(cluster, hetccl::IslandScope::Job);
  // nvidia spans two nodes: the 25 GB/s network is inside it; amd's link has the larger
  // latency.  Bandwidth and latency are each the worst.
  EXPECT_DOUBLE_EQ(costs.intraIsland.beta, 1 / 25e9);
  EXPECT_DOUBLE_EQ(costs.intraIsland.alpha, 5e-6);
  EXPECT_DOUBLE_EQ(costs.interIsland.beta, 1 / 25e9);
  EXPECT_DOUBLE_EQ(costs.gamma, 1 / 500e9);
}

struct BadCase {
  std::string text;
  int line;
  const char* says;
};

TEST(SimDescription, EveryErrorNamesItsLine) {
  const std::string two = kIsland;  // errors on line 2 follow a good line
  const BadCase cases[] = {
      {"bogus 1\n", 1, "unknown statement 'bogus'"},
      {"island\n", 1, "island needs a name"},
      {"island nodes=1\n", 1, "island needs a name"},
      {"island a nodes=1 ranks_per_node=2\n", 1, "lacks intra="},
      {"island a ranks_per_node=2 intra=1GB/s:1us\n", 1, "lacks nodes="},
      {"island a nodes=0 ranks_per_node=2 intra=1GB/s:1us\n", 1, "bad nodes='0'"},
      {"island a nodes=x ranks_per_node=2 intra=1GB/s:1us\n", 1, "bad nodes='x'"},
      {"island a nodes=1 ranks_per_node=-2 intra=1GB/s:1us\n", 1, "bad ranks_per_node='-2'"},
      {"island a nodes=1 ranks_per_node=2 intra=1GB/s\n", 1, "bad intra='1GB/s'"},
      {"island a nodes=1 ranks_per_node=2 intra=1GHz:1us\n", 1, "bad intra="},
      {"island a nodes=1 ranks_per_node=2 intra=0GB/s:1us\n", 1, "bad intra="},
      {"island a nodes=1 ranks_per_node=2 intra=1GB/s:-1us\n", 1, "bad intra="},
      {"island a nodes=1 nodes=2 ranks_per_node=2 intra=1GB/s:1us\n", 1, "'nodes' given twice"},
      {"island a nodes=1 ranks_per_node=2 intra=1GB/s:1us gpus=2\n", 1, "unknown island key 'gpus'"},
      {"island a nodes=1 ranks_per_node=2 intra=1GB/s:1us extra\n", 1, "expected key=value"},
      {"island a nodes=1024 ranks_per_node=1025 intra=1GB/s:1us\n", 1, "ranks in all"},
      {two + "island a nodes=1 ranks_per_node=2 intra=1GB/s:1us\n", 2, "already declared on line 1"},
      {two + "link intra 1GB/s:1us\n", 2, "unknown link class 'intra'"},
      {two + "link inter 1GB/s\n", 2, "bad link '1GB/s'"},
      {two + "link inter\n", 2, "expected 'link inter BANDWIDTH:LATENCY'"},
      {two + "link inter 1GB/s:1us\nlink inter 2GB/s:1us\n", 3, "already given on line 2"},
      {two + "reduce fast\n", 2, "bad bandwidth 'fast'"},
      {two + "reduce 1GB/s 2GB/s\n", 2, "takes exactly one value"},
      {two + "uplink slow\n", 2, "bad bandwidth 'slow'"},
      {two + "copy 10\n", 2, "bad bandwidth '10'"},
      {two + "step_overhead 5 us\n", 2, "takes exactly one value"},
      {two + "step_overhead 5xs\n", 2, "bad duration '5xs'"},
      {two + "layout random\n", 2, "unknown layout 'random'"},
      {two + "layout contiguous\nlayout interleaved\n", 3, "already given on line 2"},
      {"# nothing\n\n", 0, "no island declared"},
      {two + "island b nodes=1 ranks_per_node=2 intra=1GB/s:1us\n", 0, "no 'link inter"},
      {"island a nodes=2 ranks_per_node=2 intra=1GB/s:1us\n", 0, "island 'a', line 1"},
  };
  for (const BadCase& bad : cases) {
    DescriptionError error = errorOf(bad.text);
    EXPECT_EQ(error.line, bad.line) << bad.text << " -> " << error.describe();
    EXPECT_NE(error.message.find(bad.says), std::string::npos) << bad.text << " -> " << error.describe();
    if (bad.line > 0) {
      EXPECT_EQ(error.describe().rfind("line " + std::to_string(bad.line) + ": ", 0), 0u);
    }
  }
}

SimOptions optionsOf(std::vector<const char*> args, bool* ok, std::string* error) {
  args.insert(args.begin(), "hetccl-sim");
  SimOptions options;
  *ok = parseSimOptions(static_cast<int>(args.size()), args.data(), &options, error);
  return options;
}

TEST(SimOptions, DefaultsAndFlags) {
  bool ok = false;
  std::string error;
  SimOptions o = optionsOf({"c.cluster"}, &ok, &error);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(o.clusterPath, "c.cluster");
  EXPECT_EQ(sizeSweep(o).size(), 11u);  // 1K .. 1G by 4
  o = optionsOf({"-b", "8", "-e", "64", "-f", "2", "-c", "allgather", "-t", "half", "--chunk", "64K", "--depth", "2",
                 "--json", "c.cluster"},
                &ok, &error);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{8, 16, 32, 64}));
  EXPECT_EQ(o.collective, hetccl::Collective::AllGather);
  EXPECT_EQ(o.elementSize, 2u);
  EXPECT_EQ(o.chunkBytes, size_t{64} << 10);
  EXPECT_EQ(o.pipelineDepth, 2);
  EXPECT_TRUE(o.json);
}

TEST(SimOptions, RejectsBadUsage) {
  const std::vector<std::vector<const char*>> bad = {
      {},
      {"a", "b"},
      {"a", "-b"},
      {"a", "-b", "1X"},
      {"a", "-b", "2M", "-e", "1M"},
      {"a", "-f", "1"},
      {"a", "-c", "sendrecv"},
      {"a", "-t", "float128"},
      {"a", "--chunk", "0"},
      {"a", "--depth", "65"},
      {"a", "--frobnicate", "1"},
  };
  for (const auto& args : bad) {
    bool ok = true;
    std::string error;
    optionsOf(args, &ok, &error);
    EXPECT_FALSE(ok);
    EXPECT_FALSE(error.empty());
  }
}

// Two islands of one node x 4 ranks each: fast links inside (100 GB/s, 1 us), a slow network
// between them (1 GB/s, 20 us).
const char kSlowNetwork[] =
    "island a nodes=1 ranks_per_node=4 intra=100GB/s:1us\n"
    "island b nodes=1 ranks_per_node=4 intra=100GB/s:1us\n"
    "link inter 1GB/s:20us\n";

const AlgorithmPrediction& predictionOf(const SizePrediction& row, hetccl::Algorithm algorithm) {
  for (const AlgorithmPrediction& p : row.algorithms)
    if (p.algorithm == algorithm) return p;
  static const AlgorithmPrediction none;
  ADD_FAILURE() << "no prediction for " << hetccl::algorithmName(algorithm);
  return none;
}

// The pick is the fastest of the predictions printed in the same row: same algorithm, same
// chunk, same time.
void expectPickIsFastest(const SizePrediction& row) {
  const AlgorithmPrediction* fastest = nullptr;
  for (const AlgorithmPrediction& p : row.algorithms)
    if (p.applies && (fastest == nullptr || p.choice.predictedSeconds < fastest->choice.predictedSeconds)) fastest = &p;
  ASSERT_NE(fastest, nullptr);
  EXPECT_EQ(row.pick.algorithm, fastest->algorithm) << row.bytes << " bytes";
  EXPECT_EQ(row.pick.chunkBytes, fastest->choice.chunkBytes) << row.bytes << " bytes";
  EXPECT_DOUBLE_EQ(row.pick.predictedSeconds, fastest->choice.predictedSeconds) << row.bytes << " bytes";
  EXPECT_DOUBLE_EQ(row.pickBusBandwidth, fastest->busBandwidth);
}

// What the cost formulas say without running the tuner.  A tiny message (64 floats, 8 per
// rank) is latency-bound: recursive doubling ("small") takes log2(8) = 3 rounds, one of them
// across the 20 us network, while the flat ring takes 2(p-1) = 14 steps, each crossing the
// network somewhere.  A large one is bandwidth-bound: the hierarchical ring sends a quarter
// of the buffer per rank over the network, while the flat ring's links across it carry
// 2(p-1)/p of the buffer.
TEST(SimSweep, PicksFollowTheCostFormulas) {
  ClusterDescription cluster;
  DescriptionError error;
  ASSERT_TRUE(parse(kSlowNetwork, &cluster, &error)) << error.describe();
  const hetccl::TopologyView topology = topologyOf(cluster, hetccl::IslandScope::Job);
  const hetccl::CostParameters costs = costParametersOf(cluster, hetccl::IslandScope::Job);
  const size_t large = size_t{64} << 20;
  const std::vector<SizePrediction> rows =
      predictSweep(topology, formedIslands(cluster, hetccl::IslandScope::Job), costs, hetccl::TunerSettings{},
                   hetccl::Collective::AllReduce, 4, {256, large});
  ASSERT_EQ(rows.size(), 2u);
  const double networkLatency = 20e-6, networkSecondsPerByte = 1 / 1e9;

  const SizePrediction& tiny = rows[0];
  EXPECT_EQ(tiny.pick.algorithm, hetccl::Algorithm::Small);
  const double tinyRing = predictionOf(tiny, hetccl::Algorithm::Ring).choice.predictedSeconds;
  EXPECT_GE(tinyRing, 14 * networkLatency);
  EXPECT_LT(predictionOf(tiny, hetccl::Algorithm::Small).choice.predictedSeconds, tinyRing / 2);
  expectPickIsFastest(tiny);

  const SizePrediction& big = rows[1];
  EXPECT_EQ(big.bytes, large);
  const double ringSeconds = predictionOf(big, hetccl::Algorithm::Ring).choice.predictedSeconds;
  const double hierSeconds = predictionOf(big, hetccl::Algorithm::Hierarchical).choice.predictedSeconds;
  EXPECT_GE(ringSeconds, 2.0 * 7 / 8 * static_cast<double>(large) * networkSecondsPerByte);
  EXPECT_LT(hierSeconds, ringSeconds / 3);
  EXPECT_NE(big.pick.algorithm, hetccl::Algorithm::Ring);
  EXPECT_NE(big.pick.algorithm, hetccl::Algorithm::Small);
  expectPickIsFastest(big);

  // Native needs one island; equal islands make torus apply.
  for (const SizePrediction& row : rows)
    for (const AlgorithmPrediction& p : row.algorithms)
      EXPECT_EQ(p.applies, p.algorithm != hetccl::Algorithm::Native) << hetccl::algorithmName(p.algorithm);
}

// 8+4 ranks: unequal islands, so no torus (and no native); the pick is still the row's fastest.
TEST(SimSweep, PickIsTheFastestApplicableAlgorithm) {
  ClusterDescription cluster;
  DescriptionError error;
  ASSERT_TRUE(parse(kMixedCluster, &cluster, &error));
  const std::vector<SizePrediction> rows =
      predictSweep(topologyOf(cluster, hetccl::IslandScope::Job), formedIslands(cluster, hetccl::IslandScope::Job),
                   costParametersOf(cluster, hetccl::IslandScope::Job), hetccl::TunerSettings{},
                   hetccl::Collective::AllReduce, 4, {1024, size_t{1} << 20, size_t{64} << 20});
  ASSERT_EQ(rows.size(), 3u);
  for (const SizePrediction& row : rows) {
    expectPickIsFastest(row);
    for (const AlgorithmPrediction& p : row.algorithms)
      EXPECT_EQ(p.applies, p.algorithm != hetccl::Algorithm::Native && p.algorithm != hetccl::Algorithm::Torus)
          << hetccl::algorithmName(p.algorithm);
  }
}

// library= makes the island's plans hand their reduce-scatter and all-gather to the vendor
// library, and the predictions follow (island steps charged once, outside the pipelines).
TEST(SimDescription, IslandLibraryReachesThePlans) {
  const std::string withLibrary =
      "island nvidia nodes=1 ranks_per_node=4 intra=150GB/s:2us library=nccl\n"
      "island amd nodes=1 ranks_per_node=4 intra=50GB/s:3us\n"
      "link inter 25GB/s:5us\n";
  ClusterDescription cluster;
  DescriptionError error;
  ASSERT_TRUE(parse(withLibrary, &cluster, &error)) << error.describe();
  EXPECT_EQ(cluster.islands[0].library, "nccl");
  EXPECT_EQ(cluster.islands[1].library, "none");
  const hetccl::TopologyView topology = topologyOf(cluster, hetccl::IslandScope::Job);
  ASSERT_EQ(topology.islandLibrary.size(), 2u);
  EXPECT_TRUE(topology.islandLibrary[0]);
  EXPECT_FALSE(topology.islandLibrary[1]);
  hetccl::PlanRequest request{hetccl::Collective::AllReduce, 1 << 20, topology.nranks, 0, false, false, &topology};
  hetccl::RankPlan plan = hetccl::buildPlan(hetccl::Algorithm::Hierarchical, request, 0);
  EXPECT_EQ(plan.steps.front().ops.front().kind, hetccl::OpKind::IslandReduceScatter);
  plan = hetccl::buildPlan(hetccl::Algorithm::Hierarchical, request, 4);  // amd: its own ring
  for (const hetccl::Step& step : plan.steps) EXPECT_FALSE(hetccl::isIslandStep(step)) << hetccl::describePlan(plan);
  EXPECT_FALSE(parse("island a nodes=1 ranks_per_node=2 intra=10GB/s:1us library=\n", &cluster, &error));
  EXPECT_NE(error.message.find("library= needs a name"), std::string::npos) << error.describe();
}

// Every collective the library plans has hetccl-perf's collective of the same name, so the
// sim's bus bandwidth uses hetccl-perf's factors.
TEST(SimSweep, CollectivesMapToHetcclPerfs) {
  for (hetccl::Collective c : {hetccl::Collective::AllReduce, hetccl::Collective::ReduceScatter,
                               hetccl::Collective::AllGather, hetccl::Collective::Broadcast, hetccl::Collective::Reduce,
                               hetccl::Collective::AlltoAll, hetccl::Collective::SendRecv})
    EXPECT_STREQ(hetccl_perf::collectiveName(perfCollective(c)), hetccl::collectiveName(c));
}

TEST(SimSweep, CountsAndBusFactorsFollowNcclTests) {
  const hetccl::TopologyView topology = hetccl::TopologyView::fromIslandIds({0, 0, 1, 1});
  const std::vector<FormedIsland> islands{{0, 2, hetccl::LinkCost{}}, {1, 2, hetccl::LinkCost{}}};
  // Bus bandwidth = bytes / time x 2(p-1)/p for all-reduce (1.5 on 4 ranks).
  const SizePrediction allReduce = predictSweep(topology, islands, hetccl::CostParameters{}, hetccl::TunerSettings{},
                                                hetccl::Collective::AllReduce, 4, {4096})
                                       .at(0);
  EXPECT_DOUBLE_EQ(allReduce.pickBusBandwidth, 4096 / allReduce.pick.predictedSeconds * 1.5);
  // All-gather's count is per rank; tiny sizes round up to one element and repeat rows drop.
  std::vector<SizePrediction> rows = predictSweep(topology, islands, hetccl::CostParameters{}, hetccl::TunerSettings{},
                                                  hetccl::Collective::AllGather, 4, {4, 8, 16, 64});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].count, 1u);
  EXPECT_EQ(rows[0].bytes, 16u);
  EXPECT_EQ(rows[1].count, 4u);
  EXPECT_EQ(rows[1].bytes, 64u);
}

}  // namespace
}  // namespace hetccl_sim
