#include "sim/report.h"

#include <cstdio>

#include "common/json_document.h"
#include "common/text_format.h"

namespace hetccl_sim {

namespace {

using hetccl_apps::format;

// "512K", "2M": chunk sizes are powers of two in practice.
std::string byteLabel(size_t bytes) {
  const char* suffixes[] = {"", "K", "M", "G"};
  int unit = 0;
  while (unit < 3 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + suffixes[unit];
}

std::string layoutName(RankLayout layout) { return layout == RankLayout::Contiguous ? "contiguous" : "interleaved"; }

// Predictions carry six significant digits, as the table's columns do at most.
double predicted(double value) { return hetccl_apps::significant(value, 6); }

hetccl_apps::Json predictionJson(const hetccl::TuningChoice& choice, double busBandwidth) {
  return hetccl_apps::Json{{"algorithm", hetccl::algorithmName(choice.algorithm)},
                           {"chunk", choice.chunkBytes},
                           {"time_us", predicted(choice.predictedSeconds * 1e6)},
                           {"busbw_gbps", predicted(busBandwidth / 1e9)}};
}

// " 1.23": the prediction over the row's bound, "-" where there is none.
std::string boundRatio(const SizePrediction& row, double seconds) {
  return row.hasBound ? format(" %5.2f", seconds / row.bound.total) : std::string("     -");
}

hetccl_apps::Json boundJson(const AllReduceBound& bound) {
  return hetccl_apps::Json{{"total_us", predicted(bound.total * 1e6)},   {"links_us", predicted(bound.links * 1e6)},
                           {"cross_us", predicted(bound.cross * 1e6)},   {"uplink_us", predicted(bound.uplink * 1e6)},
                           {"reduce_us", predicted(bound.reduce * 1e6)}, {"phases_us", predicted(bound.phases * 1e6)}};
}

hetccl_apps::Json breakdownJson(const hetccl::CostBreakdown& b) {
  return hetccl_apps::Json{{"time_us", predicted(b.total * 1e6)},
                           {"island_steps_us", predicted(b.islandSteps * 1e6)},
                           {"island_slices", b.islandSlices},
                           {"pipelines", b.pipelines},
                           {"depth", b.depth},
                           {"latency_us", predicted(b.latency * 1e6)},
                           {"latency_in_islands_us", predicted(b.latencyInIsland * 1e6)},
                           {"latency_across_us", predicted(b.latencyAcross * 1e6)},
                           {"busiest_us", predicted(b.busiest * 1e6)},
                           {"last_busiest_us", predicted(b.lastBusiest * 1e6)},
                           {"busiest_resource", b.busiestResource}};
}

std::string chunkSetting(const hetccl::TunerSettings& tuning) {
  return tuning.chunkBytesSet ? byteLabel(tuning.chunkBytes) : "tuner's choice";
}

}  // namespace

void printTable(std::ostream& out, const ReportContext& context, const std::vector<SizePrediction>& rows) {
  const ClusterDescription& cluster = *context.cluster;
  out << "# hetccl-sim " << context.options->clusterPath << "\n# " << context.topology->nranks << " ranks:";
  for (size_t i = 0; i < cluster.islands.size(); ++i) {
    const IslandDescription& island = cluster.islands[i];
    out << (i ? "," : "") << " " << island.name << " " << island.nodes << "x" << island.ranksPerNode << " (intra "
        << describeLink(island.intraNode) << (island.library != "none" ? ", library " + island.library : "") << ")";
  }
  const std::string formed = context.topology->islandCount() <= 16
                                 ? context.topology->describe()
                                 : std::to_string(context.topology->islandCount()) + " islands";
  out << "; layout " << layoutName(cluster.layout) << ", island scope " << islandScopeName(context.scope) << " ("
      << formed << ")\n";
  const hetccl::CostParameters& c = context.costs;
  out << "# cost model: intra-island " << describeLink(c.intraIsland) << ", inter-island "
      << describeLink(c.interIsland) << format(", reduce %.4g GB/s", 1 / c.gamma / 1e9)
      << format(", copy %.4g GB/s, step overhead %.3g us\n", 1 / c.copyBeta / 1e9, c.stepOverhead * 1e6);
  out << "# " << hetccl::collectiveName(context.options->collective) << ", " << context.options->typeName
      << (context.options->accumulate ? " accumulated in float32" : "") << ", algorithm "
      << (context.tuning.forced ? hetccl::algorithmName(*context.tuning.forced) : "auto") << ", chunk "
      << chunkSetting(context.tuning) << ", depth " << context.tuning.pipelineDepth
      << "; time in us, busbw in GB/s, xbnd: time / bound\n";
  out << "# bound: all-reduce lower bound, no plan of the cost model takes less (the largest of the links, "
         "cross-island, uplink and reduce floors; docs/SIM.md)\n";
  // Algorithm names over their two columns; "-" where the algorithm cannot run.
  out << "#" << std::string(23, ' ');
  for (hetccl::Algorithm algorithm : hetccl::allAlgorithms()) {
    char text[32];
    std::snprintf(text, sizeof text, " %23s", hetccl::algorithmName(algorithm));
    out << text;
  }
  out << "  tuner's pick\n";
  out << "#     size(B)      count";
  for (size_t i = 0; i < hetccl::allAlgorithms().size(); ++i) out << "       time  busbw  xbnd";
  out << "       pick  chunk       time  busbw       bound  xbnd\n";
  for (const SizePrediction& row : rows) {
    char text[64];
    std::snprintf(text, sizeof text, "%13zu %10zu", row.bytes, row.count);
    out << text;
    for (const AlgorithmPrediction& p : row.algorithms) {
      if (!p.applies)
        out << "          -      -     -";
      else
        out << format(" %10.1f %6.2f", p.choice.predictedSeconds * 1e6, p.busBandwidth / 1e9)
            << boundRatio(row, p.choice.predictedSeconds);
    }
    std::snprintf(text, sizeof text, "  %9s %6s", hetccl::algorithmName(row.pick.algorithm),
                  byteLabel(row.pick.chunkBytes).c_str());
    out << text << format(" %10.1f %6.2f", row.pick.predictedSeconds * 1e6, row.pickBusBandwidth / 1e9)
        << (row.hasBound ? format(" %11.1f", row.bound.total * 1e6) : std::string("           -"))
        << boundRatio(row, row.pick.predictedSeconds) << "\n";
  }
  if (context.options->explain) printExplanation(out, rows);
}

void printExplanation(std::ostream& out, const std::vector<SizePrediction>& rows) {
  out << "# explain: the pick's time = island steps + max(W, L + (M-2) B + B last): M pipelines, D in flight, L\n"
         "# one pipeline through every step (steps inside islands + steps crossing them), B the busiest resource,\n"
         "# B last the same for the last pipeline (what is left of a chunk), W the latest rank's wait for its\n"
         "# first step + ceil(M/D) x its steps (ceil(M/D) L if all work in all; the last round's L its own)\n";
  for (const SizePrediction& row : rows) {
    const hetccl::CostBreakdown& b = row.pickBreakdown;
    if (b.islandSlices > 1)
      out << format(
          "# %13zu %9s: %.1f us = %d island slices overlapped (island_slices.h), each inner one island "
          "reduce-scatter %.1f, all-gather %.1f and exchange %.1f = ",
          row.bytes, hetccl::algorithmName(row.pick.algorithm), b.total * 1e6, b.islandSlices, b.islandBefore * 1e6,
          b.islandAfter * 1e6, b.sliceExchange * 1e6);
    else
      out << format("# %13zu %9s: %.1f us = island steps %.1f + ", row.bytes, hetccl::algorithmName(row.pick.algorithm),
                    b.total * 1e6, b.islandSteps * 1e6);
    out << format(
        "max(W, L + %zu x B + B last); W %.1f (%zu/%d), L %.1f (in islands %.1f, across %.1f), B %.1f (%s), "
        "B last %.1f\n",
        b.pipelines > 1 ? b.pipelines - 2 : 0, b.slotBound * 1e6, b.pipelines, b.depth, b.latency * 1e6,
        b.latencyInIsland * 1e6, b.latencyAcross * 1e6, b.busiest * 1e6, b.busiestResource, b.lastBusiest * 1e6);
    if (row.hasBound)
      out << format(
          "# %13s bound: %.1f us = max(links %.1f, cross %.1f, uplink %.1f, reduce %.1f); phases %.1f (not a "
          "bound)\n",
          "", row.bound.total * 1e6, row.bound.links * 1e6, row.bound.cross * 1e6, row.bound.uplink * 1e6,
          row.bound.reduce * 1e6, row.bound.phases * 1e6);
  }
}

void printJson(std::ostream& out, const ReportContext& context, const std::vector<SizePrediction>& rows) {
  using hetccl_apps::Json;
  const ClusterDescription& cluster = *context.cluster;
  const hetccl::CostParameters& c = context.costs;
  Json islands = Json::array();
  for (const IslandDescription& island : cluster.islands)
    islands.push_back(Json{{"name", island.name},
                           {"nodes", island.nodes},
                           {"ranks_per_node", island.ranksPerNode},
                           {"library", island.library}});
  const Json costModel{
      {"intra_gbps", predicted(1 / c.intraIsland.beta / 1e9)}, {"intra_us", predicted(c.intraIsland.alpha * 1e6)},
      {"inter_gbps", predicted(1 / c.interIsland.beta / 1e9)}, {"inter_us", predicted(c.interIsland.alpha * 1e6)},
      {"reduce_gbps", predicted(1 / c.gamma / 1e9)},           {"copy_gbps", predicted(1 / c.copyBeta / 1e9)},
      {"step_overhead_us", predicted(c.stepOverhead * 1e6)}};
  Json results = Json::array();
  for (const SizePrediction& row : rows) {
    Json algorithms = Json::object();
    for (const AlgorithmPrediction& p : row.algorithms) {
      Json prediction = p.applies ? predictionJson(p.choice, p.busBandwidth) : Json(nullptr);
      if (p.applies && row.hasBound) prediction["bound_ratio"] = predicted(p.choice.predictedSeconds / row.bound.total);
      algorithms[hetccl::algorithmName(p.algorithm)] = prediction;
    }
    Json result{{"size", row.bytes},
                {"count", row.count},
                {"algorithms", algorithms},
                {"pick", predictionJson(row.pick, row.pickBusBandwidth)},
                {"bound", row.hasBound ? boundJson(row.bound) : Json(nullptr)}};
    if (context.options->explain) result["explain"] = breakdownJson(row.pickBreakdown);
    results.push_back(result);
  }
  const Json document{{"cluster", context.options->clusterPath},
                      {"ranks", context.topology->nranks},
                      {"layout", layoutName(cluster.layout)},
                      {"island_scope", islandScopeName(context.scope)},
                      {"formed_islands", context.topology->islandCount()},
                      {"islands", islands},
                      {"cost_model", costModel},
                      {"collective", hetccl::collectiveName(context.options->collective)},
                      {"type", context.options->typeName},
                      {"accumulate", context.options->accumulate ? "float32" : "native"},
                      {"pipeline_depth", context.tuning.pipelineDepth},
                      {"results", results}};
  out << hetccl_apps::formatJson(document);
}

}  // namespace hetccl_sim
