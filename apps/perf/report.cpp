#include "perf/report.h"

#include "common/json_document.h"
#include "common/text_format.h"
#include "perf/collective_shape.h"
#include "perf/table_text.h"

namespace hetccl_perf {

namespace {

using hetccl_apps::format;
using hetccl_apps::Json;

// nccl-tests' measurement group (time, algbw, busbw, #wrong), once out of place and once in
// place; the MPI baseline's group after the algorithm columns.
constexpr const char* kMeasurementColumns = "  %7s  %6s  %6s  %5s";
// The names line gives "#wrong" one more character, as nccl-tests' header does.
constexpr const char* kMeasurementNames = "  %7s  %6s  %6s %6s";
constexpr const char* kBaselineColumns = "  %7s  %6s  %6s";
// --model: predicted time and measured/predicted, after the algorithm columns.
constexpr const char* kModelColumns = "  %7s  %10s";
constexpr int kModelWidth = 21;
// --accumulate: the largest rounding error, last (so every other column stays where it was).
constexpr const char* kErrorColumn = "  %7s";
constexpr int kMeasurementWidth = 32;
constexpr int kBaselineWidth = 25;

std::string measurementColumns(const Measurement& m) {
  return format(kMeasurementColumns, formatTime(m.timeUs).c_str(), format("%6.2f", m.algbw).c_str(),
                format("%6.2f", m.busbw).c_str(), formatWrong(m.wrong).c_str());
}

Json measurementJson(const Measurement& m) {
  return Json{{"time_us", measured(m.timeUs)},
              {"algbw", measured(m.algbw)},
              {"busbw", measured(m.busbw)},
              {"wrong", m.wrong < 0 ? Json(nullptr) : Json(m.wrong)}};
}

std::string joinTypes(const std::vector<DataType>& types) {
  std::string s;
  for (DataType t : types) s += (s.empty() ? "" : " ") + std::string(dataTypeName(t));
  return s;
}

std::string joinOps(const std::vector<RedOp>& ops) {
  std::string s;
  for (RedOp op : ops) s += (s.empty() ? "" : " ") + std::string(redOpName(op));
  return s;
}

std::string joinWords(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// The footer's mean per --algo entry, so algorithms run side by side get one number each;
// entries in the order they first appear (the --algo order).
std::vector<AlgorithmAverage> averagesByAlgorithm(const std::vector<ResultRow>& rows) {
  std::vector<AlgorithmAverage> averages;
  std::vector<size_t> measurements;  // per entry: out-of-place plus in-place values summed
  for (const ResultRow& r : rows) {
    if (r.requestedAlgorithm.empty()) continue;
    size_t i = 0;
    while (i < averages.size() && averages[i].requestedAlgorithm != r.requestedAlgorithm) ++i;
    if (i == averages.size()) {
      averages.push_back({r.requestedAlgorithm, 0.0});
      measurements.push_back(0);
    }
    averages[i].avgBusBandwidth += r.outOfPlace.busbw + (r.hasOverlap ? 0.0 : r.inPlace.busbw);
    measurements[i] += r.hasOverlap ? 1 : 2;
  }
  for (size_t i = 0; i < averages.size(); ++i) averages[i].avgBusBandwidth /= static_cast<double>(measurements[i]);
  return averages;
}

// One line, and one that does not start "# Avg bus bandwidth": scripts grep for that prefix
// and expect a single match.
std::string footerByAlgorithm(const Footer& f) {
  if (f.byAlgorithm.empty()) return "";
  std::string line = "#  avg busbw by --algo :";
  for (const AlgorithmAverage& a : f.byAlgorithm)
    line += format(" %s %g", a.requestedAlgorithm.c_str(), a.avgBusBandwidth);
  return line + "\n";
}

}  // namespace

double ratioVersusModel(const ResultRow& row) {
  if (row.predictedUs <= 0 || row.outOfPlace.timeUs <= 0) return 0;
  return row.outOfPlace.timeUs / row.predictedUs;
}

double ratioVersusMpi(const ResultRow& row) {
  if (!row.baseline.measured || row.baseline.busbw <= 0) return 0;
  return row.outOfPlace.busbw / row.baseline.busbw;
}

std::string formatHeader(const ReportSettings& s) {
  const PerfOptions& o = s.options;
  std::string h;
  h += format("# hetccl-perf: %s, nranks %d, hetccl %s\n", collectiveName(o.collective), s.nranks,
              s.libraryVersion.c_str());
  std::string step = o.stepBytes > 0 ? format("%zu(bytes)", o.stepBytes) : format("%zu(factor)", o.stepFactor);
  h += format("#  minBytes %zu maxBytes %zu step: %s warmup iters: %d iters: %d validation: %d\n", o.minBytes,
              o.maxBytes, step.c_str(), o.warmupIters, o.iters, o.check ? 1 : 0);
  h += "#  types: " + joinTypes(o.types);
  if (collectiveReduces(o.collective)) h += "  ops: " + joinOps(o.ops);
  if (collectiveHasRoot(o.collective)) h += format("  root: %d", o.root);
  h += "\n";
  if (o.overlap) {
    h += overlapLegend(o, s.progressNote);
  } else {
    h += format(
        "#  time: mean per iteration (us), maximum over ranks; algbw = size / time "
        "(1 GB = 1e9 B); busbw = algbw x %s\n",
        busBandwidthFormula(o.collective));
  }
  h += "#  algo: the algorithm the library ran (out of place)";
  if (withRequestColumn(o)) h += "; request: the --algo entry, one communicator each: " + joinWords(o.algorithms);
  h += "\n";
  if (o.model)
    h += "#  model: the cost model's predicted time of the plan that ran (out of place); "
         "meas/model = measured time / predicted\n";
  if (!o.accumulate.empty())
    h += "#  accumulate=" + o.accumulate +
         "; maxulp: the largest error of any element on any rank against the exact sum (or average), in "
         "units in the last place of the type (half/bfloat16 sum and avg only; N/A elsewhere)\n";
  if (o.mpiBaseline)
    h += "#  MPI baseline: the matching MPI collective on host buffers of the same size, out of "
         "place; avg runs as MPI_SUM; half and bfloat16 use the app's own MPI_Ops\n";
  h += "#\n";
  for (const std::string& line : s.rankLines) h += "#  " + line + "\n";
  if (!s.rankLines.empty()) h += "#\n";

  if (o.overlap) return h + overlapColumnHeader(o);
  std::string groups = "#" + std::string(kKeyWidth - 1, ' ') + centered("out-of-place", kMeasurementWidth) +
                       centered("in-place", kMeasurementWidth);
  const int algorithmWidth = kAlgorithmWidth + (withRequestColumn(o) ? kRequestWidth : 0);
  groups += std::string(static_cast<size_t>(algorithmWidth), ' ');
  if (o.model) groups += std::string(static_cast<size_t>(kModelWidth), ' ');
  if (o.mpiBaseline) groups += centered("MPI (out-of-place)", kBaselineWidth);
  h += rstrip(groups) + "\n";

  std::string names = keyColumnNames() + format(kMeasurementNames, "time", "algbw", "busbw", "#wrong") +
                      format(kMeasurementNames, "time", "algbw", "busbw", "#wrong") +
                      algorithmColumns(o, "request", "algo");
  if (o.model) names += format(kModelColumns, "model", "meas/model");
  if (o.mpiBaseline) names += format(kBaselineColumns, "time", "busbw", "vsMPI");
  if (!o.accumulate.empty()) names += format(kErrorColumn, "maxulp");
  h += names + "\n";

  std::string units = keyColumnUnits() + format(kMeasurementColumns, "(us)", "(GB/s)", "(GB/s)", "") +
                      format(kMeasurementColumns, "(us)", "(GB/s)", "(GB/s)", "") + algorithmColumns(o, "", "");
  if (o.model) units += format(kModelColumns, "(us)", "");
  if (o.mpiBaseline) units += format(kBaselineColumns, "(us)", "(GB/s)", "");
  h += rstrip(units) + "\n";
  return h;
}

std::string formatRow(const ResultRow& row, const PerfOptions& options) {
  std::string line =
      format(kKeyColumns, format("%zu", row.bytes).c_str(), format("%zu", row.count).c_str(), dataTypeName(row.type),
             row.hasOp ? redOpName(row.op) : "none", row.hasRoot ? format("%d", row.root).c_str() : "none");
  if (row.hasOverlap) {
    line += overlapColumns(row.overlap);
  } else {
    line += measurementColumns(row.outOfPlace);
    line += measurementColumns(row.inPlace);
  }
  line += algorithmColumns(options, row.requestedAlgorithm.empty() ? "-" : row.requestedAlgorithm,
                           row.algorithm.empty() ? "-" : row.algorithm);
  if (options.model) {
    const double ratio = ratioVersusModel(row);
    line += format(kModelColumns, row.predictedUs > 0 ? formatTime(row.predictedUs).c_str() : "N/A",
                   ratio > 0 ? format("%10.2f", ratio).c_str() : "N/A");
  }
  if (options.mpiBaseline) {
    if (row.baseline.measured) {
      const double ratio = ratioVersusMpi(row);
      line += format(kBaselineColumns, formatTime(row.baseline.timeUs).c_str(),
                     format("%6.2f", row.baseline.busbw).c_str(), ratio > 0 ? format("%6.2f", ratio).c_str() : "N/A");
    } else {
      line += format(kBaselineColumns, "N/A", "N/A", "N/A");
    }
  }
  if (!options.accumulate.empty())
    line += format(kErrorColumn, row.maxUlpError >= 0 ? format("%7.2f", row.maxUlpError).c_str() : "N/A");
  return line + "\n";
}

Footer summarize(const std::vector<ResultRow>& rows) {
  Footer f;
  double sum = 0;
  size_t measurements = 0;
  for (const ResultRow& r : rows) {
    if (r.outOfPlace.wrong > 0) f.wrongTotal += r.outOfPlace.wrong;
    sum += r.outOfPlace.busbw;
    ++measurements;
    if (r.hasOverlap) continue;  // an overlap row has no in-place measurement
    if (r.inPlace.wrong > 0) f.wrongTotal += r.inPlace.wrong;
    sum += r.inPlace.busbw;
    ++measurements;
  }
  f.avgBusBandwidth = measurements == 0 ? 0.0 : sum / static_cast<double>(measurements);
  f.byAlgorithm = averagesByAlgorithm(rows);
  return f;
}

std::string formatFooter(const Footer& f) {
  return format("# Out of bounds values : %lld %s\n", static_cast<long long>(f.wrongTotal),
                f.wrongTotal == 0 ? "OK" : "FAILED") +
         format("# Avg bus bandwidth    : %g\n", f.avgBusBandwidth) + footerByAlgorithm(f) + "#\n";
}

std::string formatJson(const ReportSettings& s, const std::vector<ResultRow>& rows, const Footer& footer) {
  const PerfOptions& o = s.options;
  Json types = Json::array();
  for (DataType t : o.types) types.push_back(dataTypeName(t));
  Json ops = Json::array();
  if (collectiveReduces(o.collective))
    for (RedOp op : o.ops) ops.push_back(redOpName(op));
  Json settings{
      {"min_bytes", o.minBytes},
      {"max_bytes", o.maxBytes},
      {"step_factor", o.stepFactor},
      {"step_bytes", o.stepBytes},
      {"iters", o.iters},
      {"warmup_iters", o.warmupIters},
      {"check", o.check},
      {"datatypes", types},
      {"ops", ops},
      {"root", collectiveHasRoot(o.collective) ? Json(o.root) : Json(nullptr)},
      {"bus_factor", measured(busBandwidthFactor(o.collective, s.nranks))},
      {"baseline", o.mpiBaseline ? Json("mpi") : Json(nullptr)},
      {"algorithms", o.algorithms.empty() ? Json(nullptr) : Json(o.algorithms)},
  };
  if (o.model) settings["model"] = true;
  if (!o.accumulate.empty()) settings["accumulate"] = o.accumulate;
  // Only with --overlap, so the plain table's document stays as it was.
  if (o.overlap) settings["overlap"] = true;

  Json rowsJson = Json::array();
  for (const ResultRow& r : rows) {
    Json row{
        {"collective", collectiveName(r.collective)},
        {"size", r.bytes},
        {"count", r.count},
        {"type", dataTypeName(r.type)},
        {"redop", r.hasOp ? redOpName(r.op) : "none"},
        {"root", r.hasRoot ? Json(r.root) : Json(nullptr)},
        {"out_of_place", measurementJson(r.outOfPlace)},
        {"in_place", r.hasOverlap ? Json(nullptr) : measurementJson(r.inPlace)},
        {"algorithm", hetccl_apps::stringOrNull(r.algorithm)},
        {"requested_algorithm", hetccl_apps::stringOrNull(r.requestedAlgorithm)},
    };
    if (o.mpiBaseline) {
      Json baseline = nullptr;
      if (r.baseline.measured) {
        const double ratio = ratioVersusMpi(r);
        baseline = Json{{"library", "mpi"},
                        {"time_us", measured(r.baseline.timeUs)},
                        {"busbw", measured(r.baseline.busbw)},
                        {"vs_mpi", ratio > 0 ? Json(measured(ratio)) : Json(nullptr)}};
      }
      row["baseline"] = baseline;
    }
    if (o.model) {
      const double ratio = ratioVersusModel(r);
      row["model"] = r.predictedUs > 0
                         ? Json{{"predicted_us", measured(r.predictedUs)},
                                {"measured_over_predicted", ratio > 0 ? Json(measured(ratio)) : Json(nullptr)}}
                         : Json(nullptr);
    }
    if (!o.accumulate.empty())
      row["max_ulp_error"] = r.maxUlpError >= 0 ? Json(measured(r.maxUlpError)) : Json(nullptr);
    if (r.hasOverlap) row["overlap"] = overlapJson(r.overlap);
    rowsJson.push_back(row);
  }

  Json document{
      {"tool", "hetccl-perf"},
      {"hetccl_version", s.libraryVersion},
      {"collective", collectiveName(o.collective)},
      {"nranks", s.nranks},
      {"settings", settings},
      {"rows", rowsJson},
      {"out_of_bounds_values", footer.wrongTotal},
      {"out_of_bounds_ok", footer.wrongTotal == 0},
      {"avg_bus_bandwidth", measured(footer.avgBusBandwidth)},
  };
  if (!footer.byAlgorithm.empty()) {
    Json averages = Json::object();
    for (const AlgorithmAverage& a : footer.byAlgorithm) averages[a.requestedAlgorithm] = measured(a.avgBusBandwidth);
    document["avg_bus_bandwidth_by_algorithm"] = averages;
  }
  return hetccl_apps::formatJson(document);
}

}  // namespace hetccl_perf
