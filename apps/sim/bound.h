// A lower bound for an all-reduce on the islands the sim forms, so that each algorithm's
// prediction can be read as "how far from the best possible".  The alpha-beta(-gamma) bound
// of a schedule that reduces inside islands, across them, and inside them again
// (docs/SIM.md derives it):
//   island   max over islands of 2 (g - 1) / g * n * beta_island    (reduce-scatter + all-gather)
//   cross    2 (N - 1) / N * (n / g_min) * beta_network             (N islands; each island's
//            g ranks must send and receive (N - 1) / N of the buffer across the network)
//   reduce   (p - 1) / p * n * gamma                                 (p - 1 reductions per element,
//            spread over p ranks at best)
//   latency  2 ceil(log2 g_max) (alpha_island + o) + 2 ceil(log2 N) (alpha_network + o)
//            (o: the executor's overhead per step; the rounds of a log-depth reduce-scatter
//            and all-gather)
// `total` adds the phases (not overlapped); `overlapped` takes the largest of the three
// bandwidth terms plus the latency, which a plan that pipelines its island and network
// phases chunk by chunk could approach.
#pragma once

#include <cstddef>

#include "sim/cluster_description.h"

namespace hetccl_sim {

struct AllReduceBound {
  double island = 0, cross = 0, reduce = 0, latency = 0;
  double total = 0, overlapped = 0;
};

AllReduceBound allReduceBound(const std::vector<FormedIsland>& islands, const hetccl::CostParameters& costs,
                              double bytes);

}  // namespace hetccl_sim
