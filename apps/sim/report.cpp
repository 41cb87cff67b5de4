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
  out << "; layout " << layoutName(cluster.layout) << " (" << context.topology->describe() << ")\n";
  const hetccl::CostParameters& c = context.costs;
  out << "# cost model: intra-island " << describeLink(c.intraIsland) << ", inter-island "
      << describeLink(c.interIsland) << format(", reduce %.4g GB/s", 1 / c.gamma / 1e9)
      << format(", copy %.4g GB/s, step overhead %.3g us\n", 1 / c.copyBeta / 1e9, c.stepOverhead * 1e6);
  out << "# " << hetccl::collectiveName(context.options->collective) << ", " << context.options->typeName
      << ", algorithm " << (context.tuning.forced ? hetccl::algorithmName(*context.tuning.forced) : "auto")
      << ", chunk " << chunkSetting(context.tuning) << ", depth " << context.tuning.pipelineDepth
      << "; time in us, busbw in GB/s\n";
  // Algorithm names over their two columns; "-" where the algorithm cannot run.
  out << "#" << std::string(23, ' ');
  for (hetccl::Algorithm algorithm : hetccl::allAlgorithms()) {
    char text[32];
    std::snprintf(text, sizeof text, " %17s", hetccl::algorithmName(algorithm));
    out << text;
  }
  out << "  tuner's pick\n";
  out << "#     size(B)      count";
  for (size_t i = 0; i < hetccl::allAlgorithms().size(); ++i) out << "       time  busbw";
  out << "    pick  chunk       time  busbw\n";
  for (const SizePrediction& row : rows) {
    char text[64];
    std::snprintf(text, sizeof text, "%13zu %10zu", row.bytes, row.count);
    out << text;
    for (const AlgorithmPrediction& p : row.algorithms) {
      if (!p.applies)
        out << "          -      -";
      else
        out << format(" %10.1f %6.2f", p.choice.predictedSeconds * 1e6, p.busBandwidth / 1e9);
    }
    std::snprintf(text, sizeof text, "  %6s %6s", hetccl::algorithmName(row.pick.algorithm),
                  byteLabel(row.pick.chunkBytes).c_str());
    out << text << format(" %10.1f %6.2f\n", row.pick.predictedSeconds * 1e6, row.pickBusBandwidth / 1e9);
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
    for (const AlgorithmPrediction& p : row.algorithms)
      algorithms[hetccl::algorithmName(p.algorithm)] =
          p.applies ? predictionJson(p.choice, p.busBandwidth) : Json(nullptr);
    results.push_back(Json{{"size", row.bytes},
                           {"count", row.count},
                           {"algorithms", algorithms},
                           {"pick", predictionJson(row.pick, row.pickBusBandwidth)}});
  }
  const Json document{{"cluster", context.options->clusterPath},
                      {"ranks", context.topology->nranks},
                      {"layout", layoutName(cluster.layout)},
                      {"islands", islands},
                      {"cost_model", costModel},
                      {"collective", hetccl::collectiveName(context.options->collective)},
                      {"type", context.options->typeName},
                      {"pipeline_depth", context.tuning.pipelineDepth},
                      {"results", results}};
  out << hetccl_apps::formatJson(document);
}

}  // namespace hetccl_sim
