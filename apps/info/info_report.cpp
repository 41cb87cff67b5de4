#include "info/info_report.h"

#include <sstream>

#include "base/log.h"
#include "core/communicator_description.h"

namespace hetccl_info {

namespace {

using hetccl::JobTopology;
using hetccl::LinkCost;

std::vector<std::string> splitNics(const std::string& text) {
  std::vector<std::string> nics;
  std::stringstream stream(text);
  std::string nic;
  while (std::getline(stream, nic, ','))
    if (!nic.empty() && nic != "-") nics.push_back(nic);
  return nics;
}

RankInfo describeRank(const JobTopology& topology, int rank) {
  const hetccl::RankDescriptor& d = topology.ranks[static_cast<size_t>(rank)];
  RankInfo r;
  r.rank = rank;
  r.worldRank = d.worldRank;
  r.host = d.host;
  r.node = d.node;
  r.vendor = d.vendor;
  r.emulated = d.emulated != 0;
  r.device = d.device;
  r.pciBus = std::string(d.pciBus) == "-" ? "" : d.pciBus;
  r.numaNode = d.numaNode;
  r.nics = splitNics(d.nics);
  r.island = topology.view.islandOf[static_cast<size_t>(rank)];
  r.islandName = topology.islandNames[static_cast<size_t>(r.island)];
  r.onGrid = topology.hasGrid();
  r.gridRow = r.island;
  r.gridColumn = topology.view.indexInIsland[static_cast<size_t>(rank)];
  r.gpuAwareMpi = d.gpuAwareMpi != 0;
  return r;
}

// The transport is the name the communicator gave what it built for the class ("mpi-direct",
// "mpi-staged", "+paced(...)" under emulated links), so the tool reports what was built
// rather than re-deriving it.
LinkClassInfo describeLinkClass(const hetccl::LinkClassDescription& description) {
  LinkClassInfo link;
  link.name = description.name;
  link.present = description.present;
  link.transport = description.present ? description.transport : "";
  link.latencyUs = description.cost.alpha * 1e6;
  link.bandwidthGBps = description.cost.beta > 0 ? 1.0 / description.cost.beta / 1e9 : 0.0;
  return link;
}

// Every HETCCL_* variable from the settings table, with what the communicator runs with and
// where it came from; then the summary the sections above use.
EffectiveSettings describeSettings(const hetccl::CommunicatorDescription& comm) {
  EffectiveSettings s;
  for (const hetccl::EffectiveSetting& setting : hetccl::effectiveSettings(comm.settings))
    s.variables.push_back({setting.name, setting.value, hetccl::settingSourceName(setting.source)});
  s.chunkBytes = comm.settings.chunkBytes;
  s.chunkTuned = !comm.settings.chunkBytesSet();
  s.pipelineDepth = comm.settings.pipelineDepth;
  s.algorithm = hetccl::algorithmSettingName(comm.settings);
  const std::string& kind = comm.deviceKind;
  const std::string& description = comm.deviceDescription;
  // Descriptions usually start with the kind ("host (2 hardware threads)"); say it once.
  s.device = description.rfind(kind, 0) == 0 ? description : kind + ": " + description;
  s.islandScope = hetccl::choiceName(hetccl::SettingId::IslandScope, comm.topology.scope);
  s.debugLevel = hetccl::choiceName(hetccl::SettingId::Debug, hetccl::logLevel());
  s.maxMessageBytes = comm.settings.maxMessageBytes;
  s.staging = hetccl::choiceName(hetccl::SettingId::Staging, comm.settings.staging);
  s.stagingSlots = comm.settings.stagingSlots;
  s.progress = comm.progress;
  s.inlineBytes = comm.inlineBytes;
  using hetccl::GpuAwareMpiOverride;
  s.gpuAwareMpiOverride = comm.settings.gpuAwareMpi == GpuAwareMpiOverride::Detect ? "detect"
                          : comm.settings.gpuAwareMpi == GpuAwareMpiOverride::Yes  ? "yes"
                                                                                   : "no";
  return s;
}

}  // namespace

InfoReport collectInfo(const hetccl::CommunicatorDescription& comm, const BuildFeatures& build) {
  const JobTopology& topology = comm.topology;
  const hetccl::TopologyView& view = topology.view;
  InfoReport report;
  report.nranks = comm.nranks;
  for (int rank = 0; rank < comm.nranks; ++rank) report.ranks.push_back(describeRank(topology, rank));
  for (int island = 0; island < view.islandCount(); ++island) {
    const size_t i = static_cast<size_t>(island);
    report.islands.push_back({island, topology.islandNames[i], view.members[i], view.hasIslandLibrary(island)});
  }
  report.layout = view.describe();
  report.hasGrid = topology.hasGrid();
  report.gridRows = view.islandCount();
  report.gridColumns = view.islandCount() > 0 ? view.islandSize(0) : 0;

  const hetccl::CostParameters& costs = comm.costs;
  for (const hetccl::LinkClassDescription& link : comm.links) report.links.push_back(describeLinkClass(link));
  report.linkSource = comm.linkSource;
  report.ranksPerHardwareThread = comm.ranksPerHardwareThread;
  report.reduceGBps = costs.gamma > 0 ? 1.0 / costs.gamma / 1e9 : 0.0;
  report.copyGBps = costs.copyBeta > 0 ? 1.0 / costs.copyBeta / 1e9 : 0.0;
  report.stepOverheadUs = costs.stepOverhead * 1e6;
  report.islandUplinkGBps = costs.islandUplinkBeta > 0 ? 1.0 / costs.islandUplinkBeta / 1e9 : 0.0;

  report.build = build;
  report.settings = describeSettings(comm);
  return report;
}

}  // namespace hetccl_info
