#include "info/info_report.h"

#include <sstream>

#include "core/communicator.h"
#include "base/log.h"

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

// `transport` is the name the communicator gave the transport it built for the class
// ("mpi-direct", "mpi-staged", "+paced(...)" under emulated links), so the tool reports what
// was built rather than re-deriving it.
LinkClassInfo describeLinkClass(const char* name, bool present, const std::string& transport,
                                const LinkCost& cost) {
  LinkClassInfo link;
  link.name = name;
  link.present = present;
  link.transport = present ? transport : "";
  link.latencyUs = cost.alpha * 1e6;
  link.bandwidthGBps = cost.beta > 0 ? 1.0 / cost.beta / 1e9 : 0.0;
  return link;
}

const char* logLevelName(hetccl::LogLevel level) {
  switch (level) {
    case hetccl::LogLevel::None: return "NONE";
    case hetccl::LogLevel::Warn: return "WARN";
    case hetccl::LogLevel::Info: return "INFO";
    case hetccl::LogLevel::Trace: return "TRACE";
  }
  return "?";
}

EffectiveSettings describeSettings(const hetcclComm& comm) {
  EffectiveSettings s;
  s.chunkBytes = comm.settings.chunkBytes;
  s.chunkTuned = !comm.settings.chunkBytesSet;
  s.pipelineDepth = comm.settings.pipelineDepth;
  s.algorithm = comm.settings.algorithm;
  const std::string kind = hetccl::deviceKindName(comm.device->kind());
  const std::string description = comm.device->description();
  // Descriptions usually start with the kind ("host (2 hardware threads)"); say it once.
  s.device = description.rfind(kind, 0) == 0 ? description : kind + ": " + description;
  s.islandScope = comm.topology.scope;
  s.debugLevel = logLevelName(hetccl::logLevel());
  s.maxMessageBytes = comm.settings.maxMessageBytes;
  s.staging = comm.settings.staging;
  s.stagingSlots = comm.settings.stagingSlots;
  s.gpuAwareMpiOverride = comm.settings.gpuAwareMpi < 0 ? "detect"
                          : comm.settings.gpuAwareMpi == 1 ? "yes" : "no";
  return s;
}

}  // namespace

InfoReport collectInfo(const hetcclComm& comm, const BuildFeatures& build) {
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

  bool intraPresent = false;
  for (int island = 0; island < view.islandCount(); ++island)
    intraPresent |= view.islandSize(island) > 1;
  const hetccl::CostParameters& costs = comm.links.costs;
  const bool interPresent = view.islandCount() > 1;
  report.links.push_back(
      describeLinkClass("intra-island", intraPresent, comm.transportName[0], costs.intraIsland));
  report.links.push_back(
      describeLinkClass("inter-island", interPresent, comm.transportName[1], costs.interIsland));
  report.linkSource = comm.links.source;
  report.reduceGBps = costs.gamma > 0 ? 1.0 / costs.gamma / 1e9 : 0.0;
  report.copyGBps = costs.copyBeta > 0 ? 1.0 / costs.copyBeta / 1e9 : 0.0;
  report.stepOverheadUs = costs.stepOverhead * 1e6;

  report.build = build;
  report.settings = describeSettings(comm);
  return report;
}

}  // namespace hetccl_info
