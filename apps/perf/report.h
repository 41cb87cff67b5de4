// What hetccl-perf prints: nccl-tests' table (so people's scripts and eyes read it as they
// read nccl-tests'), then hetccl's own columns (the algorithm used, the --algo entry, the MPI
// baseline) after nccl-tests' so that column positions scripts rely on stay put; the footer,
// and the same content as JSON.
// Everything returns strings so the unit tests check the format without running anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "perf/options.h"
#include "perf/perf_types.h"

namespace hetccl_perf {

struct Measurement {
  double timeUs = 0;   // mean per iteration, maximum over ranks
  double algbw = 0;    // GB/s, 1 GB = 1e9 B
  double busbw = 0;    // GB/s
  int64_t wrong = -1;  // mismatching elements summed over ranks; < 0: not checked
};

// algbw = bytes / time; busbw = algbw x factor.  A zero time gives zero bandwidth.
Measurement makeMeasurement(double timeUs, size_t bytes, double busFactor, int64_t wrong);

struct BaselineMeasurement {
  bool measured = false;  // false: the MPI call could not express this row (count > INT_MAX)
  double timeUs = 0;
  double busbw = 0;
};

// One row of --overlap (out of place): each figure the median over the timed iterations of the
// slowest rank's time in that iteration.
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

struct ResultRow {
  Collective collective = Collective::AllReduce;
  size_t bytes = 0;
  size_t count = 0;
  DataType type = DataType::Float32;
  bool hasOp = false;  // false: a data-movement collective ("none")
  RedOp op = RedOp::Sum;
  bool hasRoot = false;
  int root = 0;
  Measurement outOfPlace;
  Measurement inPlace;
  BaselineMeasurement baseline;    // only printed with --baseline mpi
  std::string requestedAlgorithm;  // the --algo entry the row ran under; "" without --algo
  std::string algorithm;           // what the library ran (hetcclCommGetAlgorithm); "" unknown
  // --overlap: the row is `overlap` (outOfPlace is overlap.collective, inPlace unused).
  bool hasOverlap = false;
  OverlapMeasurement overlap;
};

struct ReportSettings {
  PerfOptions options;
  int nranks = 1;
  std::string libraryVersion;          // "0.1.0"
  std::vector<std::string> rankLines;  // one description per rank, printed in the header
  // --overlap: who runs the operations, as far as the app can tell ("HETCCL_PROGRESS=caller,
  // MPI_THREAD_MULTIPLE"); printed in the header.
  std::string progressNote;
};

struct AlgorithmAverage {
  std::string requestedAlgorithm;
  double avgBusBandwidth = 0;
};

struct Footer {
  int64_t wrongTotal = 0;
  double avgBusBandwidth = 0;  // mean of every out-of-place and in-place busbw (--overlap: of (a))
  // The same mean per --algo entry, in the order given; empty without --algo.
  std::vector<AlgorithmAverage> byAlgorithm;
};

std::string formatHeader(const ReportSettings& settings);
std::string formatRow(const ResultRow& row, const PerfOptions& options);
Footer summarize(const std::vector<ResultRow>& rows);
std::string formatFooter(const Footer& footer);
std::string formatJson(const ReportSettings& settings, const std::vector<ResultRow>& rows, const Footer& footer);

// hetccl out-of-place busbw over MPI's; 0 when MPI's is 0 or missing.
double ratioVersusMpi(const ResultRow& row);

}  // namespace hetccl_perf
