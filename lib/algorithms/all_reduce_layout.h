// The buffer of a hierarchical all-reduce as its plans see it (hierarchical_plans.h): each
// island cuts [0, n) into one shard per member; the union of all islands' shard boundaries
// cuts it into segments, each inside exactly one shard of every island (so each segment has
// one owner per island); each segment is cut into parts, the "atoms" every region of the plan
// is made of.  Regions are always whole atoms, so the executor's chunk m of a region written
// in one step is chunk m of the region read in a later one (chunking.h).
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "algorithms/plan.h"

namespace hetccl {

// How an island cuts [0, n) into one shard per member.  hetccl's own ring gives the first
// n % g members one element more; a vendor library's reduce-scatter takes equal blocks of
// q = n / g, so there the last member's shard also holds the n % g elements left over (the
// island's vendor steps reduce and broadcast those separately).
struct IslandShards {
  size_t n;
  int g;
  bool vendor;
  size_t begin(int k) const {
    if (!vendor) return blockBegin(n, g, k);
    return k == g ? n : static_cast<size_t>(k) * (n / g);
  }
  size_t count(int k) const { return begin(k + 1) - begin(k); }
  int indexOf(size_t element) const {
    if (!vendor) return blockIndexOf(n, g, element);
    const size_t q = n / g;
    return q == 0 ? g - 1 : static_cast<int>(std::min<size_t>(element / q, static_cast<size_t>(g - 1)));
  }
  size_t largest() const { return vendor ? count(g - 1) : count(0); }
};

// Whether `island`'s collective steps go to its vendor library (one-rank islands need none).
inline bool usesVendorSteps(const TopologyView& topology, bool allowed, int island) {
  return allowed && topology.hasIslandLibrary(island) && topology.islandSize(island) > 1;
}

// The buffer [0, n) as the all-reduce sees it: shards per island, segments, atoms.
class AllReduceLayout {
 public:
  // `vendorSteps`: islands with a library cut the vendor's way (PlanRequest::vendorIslandSteps);
  // `parts`: how many parts each segment is cut into (the cross-island method's choice).
  AllReduceLayout(const TopologyView& topology, size_t n, bool vendorSteps, int parts);
  int islands() const { return topology_.islandCount(); }
  int parts() const { return parts_; }
  // Segments inside shard `k` of `island`, as the index range [first, last).
  std::pair<int, int> segmentRangeOfShard(int island, int k) const {
    const std::vector<int>& firstSegments = shardFirstSegment_[islandCut_[island]];
    return {firstSegments[k], firstSegments[k + 1]};
  }
  std::vector<int> segmentsOfShard(int island, int k) const {
    auto [first, last] = segmentRangeOfShard(island, k);
    std::vector<int> result;
    for (int i = first; i < last; ++i) result.push_back(i);
    return result;
  }
  size_t segmentLength(int segment) const { return boundaries_[segment + 1] - boundaries_[segment]; }
  // Part t of segment i (each segment is cut into parts() parts).
  Region atom(int buffer, int segment, int part) const {
    const size_t length = segmentLength(segment);
    return Region{buffer, boundaries_[segment] + blockBegin(length, parts_, part), blockCount(length, parts_, part)};
  }
  // Calls visit(part, howMany) for one part of each size among parts [firstPart, endPart) of
  // `segment`: parts differ by at most one element (the first length % parts() are larger),
  // so a range of thousands of parts costs as two (ShapeWriter::addParts).
  template <typename Visit>
  void forEachPartSize(int segment, int firstPart, int endPart, Visit visit) const {
    const int larger = static_cast<int>(segmentLength(segment) % static_cast<size_t>(parts_));
    const int largerEnd = std::min(endPart, larger), smallerFirst = std::max(firstPart, larger);
    if (firstPart < largerEnd) visit(firstPart, static_cast<size_t>(largerEnd - firstPart));
    if (smallerFirst < endPart) visit(smallerFirst, static_cast<size_t>(endPart - smallerFirst));
  }
  // Calls visit(region) for each atom of shard `k` of `island`, in buffer order.
  template <typename Visit>
  void forEachAtomOfShard(int buffer, int island, int k, Visit visit) const {
    auto [first, last] = segmentRangeOfShard(island, k);
    for (int segment = first; segment < last; ++segment)
      for (int part = 0; part < parts_; ++part) visit(atom(buffer, segment, part));
  }
  // The rank of `island` whose shard holds `segment`.
  int owner(int island, int segment) const {
    int k = cuts_[islandCut_[island]].indexOf(boundaries_[segment]);
    return topology_.members[island][k];
  }
  size_t shardBegin(int island, int k) const { return cuts_[islandCut_[island]].begin(k); }
  size_t largestShard() const {
    size_t largest = 0;
    for (const IslandShards& cut : cuts_) largest = std::max(largest, cut.largest());
    return largest;
  }

 private:
  IslandShards shardsOf(int island) const {
    return IslandShards{n_, topology_.islandSize(island), usesVendorSteps(topology_, vendorSteps_, island)};
  }

  const TopologyView& topology_;
  size_t n_;
  bool vendorSteps_;
  int parts_;
  // Islands of one size and kind cut the buffer alike: a job of 12,288 islands (one per node)
  // has a cut or two, and the layout is built for every size the cost model prices.
  std::vector<IslandShards> cuts_;  // the distinct cuts
  std::vector<int> islandCut_;      // island -> its cut in cuts_
  std::vector<size_t> boundaries_;
  std::vector<std::vector<int>> shardFirstSegment_;  // cut -> shard k (0..g) -> segment
};

}  // namespace hetccl
