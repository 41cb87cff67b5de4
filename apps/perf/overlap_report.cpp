#include "perf/overlap_report.h"

#include <algorithm>
#include <cmath>

#include "common/text_format.h"
#include "perf/collective_shape.h"
#include "perf/table_text.h"

namespace hetccl_perf {

using hetccl_apps::format;
using hetccl_apps::Json;

namespace {

// coll(a) host(b) both(c) call(r) in us, overlap and r/a in %, #wrong.
constexpr const char* kOverlapColumns = "  %7s  %7s  %7s  %7s  %7s  %6s  %6s";
constexpr int kOverlapWidth = 62;

// Two decimals below 10 % (a call that returns in 0.05 % of the collective's time), one above.
std::string formatPercent(double percent) {
  return std::abs(percent) < 10.0 ? format("%.2f", percent) : format("%.1f", percent);
}

}  // namespace

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

std::string overlapLegend(const PerfOptions& o, const std::string& progressNote) {
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
              busBandwidthFormula(o.collective));
  h += "#    bit-exactly after a plain call and after an overlapped one\n";
  if (!progressNote.empty()) h += "#  progress: " + progressNote + "\n";
  return h;
}

std::string overlapColumnHeader(const PerfOptions& o) {
  std::string h;
  std::string groups = "#" + std::string(kKeyWidth - 1, ' ') + centered("out-of-place, medians", kOverlapWidth);
  h += rstrip(groups) + "\n";
  h += keyColumnNames() +
       format(kOverlapColumns, "coll(a)", "host(b)", "both(c)", "call(r)", "overlap", "r/a", "#wrong") +
       algorithmColumns(o, "request", "algo") + "\n";
  std::string units = keyColumnUnits() + format(kOverlapColumns, "(us)", "(us)", "(us)", "(us)", "(%)", "(%)", "") +
                      algorithmColumns(o, "", "");
  return h + rstrip(units) + "\n";
}

std::string overlapColumns(const OverlapMeasurement& m) {
  return format(kOverlapColumns, formatTime(m.collectiveUs).c_str(), formatTime(m.hostUs).c_str(),
                formatTime(m.bothUs).c_str(), formatTime(m.returnUs).c_str(), formatPercent(m.overlapPercent).c_str(),
                formatPercent(m.returnPercent).c_str(), formatWrong(m.collective.wrong).c_str());
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

}  // namespace hetccl_perf
