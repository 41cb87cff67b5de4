#include "sim/report.h"

#include <cstdio>

namespace hetccl_sim {

namespace {

template <typename... Numbers>
std::string format(const char* fmt, Numbers... numbers) {
  char text[160];
  std::snprintf(text, sizeof text, fmt, numbers...);
  return text;
}

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

// A JSON string literal (paths and names may hold quotes or backslashes).
std::string jsonString(const std::string& text) {
  std::string quoted = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", ch);
      quoted += escape;
    } else {
      quoted += ch;
    }
  }
  return quoted + "\"";
}

std::string layoutName(RankLayout layout) { return layout == RankLayout::Contiguous ? "contiguous" : "interleaved"; }

// {"algorithm": ..., "chunk": ..., "time_us": ..., "busbw_gbps": ...}
std::string predictionJson(const hetccl::TuningChoice& choice, double busBandwidth) {
  return format("{\"algorithm\": \"%s\", \"chunk\": %zu, \"time_us\": %.6g, \"busbw_gbps\": %.6g}",
                hetccl::algorithmName(choice.algorithm), choice.chunkBytes, choice.predictedSeconds * 1e6,
                busBandwidth / 1e9);
}

std::string chunkSetting(const hetccl::Settings& settings) {
  return settings.chunkBytesSet ? byteLabel(settings.chunkBytes) : "tuner's choice";
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
      << ", algorithm " << context.settings.algorithm << ", chunk " << chunkSetting(context.settings) << ", depth "
      << context.settings.pipelineDepth << "; time in us, busbw in GB/s\n";
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
      if (!p.applies) out << "          -      -";
      else out << format(" %10.1f %6.2f", p.choice.predictedSeconds * 1e6, p.busBandwidth / 1e9);
    }
    std::snprintf(text, sizeof text, "  %6s %6s", hetccl::algorithmName(row.pick.algorithm),
                  byteLabel(row.pick.chunkBytes).c_str());
    out << text << format(" %10.1f %6.2f\n", row.pick.predictedSeconds * 1e6, row.pickBusBandwidth / 1e9);
  }
}

void printJson(std::ostream& out, const ReportContext& context, const std::vector<SizePrediction>& rows) {
  const ClusterDescription& cluster = *context.cluster;
  const hetccl::CostParameters& c = context.costs;
  out << "{\n  \"cluster\": " << jsonString(context.options->clusterPath) << ",\n";
  out << "  \"ranks\": " << context.topology->nranks << ",\n";
  out << "  \"layout\": \"" << layoutName(cluster.layout) << "\",\n";
  out << "  \"islands\": [";
  for (size_t i = 0; i < cluster.islands.size(); ++i) {
    const IslandDescription& island = cluster.islands[i];
    out << (i ? ", " : "") << "{\"name\": " << jsonString(island.name) << ", \"nodes\": " << island.nodes
        << ", \"ranks_per_node\": " << island.ranksPerNode << ", \"library\": " << jsonString(island.library) << "}";
  }
  out << "],\n";
  out << "  \"cost_model\": {"
      << format("\"intra_gbps\": %.6g, \"intra_us\": %.6g, ", 1 / c.intraIsland.beta / 1e9, c.intraIsland.alpha * 1e6)
      << format("\"inter_gbps\": %.6g, \"inter_us\": %.6g, ", 1 / c.interIsland.beta / 1e9, c.interIsland.alpha * 1e6)
      << format("\"reduce_gbps\": %.6g, \"copy_gbps\": %.6g, ", 1 / c.gamma / 1e9, 1 / c.copyBeta / 1e9)
      << format("\"step_overhead_us\": %.6g},\n", c.stepOverhead * 1e6);
  out << "  \"collective\": \"" << hetccl::collectiveName(context.options->collective) << "\",\n";
  out << "  \"type\": \"" << context.options->typeName << "\",\n";
  out << "  \"pipeline_depth\": " << context.settings.pipelineDepth << ",\n";
  out << "  \"results\": [\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    const SizePrediction& row = rows[r];
    out << "    {\"size\": " << row.bytes << ", \"count\": " << row.count << ", \"algorithms\": {";
    for (size_t i = 0; i < row.algorithms.size(); ++i) {
      const AlgorithmPrediction& p = row.algorithms[i];
      out << (i ? ", " : "") << "\"" << hetccl::algorithmName(p.algorithm) << "\": ";
      if (p.applies) out << predictionJson(p.choice, p.busBandwidth);
      else out << "null";
    }
    out << "}, \"pick\": " << predictionJson(row.pick, row.pickBusBandwidth) << "}" << (r + 1 < rows.size() ? "," : "")
        << "\n";
  }
  out << "  ]\n}\n";
}

}  // namespace hetccl_sim
