// What hetccl-perf prints: nccl-tests' table (so people's scripts and eyes read it as they
// read nccl-tests'), then hetccl's own columns (the algorithm used, the --algo entry, the MPI
// baseline) after nccl-tests' so that column positions scripts rely on stay put; the footer,
// and the same content as JSON.  --overlap's columns are its own (overlap_report.h); the
// shared layout pieces are table_text.h.
// Everything returns strings so the unit tests check the format without running anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "perf/measurement.h"
#include "perf/options.h"
#include "perf/overlap_report.h"
#include "perf/perf_types.h"

namespace hetccl_perf {

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
  double predictedUs = 0;          // --model: the cost model's time for it; 0 none made
  double maxUlpError = -1;         // --accumulate: rounding_error.h's largest error; < 0 not measured
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
// Measured out-of-place time over the model's prediction; 0 when there is no prediction.
double ratioVersusModel(const ResultRow& row);

}  // namespace hetccl_perf
