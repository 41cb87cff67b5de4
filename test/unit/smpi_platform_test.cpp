// hetccl-sim --smpi-platform: the SimGrid platform written from a cluster description has the
// description's hosts, links and routes (apps/sim/smpi_platform.h).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "sim/cluster_description.h"
#include "sim/smpi_platform.h"

namespace hetccl_sim {
namespace {

ClusterDescription describe(const std::string& text) {
  std::istringstream input(text);
  ClusterDescription cluster;
  DescriptionError error;
  EXPECT_TRUE(parseClusterDescription(input, &cluster, &error)) << error.describe();
  return cluster;
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// The route from one host to another, as written.
std::string route(const std::string& xml, const std::string& from, const std::string& to) {
  const std::string start = "<route src=\"" + from + "\" dst=\"" + to + "\"";
  const size_t at = xml.find(start);
  if (at == std::string::npos) return "";
  return xml.substr(at, xml.find("</route>", at) - at);
}

const char kTwoVendors[] =
    "island nvidia nodes=2 ranks_per_node=2 intra=100GB/s:2us\n"
    "island amd    nodes=1 ranks_per_node=2 intra=50GB/s:4us\n"
    "link inter 12.5GB/s:6us\n";

TEST(SmpiPlatform, OneHostPerRankNamedByNodeInRankOrder) {
  const SmpiPlatform platform = smpiPlatformOf(describe(kTwoVendors), hetccl::IslandScope::Node);
  EXPECT_EQ(platform.hostfile, "node0.gpu0\nnode0.gpu1\nnode1.gpu0\nnode1.gpu1\nnode2.gpu0\nnode2.gpu1\n");
  EXPECT_EQ(platform.vendors, "nvidia:4,amd:2");
  EXPECT_EQ(occurrences(platform.xml, "<host id="), 6u);
  // Every ordered pair of hosts has its route, each direction apart.
  EXPECT_EQ(occurrences(platform.xml, "<route "), 30u);
}

TEST(SmpiPlatform, LinksCarryTheDescriptionsFiguresWithHalfTheLatencyEach) {
  const std::string xml = smpiPlatformOf(describe(kTwoVendors), hetccl::IslandScope::Node).xml;
  EXPECT_NE(xml.find("<link id=\"node2.gpu1-intra-up\" bandwidth=\"50000000000Bps\" latency=\"2e-06s\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<link id=\"node0.gpu0-nic-down\" bandwidth=\"12500000000Bps\" latency=\"3e-06s\"/>"),
            std::string::npos);
  EXPECT_EQ(xml.find("uplink"), std::string::npos) << "no uplink statement, no shared uplink";
}

TEST(SmpiPlatform, RanksOfANodeMeetOverTheirOwnLinksOthersOverTheirNics) {
  const std::string xml = smpiPlatformOf(describe(kTwoVendors), hetccl::IslandScope::Node).xml;
  const std::string inNode = route(xml, "node0.gpu1", "node0.gpu0");
  EXPECT_NE(inNode.find("node0.gpu1-intra-up"), std::string::npos);
  EXPECT_NE(inNode.find("node0.gpu0-intra-down"), std::string::npos);
  EXPECT_EQ(inNode.find("nic"), std::string::npos);
  const std::string across = route(xml, "node1.gpu0", "node2.gpu1");
  EXPECT_NE(across.find("node1.gpu0-nic-up"), std::string::npos);
  EXPECT_NE(across.find("node2.gpu1-nic-down"), std::string::npos);
  EXPECT_EQ(across.find("intra"), std::string::npos);
}

TEST(SmpiPlatform, AnUplinkIsSharedByAnIslandsTrafficToOtherIslands) {
  const std::string text = std::string(kTwoVendors) + "uplink 25GB/s\n";
  // Job scope: one island per vendor, the uplink each vendor's trunk.
  const std::string xml = smpiPlatformOf(describe(text), hetccl::IslandScope::Job).xml;
  EXPECT_EQ(occurrences(xml, "-uplink-up\" bandwidth=\"25000000000Bps\""), 2u);
  const std::string crossVendor = route(xml, "node0.gpu0", "node2.gpu0");
  EXPECT_NE(crossVendor.find("island0-uplink-up"), std::string::npos);
  EXPECT_NE(crossVendor.find("island1-uplink-down"), std::string::npos);
  const std::string sameVendor = route(xml, "node0.gpu0", "node1.gpu0");
  EXPECT_EQ(sameVendor.find("uplink"), std::string::npos) << "two nodes of one island do not cross the trunk";
}

}  // namespace
}  // namespace hetccl_sim
