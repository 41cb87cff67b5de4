// What one timed row of hetccl-perf measured, as numbers (report.h and overlap_report.h turn
// them into text): time and bandwidths of hetccl's call, and MPI's for --baseline mpi.
#pragma once

#include <cstddef>
#include <cstdint>

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

}  // namespace hetccl_perf
