// hetccl-perf --overlap: how much of a collective hides behind host work on the calling
// thread (out of place only).  The measurement's figures, and its part of the output: a
// legend in the header, its own measurement columns in place of nccl-tests' out-of-place and
// in-place groups, and an "overlap" object per JSON row.  report.h frames both kinds of table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "perf/measurement.h"
#include "perf/options.h"

namespace hetccl_perf {

// One row of --overlap: each figure the median over the timed iterations of the slowest
// rank's time in that iteration.
struct OverlapMeasurement {
  double collectiveUs = 0;      // (a) the collective alone: call + hetcclStreamSynchronize
  double hostUs = 0;            // (b) the host work alone
  double bothUs = 0;            // (c) call, the same host work, then hetcclStreamSynchronize
  double returnUs = 0;          // (r) how long the call took to return, in (c)
  double overlapPercent = 0;    // (a + b - c) / min(a, b) x 100; 0 when min(a, b) is 0
  double returnPercent = 0;     // r / a x 100; 0 when a is 0
  uint64_t hostIterations = 0;  // the host work's loop count, the same on every rank
  Measurement collective;       // (a) as a Measurement: bandwidths, and `wrong` for the row
};

// The derived figures from the four medians; `collective` from (a) with `wrong`.
OverlapMeasurement makeOverlapMeasurement(double collectiveUs, double hostUs, double bothUs, double returnUs,
                                          uint64_t hostIterations, size_t bytes, double busFactor, int64_t wrong);

// The median (the mean of the middle two for an even count); 0 for none.
double medianOf(std::vector<double> values);

// The header's legend: what each column is and how overlap is computed; `progressNote` says
// who runs the operations (printed when not empty).
std::string overlapLegend(const PerfOptions& o, const std::string& progressNote);
// The column group, names and units lines.
std::string overlapColumnHeader(const PerfOptions& o);
// A row's measurement columns.
std::string overlapColumns(const OverlapMeasurement& m);
hetccl_apps::Json overlapJson(const OverlapMeasurement& m);

}  // namespace hetccl_perf
