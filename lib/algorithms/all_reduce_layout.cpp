#include "algorithms/all_reduce_layout.h"

namespace hetccl {

AllReduceLayout::AllReduceLayout(const TopologyView& topology, size_t n, bool vendorSteps, int parts)
    : topology_(topology), n_(n), vendorSteps_(vendorSteps), parts_(parts) {
  // Each island's shard starts ascend: merge them rather than sort (plans for thousands
  // of ranks are built many times over by the cost model), and drop repeats after every
  // island, so that thousands of islands of a few sizes (one per node) cost islands x the
  // distinct boundaries, not islands x ranks.
  boundaries_ = {0, n};
  for (int island = 0; island < topology.islandCount(); ++island) {
    const size_t middle = boundaries_.size();
    const IslandShards shards = shardsOf(island);
    for (int k = 0; k < topology.islandSize(island); ++k) boundaries_.push_back(shards.begin(k));
    std::inplace_merge(boundaries_.begin(), boundaries_.begin() + middle, boundaries_.end());
    boundaries_.erase(std::unique(boundaries_.begin(), boundaries_.end()), boundaries_.end());
  }
  // Where each shard's first segment starts, by one walk over the boundaries per island:
  // every shard start (and n) is a boundary.
  shardFirstSegment_.resize(topology.islandCount());
  for (int island = 0; island < topology.islandCount(); ++island) {
    const int g = topology.islandSize(island);
    const IslandShards shards = shardsOf(island);
    size_t segment = 0;
    shardFirstSegment_[island].reserve(g + 1);
    for (int k = 0; k <= g; ++k) {
      const size_t begin = shards.begin(k);
      while (boundaries_[segment] < begin) ++segment;
      shardFirstSegment_[island].push_back(static_cast<int>(segment));
    }
  }
}

}  // namespace hetccl
