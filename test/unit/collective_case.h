// One collective as a test case for the thread-per-rank harness: which plan, on which islands
// and links, cut how; and running it on a rank (buffers laid out as the API lays them out,
// in place or not), then checking the rank's output against the direct computation and its
// input, when out of place, against what it was.
#pragma once

#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "base/element.h"
#include "collective_reference.h"
#include "thread_ranks.h"

namespace hetccl {

struct CollectiveCase {
  Algorithm algorithm = Algorithm::Ring;
  CollectiveShape shape;
  std::vector<int> islandIds;       // per rank; its size is the rank count
  std::vector<bool> islandLibrary;  // per island: its island steps go to island collectives
  bool vendorIslandSteps = true;    // PlanRequest's: false keeps hetccl's own island algorithms
  int islandSlices = 1;             // PlanRequest's (algorithms/island_slices.h)
  bool inPlace = false;
  ElementType type = ElementType::Int32;
  size_t chunkElements = 1 << 20;
  int pipelineDepth = 4;
  LinkStack links;

  TopologyView topology() const;
  std::string describe() const;  // everything needed to run it again
};

// Runs the case on the rank of `context` (every rank of the job calls it): ok, or where the
// output first differs from the direct computation.  `tagBase` as Executor::run takes it.
Status runCollectiveOnRank(const CollectiveCase& c, const TopologyView& topology, int tagBase, RankContext& context);

// Runs the case on a job of its own.
Status runCollectiveCase(const CollectiveCase& c);

}  // namespace hetccl
