#include "info/info_format.h"
#include "info/json_writer.h"

namespace hetccl_info {

namespace {

// "intra-island" -> "intra_island": keys a script can use as identifiers.
std::string jsonKey(const std::string& name) {
  std::string key = name;
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

void writeRank(JsonWriter& j, const RankInfo& r) {
  j.beginObject();
  j.key("rank").value(r.rank);
  j.key("world_rank").value(r.worldRank);
  j.key("host").value(r.host);
  j.key("node").value(r.node);
  j.key("vendor").value(r.vendor);
  j.key("emulated").value(r.emulated);
  j.key("device").value(r.device);
  j.key("pci_bus");
  if (r.pciBus.empty()) j.null(); else j.value(r.pciBus);
  j.key("numa_node");
  if (r.numaNode < 0) j.null(); else j.value(r.numaNode);
  j.key("nics").beginArray();
  for (const std::string& nic : r.nics) j.value(nic);
  j.endArray();
  j.key("island").value(r.island);
  j.key("island_name").value(r.islandName);
  j.key("grid");
  if (r.onGrid) {
    j.beginObject().key("row").value(r.gridRow).key("column").value(r.gridColumn).endObject();
  } else {
    j.null();
  }
  j.key("gpu_aware_mpi").value(r.gpuAwareMpi);
  j.endObject();
}

void writeLinks(JsonWriter& j, const InfoReport& report) {
  j.key("transport").beginObject();
  for (const LinkClassInfo& link : report.links) {
    j.key(jsonKey(link.name));
    if (link.present) j.value(link.transport); else j.null();
  }
  j.endObject();
  j.key("link_parameters").beginObject();
  j.key("source").value(report.linkSource);
  for (const LinkClassInfo& link : report.links) {
    j.key(jsonKey(link.name)).beginObject();
    j.key("latency_us").value(link.latencyUs);
    j.key("bandwidth_gbps").value(link.bandwidthGBps);
    j.endObject();
  }
  j.key("reduce_gbps").value(report.reduceGBps);
  j.key("copy_gbps").value(report.copyGBps);
  j.key("step_overhead_us").value(report.stepOverheadUs);
  j.endObject();
}

void writeBuild(JsonWriter& j, const BuildFeatures& b) {
  j.key("build").beginObject();
  j.key("hetccl_version").value(b.hetcclVersion);
  j.key("cuda_backend").value(b.cudaBackend);
  j.key("hip_backend").value(b.hipBackend);
  j.key("hwloc_api_version").value(b.hwlocApiVersion);
  j.key("hwloc_runtime_api_version").value(b.hwlocRuntimeApiVersion);
  j.key("mpi_version").value(b.mpiStandardVersion);
  j.key("mpi_library_version").value(b.mpiLibraryVersion);
  j.endObject();
}

void writeSettings(JsonWriter& j, const EffectiveSettings& s) {
  j.key("settings").beginObject();
  j.key("chunk_bytes").value(s.chunkBytes);
  j.key("chunk_bytes_tuned").value(s.chunkTuned);
  j.key("pipeline_depth").value(s.pipelineDepth);
  j.key("algorithm").value(s.algorithm);
  j.key("device").value(s.device);
  j.key("island_scope").value(s.islandScope);
  j.key("debug_level").value(s.debugLevel);
  j.key("staging").value(s.staging);
  j.key("staging_slots").value(s.stagingSlots);
  j.key("gpu_aware_mpi").value(s.gpuAwareMpiOverride);
  j.key("max_message_bytes").value(s.maxMessageBytes);
  j.key("variables").beginObject();
  for (const SettingInfo& v : s.variables)
    j.key(v.name).beginObject().key("value").value(v.value).key("source").value(v.source).endObject();
  j.endObject();
  j.endObject();
}

}  // namespace

std::string formatJson(const InfoReport& report) {
  JsonWriter j;
  j.beginObject();
  j.key("tool").value("hetccl-info");
  j.key("hetccl_version").value(report.build.hetcclVersion);
  j.key("nranks").value(report.nranks);
  j.key("ranks").beginArray();
  for (const RankInfo& r : report.ranks) writeRank(j, r);
  j.endArray();
  j.key("islands").beginArray();
  for (const IslandInfo& island : report.islands) {
    j.beginObject().key("index").value(island.index).key("name").value(island.name);
    j.key("ranks").beginArray();
    for (int r : island.ranks) j.value(r);
    j.endArray().key("vendor_library").value(island.vendorLibrary).endObject();
  }
  j.endArray();
  j.key("island_scope").value(report.settings.islandScope);
  j.key("layout").value(report.layout);
  j.key("grid");
  if (report.hasGrid)
    j.beginObject()
        .key("rows").value(report.gridRows)
        .key("columns").value(report.gridColumns)
        .endObject();
  else
    j.null();
  writeLinks(j, report);
  writeBuild(j, report.build);
  writeSettings(j, report.settings);
  j.endObject();
  return j.str();
}

}  // namespace hetccl_info
