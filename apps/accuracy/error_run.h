// One measurement of hetccl-accuracy: a half/bfloat16 all-reduce or reduce-scatter on thread
// ranks (core/thread_job.h) with one algorithm and one accumulation, and how far its outputs
// are from the exact result.
#pragma once

#include <string>

#include "accuracy/accuracy_options.h"

namespace hetccl_accuracy {

struct ErrorRun {
  std::string failure;     // empty when the job ran; else what failed, rank by rank
  std::string ran;         // the algorithm the library reports it ran (rank 0's)
  double maxUlp = 0;       // the largest error of any output element on any rank, in ulps
  int ranksDiffering = 0;  // all-reduce: ranks whose outputs differ in any bit from rank 0's
};

// Emulated islands for `nranks` thread ranks: the first half NVIDIA, the second AMD, in nodes
// of `nodeRanks` (fewer where a vendor's half does not divide into them).  Set in this
// process's environment, which each communicator reads at creation; call it while no rank
// thread runs.
std::string setEmulatedLayout(int nranks, int nodeRanks);

// Runs the collective of `options` once on `nranks` thread ranks with `algorithm` (a
// HETCCL_ALGO name or "auto") and `accumulate` ("native" or "float32").
ErrorRun measureError(const AccuracyOptions& options, int nranks, const std::string& algorithm, const char* accumulate);

}  // namespace hetccl_accuracy
