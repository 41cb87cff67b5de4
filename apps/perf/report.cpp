#include "perf/report.h"

#include <algorithm>
#include <cmath>

#include "common/json_document.h"
#include "common/text_format.h"
#include "perf/collective_shape.h"

namespace hetccl_perf {

namespace {

using hetccl_apps::format;

// Column widths of nccl-tests' table; the header lines use the same formats as the rows so
// they stay aligned by construction.
constexpr const char* kKeyColumns = "%12s  %12s  %8s  %6s  %6s";
constexpr const char* kMeasurementColumns = "  %7s  %6s  %6s  %5s";
// The names line gives "#wrong" one more character, as nccl-tests' header does.
constexpr const char* kMeasurementNames = "  %7s  %6s  %6s %6s";
constexpr const char* kBaselineColumns = "  %7s  %6s  %6s";
// "request" (the --algo entry, only with --algo) and "algo" (what ran): "native" is the
// longest name.
constexpr const char* kRequestColumn = "  %7s";
constexpr const char* kAlgorithmColumn = "  %6s";
constexpr int kKeyWidth = 52;
constexpr int kMeasurementWidth = 32;
constexpr int kBaselineWidth = 25;
constexpr int kRequestWidth = 9;
constexpr int kAlgorithmWidth = 8;
// --overlap's columns instead of the out-of-place and in-place groups: coll(a) host(b)
// both(c) call(r) in us, overlap and r/a in %, #wrong.
constexpr const char* kOverlapColumns = "  %7s  %7s  %7s  %7s  %7s  %6s  %6s";
constexpr int kOverlapWidth = 62;

std::string centered(const std::string& text, int width) {
  int left = (width - static_cast<int>(text.size())) / 2;
  if (left < 0) left = 0;
  std::string s(static_cast<size_t>(left), ' ');
  s += text;
  if (static_cast<int>(s.size()) < width) s.append(static_cast<size_t>(width) - s.size(), ' ');
  return s;
}

std::string rstrip(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Fewer decimals as times grow, so the column keeps its width (as nccl-tests does).
std::string formatTime(double us) {
  if (us >= 10000.0) return format("%7.0f", us);
  if (us >= 100.0) return format("%7.1f", us);
  return format("%7.2f", us);
}

std::string formatWrong(int64_t wrong) { return wrong < 0 ? "N/A" : format("%lld", static_cast<long long>(wrong)); }

std::string measurementColumns(const Measurement& m) {
  return format(kMeasurementColumns, formatTime(m.timeUs).c_str(), format("%6.2f", m.algbw).c_str(),
                format("%6.2f", m.busbw).c_str(), formatWrong(m.wrong).c_str());
}

// Two decimals below 10 % (a call that returns in 0.05 % of the collective's time), one above.
std::string formatPercent(double percent) {
  return std::abs(percent) < 10.0 ? format("%.2f", percent) : format("%.1f", percent);
}

std::string overlapColumns(const OverlapMeasurement& m) {
  return format(kOverlapColumns, formatTime(m.collectiveUs).c_str(), formatTime(m.hostUs).c_str(),
                formatTime(m.bothUs).c_str(), formatTime(m.returnUs).c_str(), formatPercent(m.overlapPercent).c_str(),
                formatPercent(m.returnPercent).c_str(), formatWrong(m.collective.wrong).c_str());
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

bool withRequestColumn(const PerfOptions& o) { return !o.algorithms.empty(); }

std::string algorithmColumns(const PerfOptions& o, const std::string& request, const std::string& algorithm) {
  std::string s;
  if (withRequestColumn(o)) s += format(kRequestColumn, request.c_str());
  return s + format(kAlgorithmColumn, algorithm.c_str());
}

// Measured numbers in the JSON keep nine significant digits, as the table's own precision
// is far below that.
using hetccl_apps::Json;
double measured(double value) { return hetccl_apps::significant(value, 9); }

Json measurementJson(const Measurement& m) {
  return Json{{"time_us", measured(m.timeUs)},
              {"algbw", measured(m.algbw)},
              {"busbw", measured(m.busbw)},
              {"wrong", m.wrong < 0 ? Json(nullptr) : Json(m.wrong)}};
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

// --overlap's legend: what each column is and how overlap is computed.
std::string overlapLegend(const ReportSettings& s) {
  std::string h =
      "#  overlap mode, out of place: per size, -n iterations of (a), (b) and (c) in turn, each timed\n"
      "#    on its own after a barrier; per iteration the slowest rank, then the median (us)\n"
      "#    coll(a): the collective alone: call + hetcclStreamSynchronize\n"
      "#    host(b): host work alone: a floating-point loop on the calling thread, its iteration count\n"
      "#             calibrated per size so that b ~ a (the largest count over ranks: same work on each)\n"
      "#    both(c): call, the same host work, then hetcclStreamSynchronize\n"
      "#    call(r): how long the call took to return, in (c)\n"
      "#    overlap = (a + b - c) / min(a, b) x 100: 100 the shorter hides entirely behind the longer,\n"
      "#              0 they run one after the other; r/a = r / a x 100\n";
  h += format("#    algbw = size / a (1 GB = 1e9 B), busbw = algbw x %s (JSON and footer); #wrong: checked\n",
              busBandwidthFormula(s.options.collective));
  h += "#    bit-exactly after a plain call and after an overlapped one\n";
  if (!s.progressNote.empty()) h += "#  progress: " + s.progressNote + "\n";
  return h;
}

std::string overlapColumnHeader(const PerfOptions& o) {
  std::string h;
  std::string groups = "#" + std::string(kKeyWidth - 1, ' ') + centered("out-of-place, medians", kOverlapWidth);
  h += rstrip(groups) + "\n";
  h += "#" + format(kKeyColumns, "size", "count", "type", "redop", "root").substr(1) +
       format(kOverlapColumns, "coll(a)", "host(b)", "both(c)", "call(r)", "overlap", "r/a", "#wrong") +
       algorithmColumns(o, "request", "algo") + "\n";
  std::string units = "#" + format(kKeyColumns, "(B)", "(elements)", "", "", "").substr(1) +
                      format(kOverlapColumns, "(us)", "(us)", "(us)", "(us)", "(%)", "(%)", "") +
                      algorithmColumns(o, "", "");
  return h + rstrip(units) + "\n";
}

Json overlapJson(const OverlapMeasurement& m) {
  return Json{{"coll_us", measured(m.collectiveUs)},
              {"host_us", measured(m.hostUs)},
              {"both_us", measured(m.bothUs)},
              {"return_us", measured(m.returnUs)},
              {"overlap_percent", measured(m.overlapPercent)},
              {"return_percent", measured(m.returnPercent)},
              {"host_iterations", m.hostIterations},
              {"wrong", m.collective.wrong < 0 ? Json(nullptr) : Json(m.collective.wrong)}};
}

}  // namespace

Measurement makeMeasurement(double timeUs, size_t bytes, double busFactor, int64_t wrong) {
  Measurement m;
  m.timeUs = timeUs;
  // bytes / (us * 1e-6) / 1e9 == bytes / us / 1e3.
  m.algbw = timeUs > 0 ? static_cast<double>(bytes) / timeUs / 1.0e3 : 0.0;
  m.busbw = m.algbw * busFactor;
  m.wrong = wrong;
  return m;
}

OverlapMeasurement makeOverlapMeasurement(double collectiveUs, double hostUs, double bothUs, double returnUs,
                                          uint64_t hostIterations, size_t bytes, double busFactor, int64_t wrong) {
  OverlapMeasurement m;
  m.collectiveUs = collectiveUs;
  m.hostUs = hostUs;
  m.bothUs = bothUs;
  m.returnUs = returnUs;
  // All of the shorter one hidden behind the longer: c = max(a, b), so a + b - c = min(a, b).
  const double shorter = std::min(collectiveUs, hostUs);
  m.overlapPercent = shorter > 0 ? (collectiveUs + hostUs - bothUs) / shorter * 100.0 : 0.0;
  m.returnPercent = collectiveUs > 0 ? returnUs / collectiveUs * 100.0 : 0.0;
  m.hostIterations = hostIterations;
  m.collective = makeMeasurement(collectiveUs, bytes, busFactor, wrong);
  return m;
}

double medianOf(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2.0;
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
    h += overlapLegend(s);
  } else {
    h += format(
        "#  time: mean per iteration (us), maximum over ranks; algbw = size / time "
        "(1 GB = 1e9 B); busbw = algbw x %s\n",
        busBandwidthFormula(o.collective));
  }
  h += "#  algo: the algorithm the library ran (out of place)";
  if (withRequestColumn(o)) h += "; request: the --algo entry, one communicator each: " + joinWords(o.algorithms);
  h += "\n";
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
  if (o.mpiBaseline) groups += centered("MPI (out-of-place)", kBaselineWidth);
  h += rstrip(groups) + "\n";

  std::string names = "#" + format(kKeyColumns, "size", "count", "type", "redop", "root").substr(1) +
                      format(kMeasurementNames, "time", "algbw", "busbw", "#wrong") +
                      format(kMeasurementNames, "time", "algbw", "busbw", "#wrong") +
                      algorithmColumns(o, "request", "algo");
  if (o.mpiBaseline) names += format(kBaselineColumns, "time", "busbw", "vsMPI");
  h += names + "\n";

  std::string units = "#" + format(kKeyColumns, "(B)", "(elements)", "", "", "").substr(1) +
                      format(kMeasurementColumns, "(us)", "(GB/s)", "(GB/s)", "") +
                      format(kMeasurementColumns, "(us)", "(GB/s)", "(GB/s)", "") + algorithmColumns(o, "", "");
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
  if (options.mpiBaseline) {
    if (row.baseline.measured) {
      const double ratio = ratioVersusMpi(row);
      line += format(kBaselineColumns, formatTime(row.baseline.timeUs).c_str(),
                     format("%6.2f", row.baseline.busbw).c_str(), ratio > 0 ? format("%6.2f", ratio).c_str() : "N/A");
    } else {
      line += format(kBaselineColumns, "N/A", "N/A", "N/A");
    }
  }
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
