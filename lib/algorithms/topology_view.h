// What the plan builders know of a job: which island each rank belongs to.  An island is a
// group of ranks of one vendor that the vendor's library can join; islands may have any
// sizes and their ranks may be interleaved in rank order.  Pure data (no MPI), so that the
// verifier, the cost model and hetccl-sim can build plans for any imagined cluster.
#pragma once

#include <string>
#include <vector>

namespace hetccl {

struct TopologyView {
  int nranks = 1;
  std::vector<int> islandOf;              // rank -> island index
  std::vector<int> indexInIsland;         // rank -> position among its island's ranks
  std::vector<std::vector<int>> members;  // island -> its ranks, ascending
  // island -> its vendor library runs the island's collective steps (NCCL, RCCL); empty
  // means none does.  Such an island cuts buffers the vendor's way (see islandShards).
  std::vector<bool> islandLibrary;

  int islandCount() const { return static_cast<int>(members.size()); }
  int islandSize(int island) const { return static_cast<int>(members[island].size()); }
  bool equalIslands() const;
  bool hasIslandLibrary(int island) const {
    return island < static_cast<int>(islandLibrary.size()) && islandLibrary[island];
  }
  // "2+2", "3+1 interleaved", ... for logs and test names.
  std::string describe() const;

  // Islands numbered by first appearance in rank order.
  static TopologyView fromIslandIds(const std::vector<int>& islandIdOfRank);
  static TopologyView singleIsland(int nranks);
};

}  // namespace hetccl
