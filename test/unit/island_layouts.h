// Island layouts the plan tests share: the small ones every test runs for each rank count, and
// the regular ones of many islands used for spot checks at hundreds of ranks.
#pragma once

#include <vector>

#include "algorithms/topology_view.h"

namespace hetccl {

// Island ids of `p` ranks: one island, halves, interleaved, three ways, one rank apart at the
// end, and 5+2+1 at 8 ranks.
std::vector<std::vector<int>> islandLayoutsFor(int p);

// `islands` islands of `size` ranks, node after node; the last one `tail` ranks when > 0.
TopologyView islandsOf(int islands, int size, int tail = 0);

}  // namespace hetccl
