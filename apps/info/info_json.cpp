#include "common/json_document.h"
#include "info/info_format.h"

namespace hetccl_info {

namespace {

using hetccl_apps::Json;

// "intra-island" -> "intra_island": keys a script can use as identifiers.
std::string jsonKey(const std::string& name) {
  std::string key = name;
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

// Link figures are the cost model's estimates: six significant digits say all they know.
double estimate(double value) { return hetccl_apps::significant(value, 6); }

Json rankJson(const RankInfo& r) {
  return Json{
      {"rank", r.rank},
      {"world_rank", r.worldRank},
      {"host", r.host},
      {"node", r.node},
      {"vendor", r.vendor},
      {"emulated", r.emulated},
      {"device", r.device},
      {"pci_bus", hetccl_apps::stringOrNull(r.pciBus)},
      {"numa_node", r.numaNode < 0 ? Json(nullptr) : Json(r.numaNode)},
      {"nics", r.nics},
      {"island", r.island},
      {"island_name", r.islandName},
      {"grid", r.onGrid ? Json{{"row", r.gridRow}, {"column", r.gridColumn}} : Json(nullptr)},
      {"gpu_aware_mpi", r.gpuAwareMpi},
  };
}

Json islandJson(const IslandInfo& island) {
  return Json{{"index", island.index},
              {"name", island.name},
              {"ranks", island.ranks},
              {"vendor_library", island.vendorLibrary}};
}

// The transport per link class (null where no two ranks are linked that way).
Json transportJson(const InfoReport& report) {
  Json transport = Json::object();
  for (const LinkClassInfo& link : report.links)
    transport[jsonKey(link.name)] = link.present ? Json(link.transport) : Json(nullptr);
  return transport;
}

Json linkParametersJson(const InfoReport& report) {
  Json parameters{{"source", report.linkSource}};
  for (const LinkClassInfo& link : report.links)
    parameters[jsonKey(link.name)] =
        Json{{"latency_us", estimate(link.latencyUs)}, {"bandwidth_gbps", estimate(link.bandwidthGBps)}};
  parameters["reduce_gbps"] = estimate(report.reduceGBps);
  parameters["copy_gbps"] = estimate(report.copyGBps);
  parameters["step_overhead_us"] = estimate(report.stepOverheadUs);
  parameters["island_uplink_gbps"] =
      report.islandUplinkGBps > 0 ? Json(estimate(report.islandUplinkGBps)) : Json(nullptr);
  parameters["ranks_per_hardware_thread"] = estimate(report.ranksPerHardwareThread);
  return parameters;
}

Json buildJson(const BuildFeatures& b) {
  return Json{{"hetccl_version", b.hetcclVersion},
              {"cuda_backend", b.cudaBackend},
              {"hip_backend", b.hipBackend},
              {"hwloc_api_version", b.hwlocApiVersion},
              {"hwloc_runtime_api_version", b.hwlocRuntimeApiVersion},
              {"mpi_version", b.mpiStandardVersion},
              {"mpi_library_version", b.mpiLibraryVersion}};
}

Json settingsJson(const EffectiveSettings& s) {
  Json variables = Json::object();
  for (const SettingInfo& v : s.variables) variables[v.name] = Json{{"value", v.value}, {"source", v.source}};
  return Json{{"chunk_bytes", s.chunkBytes},
              {"chunk_bytes_tuned", s.chunkTuned},
              {"pipeline_depth", s.pipelineDepth},
              {"algorithm", s.algorithm},
              {"device", s.device},
              {"island_scope", s.islandScope},
              {"debug_level", s.debugLevel},
              {"staging", s.staging},
              {"staging_slots", s.stagingSlots},
              {"progress", s.progress},
              {"inline_bytes", s.inlineBytes},
              {"gpu_aware_mpi", s.gpuAwareMpiOverride},
              {"max_message_bytes", s.maxMessageBytes},
              {"variables", variables}};
}

}  // namespace

std::string formatJson(const InfoReport& report) {
  Json ranks = Json::array();
  for (const RankInfo& r : report.ranks) ranks.push_back(rankJson(r));
  Json islands = Json::array();
  for (const IslandInfo& island : report.islands) islands.push_back(islandJson(island));
  const Json document{
      {"tool", "hetccl-info"},
      {"hetccl_version", report.build.hetcclVersion},
      {"nranks", report.nranks},
      {"ranks", ranks},
      {"islands", islands},
      {"island_scope", report.settings.islandScope},
      {"layout", report.layout},
      {"grid", report.hasGrid ? Json{{"rows", report.gridRows}, {"columns", report.gridColumns}} : Json(nullptr)},
      {"transport", transportJson(report)},
      {"link_parameters", linkParametersJson(report)},
      {"build", buildJson(report.build)},
      {"settings", settingsJson(report.settings)},
  };
  return hetccl_apps::formatJson(document);
}

}  // namespace hetccl_info
