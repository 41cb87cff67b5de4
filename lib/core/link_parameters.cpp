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
double oneWaySeconds(MPI_Comm comm, int rank, int peer, size_t bytes) {
  std::vector<char> buffer(bytes);
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, peer, 0, comm);
      MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE);
    } else if (rank == peer) {
      MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, comm);
    }
    best = std::min(best, (MPI_Wtime() - start) / 2);
  }
  return best;
}

LinkCost probe(MPI_Comm comm, int rank, int peer, LinkCost fallback) {
  if (peer < 0) return fallback;
  const size_t large = size_t{4} << 20;
  double small = oneWaySeconds(comm, rank, peer, 8);
  double big = oneWaySeconds(comm, rank, peer, large);
  double result[2] = {small, std::max(1e-12, (big - small) / static_cast<double>(large))};
  MPI_Bcast(result, 2, MPI_DOUBLE, 0, comm);
  return LinkCost{result[0], result[1]};
}

}  // namespace

Status chooseLinkParameters(MPI_Comm comm, const JobTopology& topology, const EmulatedLinks& emulated,
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
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const TopologyView& view = topology.view;
    int sameIslandPeer = -1, otherIslandPeer = -1;
    for (int r = 1; r < view.nranks; ++r) {
      if (view.islandOf[r] == view.islandOf[0] && sameIslandPeer < 0) sameIslandPeer = r;
      if (view.islandOf[r] != view.islandOf[0] && otherIslandPeer < 0) otherIslandPeer = r;
    }
    p.costs.intraIsland = probe(comm, rank, sameIslandPeer, p.costs.intraIsland);
    p.costs.interIsland = probe(comm, rank, otherIslandPeer, p.costs.interIsland);
    p.source = "measured";
  }
  *parameters = p;
  return Status::ok();
}

}  // namespace hetccl
