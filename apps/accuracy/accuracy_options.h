// hetccl-accuracy's command line: which rank counts, collective, type, op, element count and
// algorithms to measure the rounding error of, native and fp32-accumulated.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perf/perf_types.h"

namespace hetccl_accuracy {

struct AccuracyOptions {
  std::vector<int> rankCounts{8, 64, 512};
  hetccl_perf::Collective collective = hetccl_perf::Collective::AllReduce;
  hetccl_perf::DataType type = hetccl_perf::DataType::Bfloat16;
  hetccl_perf::RedOp op = hetccl_perf::RedOp::Sum;
  size_t count = 4096;  // all-reduce: the buffer; reduce-scatter: each rank's block
  std::vector<std::string> algorithms{"ring", "hier", "torus", "hier-rhd", "hier-tree", "hier-dbtree", "small", "auto"};
  int nodeRanks = 8;  // ranks per emulated node (fewer where a vendor has fewer)
  bool help = false;
};

// Parses argv; false with *error saying what is wrong.
bool parseAccuracyOptions(int argc, const char* const* argv, AccuracyOptions* options, std::string* error);
std::string accuracyUsage();

}  // namespace hetccl_accuracy
