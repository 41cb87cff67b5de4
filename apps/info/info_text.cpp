#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <utility>
#include "common/text_format.h"

#include "info/info_format.h"
#include "info/text_table.h"

namespace hetccl_info {

namespace {

using hetccl_apps::format;

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string joinRanks(const std::vector<int>& ranks) {
  std::vector<std::string> items;
  for (int r : ranks) items.push_back(std::to_string(r));
  return join(items, ",");
}

std::string orDash(const std::string& text) { return text.empty() ? "-" : text; }
std::string yesNo(bool flag) { return flag ? "yes" : "no"; }

std::string keyValues(const std::vector<std::pair<std::string, std::string>>& entries) {
  size_t width = 0;
  for (const auto& e : entries) width = std::max(width, e.first.size());
  std::string text;
  for (const auto& e : entries) text += "  " + e.first + std::string(width - e.first.size() + 2, ' ') + e.second + "\n";
  return text;
}

std::string ranksSection(const InfoReport& report) {
  TextTable table(
      {"rank", "host", "node", "vendor", "device", "pci-bus", "numa", "nics", "island", "grid", "gpu-aware-mpi"});
  bool anyEmulated = false;
  for (const RankInfo& r : report.ranks) {
    anyEmulated |= r.emulated;
    table.addRow({std::to_string(r.rank), r.host, r.node, r.vendor + (r.emulated ? "*" : ""), r.device,
                  orDash(r.pciBus), r.numaNode < 0 ? "-" : std::to_string(r.numaNode),
                  r.nics.empty() ? "-" : join(r.nics, ","), std::to_string(r.island) + " " + r.islandName,
                  r.onGrid ? format("%d,%d", r.gridRow, r.gridColumn) : "-", yesNo(r.gpuAwareMpi)});
  }
  std::string text = "Ranks\n" + table.render("  ");
  if (anyEmulated) text += "  * emulated vendor or node (HETCCL_EMULATE_VENDORS, HETCCL_EMULATE_NODES)\n";
  return text;
}

std::string islandsSection(const InfoReport& report) {
  TextTable table({"island", "name", "size", "ranks", "inside the island"});
  for (const IslandInfo& island : report.islands)
    table.addRow({std::to_string(island.index), island.name, std::to_string(island.ranks.size()),
                  joinRanks(island.ranks), island.vendorLibrary ? "vendor library" : "hetccl"});
  std::string text = "Islands (scope: " + report.settings.islandScope + ")\n" + table.render("  ");
  if (report.hasGrid)
    text += format("  grid: %d x %d (row = island, column = index in island)\n", report.gridRows, report.gridColumns);
  else
    text += "  grid: none (islands of unequal size: " + report.layout + ")\n";
  return text;
}

std::string linksSection(const InfoReport& report) {
  TextTable transports({"link class", "transport"});
  TextTable parameters({"link class", "latency", "bandwidth"});
  for (const LinkClassInfo& link : report.links) {
    transports.addRow({link.name, link.present ? link.transport : "- (no such link in this job)"});
    parameters.addRow({link.name, format("%g us", link.latencyUs), format("%g GB/s", link.bandwidthGBps)});
  }
  return "Transport\n" + transports.render("  ") + "\nLink parameters (source: " + report.linkSource + ")\n" +
         parameters.render("  ") +
         format("  reduction %g GB/s, local copy %g GB/s, step overhead %g us\n", report.reduceGBps, report.copyGBps,
                report.stepOverheadUs) +
         (report.islandUplinkGBps > 0
              ? format("  an island's cross-island traffic shares an uplink of %g GB/s\n", report.islandUplinkGBps)
              : std::string()) +
         (report.ranksPerHardwareThread > 1
              ? format(
                    "  %g ranks per hardware thread on one host: the defaults' latency includes a scheduler hand-off\n",
                    report.ranksPerHardwareThread)
              : std::string());
}

std::string buildSection(const BuildFeatures& b) {
  return "Build\n" + keyValues({
                         {"hetccl", b.hetcclVersion},
                         {"CUDA backend", yesNo(b.cudaBackend)},
                         {"HIP backend", yesNo(b.hipBackend)},
                         {"hwloc API", b.hwlocApiVersion + " (runtime " + b.hwlocRuntimeApiVersion + ")"},
                         {"MPI", "MPI " + b.mpiStandardVersion + ", " + b.mpiLibraryVersion},
                     });
}

// Every variable of the settings table with its value and where it came from, after what
// the settings chose that no single variable shows.
std::string settingsSection(const EffectiveSettings& s) {
  TextTable variables({"variable", "value", "source"});
  for (const SettingInfo& v : s.variables) variables.addRow({v.name, orDash(v.value), v.source});
  return "Settings\n" +
         keyValues({
             {"device", s.device},
             {"staging slots", std::to_string(s.stagingSlots)},
             {"operations run by", s.progress},
             {"inline up to", s.inlineBytes ? std::to_string(s.inlineBytes) + " B" : "- (never)"},
         }) +
         variables.render("  ");
}

}  // namespace

std::string formatText(const InfoReport& report) {
  std::string text =
      format("hetccl-info: hetccl %s, %d ranks in %zu islands (%s)\n\n", report.build.hetcclVersion.c_str(),
             report.nranks, report.islands.size(), report.layout.c_str());
  text += ranksSection(report) + "\n";
  text += islandsSection(report) + "\n";
  text += linksSection(report) + "\n";
  text += buildSection(report.build) + "\n";
  text += settingsSection(report.settings);
  return text;
}

}  // namespace hetccl_info
