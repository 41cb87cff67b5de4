// Plans that treat every rank alike (no islands): the flat ring for the reducing and
// gathering collectives, a pipelined chain for broadcast and reduce, and a direct exchange
// for all-to-all.  They are the baseline every hierarchical algorithm is measured against.
// Rows "ring" and "native" (algorithm_list.h): native is the island's vendor library, and
// where islands have none (host islands, the tools) its plan is this one under its own name.
#pragma once

#include "algorithms/algorithm_writer.h"

namespace hetccl {

extern const AlgorithmWriter kRingWriter;
extern const AlgorithmWriter kNativeWriter;

// The flat plan for any collective (send/recv included: every rank sends its input to rank+1
// and receives from rank-1, as nccl-tests' sendrecv).
RankPlan buildFlatPlan(const PlanRequest& request, int rank);

}  // namespace hetccl
