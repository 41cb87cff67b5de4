#include "core/topology.h"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "base/rank_list.h"
#include "base/setting_modes.h"
#include "base/settings_reader.h"

namespace hetccl {

namespace {

void copyText(char* destination, size_t size, const std::string& text) {
  std::strncpy(destination, text.c_str(), size - 1);
  destination[size - 1] = '\0';
}

// NUMA node of the cores this process is bound to (or runs on), and the network devices
// hwloc sees (InfiniBand HCAs first: those are what GPUDirect RDMA would use).
struct HwlocFacts {
  int numaNode = -1;  // -1: not found
  std::string nics = "-";
  int hardwareThreads = 0;  // PUs hwloc lists (the ones this process is allowed on)
};

HwlocFacts discoverWithHwloc() {
  HwlocFacts facts;
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return facts;
  hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return facts;
  }
  facts.hardwareThreads = std::max(0, hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU));
  hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topology, cpus, HWLOC_CPUBIND_PROCESS) != 0) hwloc_get_last_cpu_location(topology, cpus, 0);
  hwloc_obj_t numa = nullptr;
  while ((numa = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, numa)) != nullptr)
    if (hwloc_bitmap_intersects(numa->cpuset, cpus)) {
      facts.numaNode = static_cast<int>(numa->os_index);
      break;
    }
  hwloc_bitmap_free(cpus);
  std::string nics;
  for (hwloc_obj_t os = nullptr; (os = hwloc_get_next_osdev(topology, os)) != nullptr;) {
    if (os->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS && os->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK)
      continue;
    if (!nics.empty()) nics += ",";
    nics += os->name;
  }
  if (!nics.empty()) facts.nics = nics;
  hwloc_topology_destroy(topology);
  return facts;
}

// Discovered once per process, not at every communicator's creation: hwloc's I/O discovery
// reads every PCI device and the PCI name database (libpciaccess), which took seconds per
// creation under AddressSanitizer, and neither the devices nor the process's NUMA node change
// while it runs (a program that rebinds itself between creations keeps the first answer).
void describeWithHwloc(RankDescriptor* descriptor, bool realHost) {
  static const HwlocFacts facts = discoverWithHwloc();
  if (facts.numaNode >= 0) descriptor->numaNode = facts.numaNode;
  if (realHost) descriptor->hardwareThreads = facts.hardwareThreads;
  copyText(descriptor->nics, sizeof descriptor->nics, facts.nics);
}

}  // namespace

Status describeThisRank(Bootstrap& members, const std::string& deviceVendor, const std::string& deviceDescription,
                        RankDescriptor* descriptor) {
  *descriptor = RankDescriptor{};
  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  // Under a simulator (SimGrid's SMPI) every rank runs on this one host; the wire's name is
  // the simulated host the rank was placed on, which is what its links are.  Up to its first
  // dot, as `hostname -s`: a simulated platform names a rank's host NODE.gpuL
  // (apps/sim/smpi_platform.h), a real MPI may give a fully qualified name.
  NodeNameSource nodeNameSource = NodeNameSource::Host;
  HETCCL_TRY(readEnum(SettingId::NodeName, &nodeNameSource));
  std::string wireName = nodeNameSource == NodeNameSource::Mpi ? members.nodeName() : "";
  wireName = wireName.substr(0, wireName.find('.'));
  if (!wireName.empty()) copyText(host, sizeof host, wireName);
  copyText(descriptor->host, sizeof descriptor->host, host);
  copyText(descriptor->node, sizeof descriptor->node, host);
  copyText(descriptor->vendor, sizeof descriptor->vendor, deviceVendor);
  copyText(descriptor->device, sizeof descriptor->device, deviceDescription);
  copyText(descriptor->pciBus, sizeof descriptor->pciBus, "-");
  descriptor->worldRank = members.jobRank();
  const int worldSize = members.jobSize();
  descriptor->gpuAwareMpi = members.wireReadsDeviceMemory(deviceVendor) ? 1 : 0;
  describeWithHwloc(descriptor, wireName.empty());
  // Emulated vendors and nodes replace what was found (by world rank).
  if (const std::string vendors = readText(SettingId::EmulateVendors); !vendors.empty()) {
    std::vector<std::string> names;
    HETCCL_TRY(expandRankList(vendors, worldSize, "HETCCL_EMULATE_VENDORS", &names));
    copyText(descriptor->vendor, sizeof descriptor->vendor, names[descriptor->worldRank]);
    descriptor->emulated = 1;
  }
  if (const std::string nodes = readText(SettingId::EmulateNodes); !nodes.empty()) {
    std::vector<std::string> names;
    HETCCL_TRY(expandRankList(nodes, worldSize, "HETCCL_EMULATE_NODES", &names));
    copyText(descriptor->node, sizeof descriptor->node, names[descriptor->worldRank]);
    descriptor->emulated = 1;
  }
  return Status::ok();
}

Status discoverTopology(Bootstrap& members, const RankDescriptor& mine, JobTopology* topology) {
  topology->ranks.resize(static_cast<size_t>(members.size()));
  HETCCL_TRY(members.allGather(&mine, sizeof(RankDescriptor), topology->ranks.data()));
  HETCCL_TRY(readEnum(SettingId::IslandScope, &topology->scope));
  std::map<std::string, int> islandIdOfKey;
  std::vector<int> islandIds;
  for (const RankDescriptor& rank : topology->ranks) {
    std::string key =
        std::string(rank.vendor) + (topology->scope == IslandScope::Node ? std::string("@") + rank.node : "");
    auto [it, inserted] = islandIdOfKey.emplace(key, static_cast<int>(islandIdOfKey.size()));
    if (inserted) topology->islandNames.push_back(key);
    islandIds.push_back(it->second);
  }
  topology->view = TopologyView::fromIslandIds(islandIds);
  return Status::ok();
}

}  // namespace hetccl
