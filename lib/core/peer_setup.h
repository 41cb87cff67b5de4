// What a communicator learns from its peers and builds with them at creation: the members'
// topology and islands, which islands hand their steps to a vendor library, the links' cost
// parameters, the tuner, and the transport stack.  Built once, collectively, by setUpPeers();
// read-only afterwards.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "algorithms/tuner.h"
#include "base/status.h"
#include "core/bootstrap.h"
#include "core/island_library.h"
#include "core/link_parameters.h"
#include "core/settings.h"
#include "core/topology.h"
#include "device/device.h"
#include "transport/transport.h"

namespace hetccl {

// Link classes as the transports and the cost model know them.
enum LinkClass : int { kIntraIsland = 0, kInterIsland = 1, kLinkClassCount = 2 };

struct PeerSetup {
  JobTopology topology;  // topology.view.islandLibrary set from the islands' decision
  LinkParameters links;
  Tuner tuner;
  std::unique_ptr<Transport> transport;
  std::vector<std::string> transportName;  // per LinkClass, for logs and tools
  // This rank's island communicator of its vendor library (NCCL, RCCL), or null.
  std::unique_ptr<IslandLibrary> islandLibrary;
};

// Collective over the members.  On failure nothing is left open.
Status setUpPeers(Bootstrap& members, const Settings& settings, Device& device, PeerSetup* setup);
// Closes what setUpPeers() built without waiting for any peer (the island's vendor communicator
// is aborted, not destroyed): for a creation that fails after setUpPeers() succeeded.
void abandon(PeerSetup& setup);

}  // namespace hetccl
