// Plans that know the islands: cross-island traffic is the slow part of a mixed-vendor job,
// so these move as little as possible across islands and keep the rest inside them.
//
// All-reduce (hierarchical ring and 2D torus): each island reduce-scatters the buffer into
// one shard per member; the union of every island's shard boundaries cuts the buffer into
// segments that lie inside exactly one shard of every island, so each segment has exactly one
// owner per island; the owners all-reduce their segment across islands (all segments at
// once), and each island all-gathers its shards.  The hierarchical ring does the cross-island
// all-reduce by direct exchange (two rounds, any islands, but N - 1 messages each); the torus
// by a ring along the column of equal islands (2(N-1) rounds); hier-rhd by recursive
// halving/doubling, hier-tree by a binomial tree and hier-dbtree by a double binary tree
// (log2 N rounds, for thousands of islands: log_depth_cross_island.h).  Every element is
// reduced on exactly one rank and then copied, so all ranks hold identical bits.
//
// Regions are always whole "atoms" (a segment's part), so the executor's chunk m of a region
// written in one phase is chunk m of the region read in the next.
//
// An island with a vendor library (TopologyView::islandLibrary) does its reduce-scatter and
// all-gather as island-collective steps instead of a ring: equal shards of n/g elements, the
// n mod g left over added to the last member's shard and reduced onto / broadcast from it.
// The segments and owners follow each island's own cut, so any mix of islands with and
// without a library works.  The hierarchical broadcast hands its island chain to the library
// the same way (one broadcast from the island's leader once the leaders' chain has passed).
#pragma once

#include "algorithms/algorithm_writer.h"

namespace hetccl {

// Rows "hier" (all-reduce by direct exchange; all-gather: every block crosses to one member
// of each other island, then islands all-gather; reduce-scatter: islands reduce-scatter, then
// each block's island partials cross once to the block's rank; broadcast: a chain over island
// leaders feeding a chain in each island), "torus", "hier-rhd", "hier-tree", "hier-dbtree".
extern const AlgorithmWriter kHierWriter;
extern const AlgorithmWriter kTorusWriter;
extern const AlgorithmWriter kHierRhdWriter;
extern const AlgorithmWriter kHierTreeWriter;
extern const AlgorithmWriter kHierDbtreeWriter;

}  // namespace hetccl
