// Where the cost model's link parameters come from, in order of precedence:
//   emulation   HETCCL_EMULATE_LINKS (the pacing the transport applies);
//   measured    HETCCL_LINK_PROBE=1: ping-pongs and concurrent streams at init (link_probe.h;
//               rank 0's figures, broadcast, so all ranks agree);
//   defaults    per link type (same node or across nodes).
// The log says which.
#pragma once

#include <string>

#include "algorithms/cost_model.h"
#include "core/emulation.h"
#include "core/topology.h"

namespace hetccl {

struct LinkParameters {
  CostParameters costs;
  std::string source;  // "emulation", "measured", "defaults"
  // The most ranks per hardware thread on any host (1: none oversubscribed); the default
  // links' latencies include the scheduler hand-off this costs (link_parameters.cpp).
  double ranksPerHardwareThread = 1;
};

// Seconds added to the default links' latency per rank beyond one per hardware thread on the
// busiest host.  Such a host's ranks are not all on a core when a message lands for them: the
// hand-off waits for the scheduler.  Fitted to chain broadcasts of 256 KiB-4 MiB chunks on 4
// ranks of a 2-thread host (docs/PERFORMANCE.md, "Ranks that outnumber the cores"), where a
// chunk's hand-off cost about 60 us beside its bytes.
constexpr double kOversubscribedHandOff = 50e-6;

// The most ranks per hardware thread on any host of `topology` (1 where none is oversubscribed
// or no host's thread count is known); `busiestHost` names that host.  Counts the
// communicator's members: ranks of the job outside it that share the host are not seen.
double ranksPerHardwareThread(const JobTopology& topology, std::string* busiestHost);

// Collective over the members (topology.h brings the bootstrap in).
Status chooseLinkParameters(Bootstrap& members, const JobTopology& topology, const EmulatedLinks& emulated,
                            LinkParameters* parameters);

}  // namespace hetccl
