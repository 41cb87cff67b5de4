// Everything hetccl-info reports, as plain data: gathered once from rank 0's communicator
// (whose topology already holds every rank's description, exchanged at creation), then
// printed as text or JSON by info_format.h.  Keeping the two formats on one structure keeps
// them saying the same thing.
#pragma once

#include <string>
#include <vector>

#include "info/build_features.h"

namespace hetccl {
struct CommunicatorDescription;
}

namespace hetccl_info {

struct RankInfo {
  int rank = 0;
  int worldRank = 0;
  std::string host;
  std::string node;    // the host, or the emulated node
  std::string vendor;  // real or emulated
  bool emulated = false;
  std::string device;
  std::string pciBus;             // "" when unknown
  int numaNode = -1;              // -1 when unknown
  std::vector<std::string> nics;  // network devices near the rank (hwloc)
  int island = 0;
  std::string islandName;
  bool onGrid = false;  // islands are equal: row = island, column = index in the island
  int gridRow = 0;
  int gridColumn = 0;
  bool gpuAwareMpi = false;
};

struct IslandInfo {
  int index = 0;
  std::string name;
  std::vector<int> ranks;
  bool vendorLibrary = false;  // its collective steps go to its vendor library (NCCL, RCCL)
};

// One class of links between ranks (within an island, across islands).
struct LinkClassInfo {
  std::string name;          // "intra-island", "inter-island"
  bool present = false;      // false: no two ranks of the job are linked this way
  std::string transport;     // "mpi-direct", "mpi-staged", "mpi-direct+paced(1 GB/s, 20 us)"
  double latencyUs = 0;      // the cost model's alpha
  double bandwidthGBps = 0;  // 1 / beta, 1 GB = 1e9 B
};

// One HETCCL_* variable of the settings table.
struct SettingInfo {
  std::string name;
  std::string value;   // what the communicator runs with; "" when unset without a default
  std::string source;  // "default", "environment" or "config"
};

struct EffectiveSettings {
  std::vector<SettingInfo> variables;  // every HETCCL_* variable, in the table's order
  size_t chunkBytes = 0;
  bool chunkTuned = false;  // true: the tuner picks the chunk size per operation
  int pipelineDepth = 0;
  std::string algorithm;
  std::string device;  // the kind ("host", "cuda", "hip") and the device's description
  std::string islandScope;
  std::string debugLevel;
  size_t maxMessageBytes = 0;
  std::string staging;  // host staging: "auto", "force", "off"
  int stagingSlots = 0;
  std::string progress;             // who runs operations, and why (HETCCL_PROGRESS, MPI's thread level)
  size_t inlineBytes = 0;           // collectives up to this size may run on the calling thread; 0: never
  std::string gpuAwareMpiOverride;  // "detect" (ask MPI), or HETCCL_GPU_AWARE_MPI's "yes"/"no"
};

struct InfoReport {
  int nranks = 0;
  std::vector<RankInfo> ranks;
  std::vector<IslandInfo> islands;
  std::string layout;  // "2+2", "3+1", "2+2 interleaved"
  bool hasGrid = false;
  int gridRows = 0;
  int gridColumns = 0;
  std::vector<LinkClassInfo> links;  // intra-island, then inter-island
  std::string linkSource;            // "emulation", "measured", "defaults"
  double reduceGBps = 0;             // the cost model's 1 / gamma
  double copyGBps = 0;
  double stepOverheadUs = 0;
  double islandUplinkGBps = 0;        // an uplink the islands' cross traffic shares; 0: none
  double ranksPerHardwareThread = 1;  // on the busiest host; > 1: oversubscribed
  BuildFeatures build;
  EffectiveSettings settings;
};

InfoReport collectInfo(const hetccl::CommunicatorDescription& comm, const BuildFeatures& build);

}  // namespace hetccl_info
