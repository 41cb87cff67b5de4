// What a communicator learns and builds from the other ranks at creation: the job's topology
// and islands, which islands hand their steps to a vendor library, the links' cost
// parameters, the tuner, and the transport stack.  Built once, collectively, by connect();
// read-only afterwards.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "algorithms/tuner.h"
#include "base/status.h"
#include "core/island_library.h"
#include "core/link_parameters.h"
#include "core/settings.h"
#include "core/topology.h"
#include "device/device.h"
#include "transport/transport.h"

namespace hetccl {

// Link classes as the transports and the cost model know them.
enum LinkClass : int { kIntraIsland = 0, kInterIsland = 1, kLinkClassCount = 2 };

struct Connection {
  JobTopology topology;  // topology.view.islandLibrary set from the islands' decision
  LinkParameters links;
  Tuner tuner;
  std::unique_ptr<Transport> transport;
  std::vector<std::string> transportName;  // per LinkClass, for logs and tools
  // This rank's island communicator of its vendor library (NCCL, RCCL), or null.
  std::unique_ptr<IslandLibrary> islandLibrary;
};

// Collective over `comm` (the communicator's private duplicate).  On failure nothing is left
// open.
Status connect(MPI_Comm comm, const Settings& settings, Device& device, Connection* connection);
// Closes what connect() built without waiting for any peer (the island's vendor communicator
// is aborted, not destroyed): for a creation that fails after connect() succeeded.
void abandon(Connection& connection);

}  // namespace hetccl
