// A read-only description of a communicator, for hetccl's own tools (hetccl-info): what it
// found (every rank's descriptor, the islands and their vendor libraries), what it built
// (the transport per link class, the link parameters and their source) and the settings it
// runs with.  A copy: the tools never hold or read the communicator's own fields, so the
// communicator's insides can change without them.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "core/link_parameters.h"
#include "core/settings.h"
#include "core/topology.h"
#include "hetccl/hetccl.h"

namespace hetccl {

struct LinkClassDescription {
  std::string name;       // "intra-island", "inter-island"
  bool present = false;   // some pair of ranks of the communicator is linked by this class
  std::string transport;  // "mpi-direct", "mpi-staged+paced(...)", ...
  LinkCost cost;          // the cost model's parameters for the class
};

struct CommunicatorDescription {
  int rank = 0;
  int nranks = 1;
  std::string deviceKind;
  std::string deviceDescription;
  JobTopology topology;
  std::vector<LinkClassDescription> links;
  std::string linkSource;  // "emulation", "measured", "defaults"
  double ranksPerHardwareThread = 1;
  CostParameters costs;
  std::string islandLibrary;  // this rank's island's vendor library, or "none"
  std::string progress;       // who runs operations and why: "progress thread (MPI_THREAD_MULTIPLE)", ...
  size_t inlineBytes = 0;     // collectives up to this size may run inline; 0: never
  Settings settings;
};

// Invalid argument for a null or destroyed communicator.
Status describeCommunicator(hetcclComm_t comm, CommunicatorDescription* description);

}  // namespace hetccl
