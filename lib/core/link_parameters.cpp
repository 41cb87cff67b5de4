#include "core/link_parameters.h"

#include <cstring>
#include <vector>

#include "base/settings_reader.h"

namespace hetccl {

namespace {

// Shared memory between processes of one host (Open MPI's vader) and a 100 Gb/s network.
constexpr LinkCost kSameNodeLink{3e-6, 1.0 / 5e9};
constexpr LinkCost kNetworkLink{10e-6, 1.0 / 12.5e9};

bool anyIslandSpansNodes(const JobTopology& topology, bool acrossIslands) {
  for (int a = 0; a < topology.view.nranks; ++a)
    for (int b = a + 1; b < topology.view.nranks; ++b) {
      bool sameIsland = topology.view.islandOf[a] == topology.view.islandOf[b];
      if (sameIsland == acrossIslands) continue;
      if (std::strcmp(topology.ranks[a].node, topology.ranks[b].node) != 0) return true;
    }
  return false;
}

// Round-trip time of `bytes` between rank 0 and `peer`, best of a few, halved.
Status oneWaySeconds(Bootstrap& members, int peer, size_t bytes, double* best) {
  std::vector<char> buffer(bytes);
  *best = 1e9;
  for (int i = 0; i < 5; ++i) {
    HETCCL_TRY(members.barrier());
    const double start = members.seconds();
    if (members.rank() == 0) {
      HETCCL_TRY(members.send(buffer.data(), bytes, peer));
      HETCCL_TRY(members.recv(buffer.data(), bytes, peer));
    } else if (members.rank() == peer) {
      HETCCL_TRY(members.recv(buffer.data(), bytes, 0));
      HETCCL_TRY(members.send(buffer.data(), bytes, 0));
    }
    *best = std::min(*best, (members.seconds() - start) / 2);
  }
  return Status::ok();
}

Status probe(Bootstrap& members, int peer, LinkCost* cost) {
  if (peer < 0) return Status::ok();  // no such link: the default stays
  const size_t large = size_t{4} << 20;
  double small = 0, big = 0;
  HETCCL_TRY(oneWaySeconds(members, peer, 8, &small));
  HETCCL_TRY(oneWaySeconds(members, peer, large, &big));
  // Rank 0 timed the round trips; everyone takes its figures.
  double result[2] = {small, std::max(1e-12, (big - small) / static_cast<double>(large))};
  HETCCL_TRY(members.broadcast(result, sizeof result, 0));
  *cost = LinkCost{result[0], result[1]};
  return Status::ok();
}

}  // namespace

Status chooseLinkParameters(Bootstrap& members, const JobTopology& topology, const EmulatedLinks& emulated,
                            LinkParameters* parameters) {
  LinkParameters p;
  p.costs.intraIsland = anyIslandSpansNodes(topology, false) ? kNetworkLink : kSameNodeLink;
  p.costs.interIsland = anyIslandSpansNodes(topology, true) ? kNetworkLink : kSameNodeLink;
  p.source = "defaults";
  bool probeLinks = false;
  HETCCL_TRY(readBool(SettingId::LinkProbe, &probeLinks));
  if (emulated.any()) {
    auto apply = [](const LinkPacing& speed, LinkCost* cost) {
      if (speed.paced) *cost = LinkCost{speed.latencySeconds, 1.0 / speed.bytesPerSecond};
    };
    apply(emulated.intraIsland, &p.costs.intraIsland);
    apply(emulated.interIsland, &p.costs.interIsland);
    p.source = "emulation";
  } else if (probeLinks) {
    const TopologyView& view = topology.view;
    int sameIslandPeer = -1, otherIslandPeer = -1;
    for (int r = 1; r < view.nranks; ++r) {
      if (view.islandOf[r] == view.islandOf[0] && sameIslandPeer < 0) sameIslandPeer = r;
      if (view.islandOf[r] != view.islandOf[0] && otherIslandPeer < 0) otherIslandPeer = r;
    }
    HETCCL_TRY(probe(members, sameIslandPeer, &p.costs.intraIsland));
    HETCCL_TRY(probe(members, otherIslandPeer, &p.costs.interIsland));
    p.source = "measured";
  }
  *parameters = p;
  return Status::ok();
}

}  // namespace hetccl
