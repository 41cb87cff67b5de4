#include "algorithms/all_reduce_layout.h"

#include <map>

namespace hetccl {

AllReduceLayout::AllReduceLayout(const TopologyView& topology, size_t n, bool vendorSteps, int parts)
    : topology_(topology), n_(n), vendorSteps_(vendorSteps), parts_(parts) {
  std::map<std::pair<int, bool>, int> cutOf;  // (members, vendor) -> index in cuts_
  islandCut_.reserve(topology.islandCount());
  for (int island = 0; island < topology.islandCount(); ++island) {
    const IslandShards shards = shardsOf(island);
    // Neighbouring islands are mostly alike (nodes of one kind): skip the map for those.
    if (island > 0 && shards.g == cuts_[islandCut_.back()].g && shards.vendor == cuts_[islandCut_.back()].vendor) {
      islandCut_.push_back(islandCut_.back());
      continue;
    }
    auto [it, added] = cutOf.emplace(std::make_pair(shards.g, shards.vendor), static_cast<int>(cuts_.size()));
    if (added) cuts_.push_back(shards);
    islandCut_.push_back(it->second);
  }
  // Each cut's shard starts ascend: merge them rather than sort, dropping repeats.
  boundaries_ = {0, n};
  for (const IslandShards& shards : cuts_) {
    const size_t middle = boundaries_.size();
    for (int k = 0; k < shards.g; ++k) boundaries_.push_back(shards.begin(k));
    std::inplace_merge(boundaries_.begin(), boundaries_.begin() + middle, boundaries_.end());
    boundaries_.erase(std::unique(boundaries_.begin(), boundaries_.end()), boundaries_.end());
  }
  // Where each shard's first segment starts, by one walk over the boundaries per cut: every
  // shard start (and n) is a boundary.
  shardFirstSegment_.resize(cuts_.size());
  for (size_t cut = 0; cut < cuts_.size(); ++cut) {
    const IslandShards& shards = cuts_[cut];
    size_t segment = 0;
    shardFirstSegment_[cut].reserve(shards.g + 1);
    for (int k = 0; k <= shards.g; ++k) {
      const size_t begin = shards.begin(k);
      while (boundaries_[segment] < begin) ++segment;
      shardFirstSegment_[cut].push_back(static_cast<int>(segment));
    }
  }
}

}  // namespace hetccl
