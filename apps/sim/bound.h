// A lower bound for an all-reduce on the islands the sim forms: no plan the cost model can
// price (cost_model.h), at any chunk size, pipeline depth or island slicing, is predicted to
// take less.  docs/SIM.md, "The bound", gives the argument.  For n bytes on p ranks in N
// islands of g_i ranks, with the model's island link (alpha_I, beta_I), network (alpha_X,
// beta_X, per rank), shared uplink (beta_U, if any), reduction cost gamma and step overhead o,
// every plan takes at least each of
//   links   o + alpha_min + max(2 (p - 1) n / R, n / r_min)
//           every rank sends (and receives) at least n, all ranks together 2 (p - 1) n, and a
//           rank may use its island link and its network link at once: r_x = 1/beta_I (if its
//           island has other ranks) + 1/beta_X (if there are other islands), R = sum of r_x
//   cross   o + alpha_X + beta_X max(n / g_min, 2 (N - 1) n / p)
//           every island sends (and receives) at least n across, all islands 2 (N - 1) n,
//           over its ranks' network links only
//   uplink  o + alpha_X + beta_U 2 (N - 1) / N n          (islands sharing an uplink)
//   reduce  o + (p - 1) / p n gamma / k
//           p - 1 reductions per element spread over all ranks; k = 2 where a vendor
//           library's island steps can be sliced, since the model runs them beside the
//           executor's own reductions, else 1
// and `total`, the bound, is the largest.  The terms are not added: the model lets links,
// network and reductions work at once.
//
// `phases` is what hetccl-sim printed as its bound before: island reduce-scatter and
// all-gather + cross-island exchange + reductions + 2 log2 rounds, added.  It is NOT a lower
// bound (pipelined and latency-optimal plans come in below it); the scale targets of
// docs/PERFORMANCE.md, "Scale", are set against it.
#pragma once

#include <cstddef>

#include "sim/cluster_description.h"

namespace hetccl_sim {

struct AllReduceBound {
  double links = 0, cross = 0, uplink = 0, reduce = 0;  // 0: the term does not apply
  double total = 0;                                     // the bound: the largest term
  double phases = 0;                                    // not a bound (see above)
};

AllReduceBound allReduceBound(const std::vector<FormedIsland>& islands, const hetccl::CostParameters& costs,
                              double bytes);

}  // namespace hetccl_sim
