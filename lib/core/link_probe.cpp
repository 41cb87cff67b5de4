#include "core/link_probe.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

namespace hetccl {

namespace {

// Bandwidth is the slope between two sizes, both larger than a token bucket's burst (the test
// cluster's tbf lets the first 128-500 KiB through at once) so that neither the burst nor the
// latency is counted as bandwidth.
constexpr size_t kMediumBytes = size_t{1} << 20;
constexpr size_t kLargeBytes = size_t{4} << 20;
constexpr int kTries = 3;  // each figure is the best of this many runs
constexpr int kSmallRoundTrips = 20;
constexpr size_t kMaxConcurrentPairs = 8;
// Concurrent pairs slower than one pair alone by more than this share a link.
constexpr double kSharedThreshold = 1.25;

// A barrier that waits without spinning.  Where ranks outnumber cores (the test cluster's
// namespace nodes share the host's), members spinning in MPI's barrier take the cores from the
// pair being timed, and every round trip then waits for a scheduler tick.
Status quietBarrier(Bootstrap& members) {
  char mine = 0;
  std::vector<char> all(static_cast<size_t>(members.size()));
  std::unique_ptr<PendingExchange> pending;
  HETCCL_TRY(members.startAllGather(&mine, 1, all.data(), &pending));
  for (bool done = false;;) {
    HETCCL_TRY(pending->test(&done));
    if (done) return Status::ok();
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// One-way seconds of `bytes` between rank 0 and `peer`: `rounds` round trips back to back after
// an untimed one (which absorbs the barrier's skew), halved; the best of kTries runs.  Only
// rank 0's figure means anything.
Status oneWaySeconds(Bootstrap& members, int peer, size_t bytes, int rounds, double* best) {
  std::vector<char> buffer(bytes);
  const int me = members.rank();
  *best = 1e9;
  for (int t = 0; t < kTries; ++t) {
    HETCCL_TRY(quietBarrier(members));
    if (me != 0 && me != peer) continue;
    double start = 0;
    for (int i = 0; i <= rounds; ++i) {
      if (i == 1) start = members.seconds();
      if (me == 0) {
        HETCCL_TRY(members.send(buffer.data(), bytes, peer));
        HETCCL_TRY(members.recv(buffer.data(), bytes, peer));
      } else {
        HETCCL_TRY(members.recv(buffer.data(), bytes, 0));
        HETCCL_TRY(members.send(buffer.data(), bytes, 0));
      }
    }
    *best = std::min(*best, (members.seconds() - start) / (2.0 * rounds));
  }
  return Status::ok();
}

Status measureLink(Bootstrap& members, int peer, LinkCost* cost) {
  double small = 0, medium = 0, big = 0;
  HETCCL_TRY(oneWaySeconds(members, peer, 8, kSmallRoundTrips, &small));
  HETCCL_TRY(oneWaySeconds(members, peer, kMediumBytes, 1, &medium));
  HETCCL_TRY(oneWaySeconds(members, peer, kLargeBytes, 1, &big));
  *cost = LinkCost{small, std::max(1e-12, (big - medium) / static_cast<double>(kLargeBytes - kMediumBytes))};
  return Status::ok();
}

// Seconds, on rank 0's clock, from a barrier until every pair's sender has sent `bytes` to its
// receiver, all pairs at once; the best of kTries runs.  Rank 0 sends in the first pair.
Status concurrentSeconds(Bootstrap& members, const std::vector<std::pair<int, int>>& pairs, size_t bytes,
                         double* best) {
  std::vector<char> buffer(bytes);
  *best = 1e9;
  for (int t = 0; t < kTries; ++t) {
    HETCCL_TRY(quietBarrier(members));
    const double start = members.seconds();
    for (const auto& [sender, receiver] : pairs) {
      if (members.rank() == sender) HETCCL_TRY(members.send(buffer.data(), bytes, receiver));
      if (members.rank() == receiver) HETCCL_TRY(members.recv(buffer.data(), bytes, sender));
    }
    HETCCL_TRY(quietBarrier(members));
    *best = std::min(*best, members.seconds() - start);
  }
  return Status::ok();
}

// Pairs (i-th member of rank 0's island, i-th member of `otherIsland`), at most
// kMaxConcurrentPairs.
std::vector<std::pair<int, int>> crossIslandPairs(const TopologyView& view, int otherIsland) {
  const std::vector<int>& mine = view.members[view.islandOf[0]];
  const std::vector<int>& theirs = view.members[otherIsland];
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < std::min({mine.size(), theirs.size(), kMaxConcurrentPairs}); ++i)
    pairs.emplace_back(mine[i], theirs[i]);
  return pairs;
}

}  // namespace

Status probeLinks(Bootstrap& members, const JobTopology& topology, ProbedLinks* probed) {
  const TopologyView& view = topology.view;
  int sameIslandPeer = -1, otherIslandPeer = -1;
  for (int r = 1; r < view.nranks; ++r) {
    if (view.islandOf[r] == view.islandOf[0] && sameIslandPeer < 0) sameIslandPeer = r;
    if (view.islandOf[r] != view.islandOf[0] && otherIslandPeer < 0) otherIslandPeer = r;
  }
  ProbedLinks p;
  if (sameIslandPeer >= 0) HETCCL_TRY(measureLink(members, sameIslandPeer, &p.intraIsland));
  if (otherIslandPeer >= 0) HETCCL_TRY(measureLink(members, otherIslandPeer, &p.interIsland));
  p.intraMeasured = sameIslandPeer >= 0;
  p.interMeasured = otherIslandPeer >= 0;
  if (otherIslandPeer >= 0) {
    const std::vector<std::pair<int, int>> pairs = crossIslandPairs(view, view.islandOf[otherIslandPeer]);
    if (pairs.size() >= 2) {
      // Seconds per byte of one pair alone and of all pairs' bytes together, as slopes.
      double alone[2] = {0, 0}, together[2] = {0, 0};
      HETCCL_TRY(concurrentSeconds(members, {pairs[0]}, kMediumBytes, &alone[0]));
      HETCCL_TRY(concurrentSeconds(members, {pairs[0]}, kLargeBytes, &alone[1]));
      HETCCL_TRY(concurrentSeconds(members, pairs, kMediumBytes, &together[0]));
      HETCCL_TRY(concurrentSeconds(members, pairs, kLargeBytes, &together[1]));
      const double span = static_cast<double>(kLargeBytes - kMediumBytes);
      const double aloneBeta = (alone[1] - alone[0]) / span;
      const double togetherBeta = (together[1] - together[0]) / (span * static_cast<double>(pairs.size()));
      p.concurrentPairs = static_cast<int>(pairs.size());
      // k pairs that do not share a link move k times the bytes in the time of one.
      if (togetherBeta * static_cast<double>(pairs.size()) > kSharedThreshold * aloneBeta)
        p.islandUplinkBeta = std::max(1e-12, togetherBeta);
    }
  }
  // Rank 0 timed everything; everyone takes its figures.
  double figures[5] = {p.intraIsland.alpha, p.intraIsland.beta, p.interIsland.alpha, p.interIsland.beta,
                       p.islandUplinkBeta};
  HETCCL_TRY(members.broadcast(figures, sizeof figures, 0));
  p.intraIsland = LinkCost{figures[0], figures[1]};
  p.interIsland = LinkCost{figures[2], figures[3]};
  p.islandUplinkBeta = figures[4];
  *probed = p;
  return Status::ok();
}

}  // namespace hetccl
