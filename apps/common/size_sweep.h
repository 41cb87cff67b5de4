// The sizes hetccl-perf measures and hetccl-sim predicts, swept as nccl-tests sweeps them:
// -b MIN to -e MAX inclusive, multiplied by -f FACTOR each step (or, in hetccl-perf, plus -i
// BYTES).  One definition, so the two tools' rows line up size for size.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/command_line.h"

namespace hetccl_apps {

// min, then each next size, up to max inclusive: size + stepBytes when stepBytes > 0, else
// size * stepFactor (>= 2).  Stops where the next size would wrap around.
std::vector<size_t> sweepSizes(size_t minBytes, size_t maxBytes, size_t stepFactor, size_t stepBytes = 0);

// The rows of -b, -e and -f in a tool's flag table, their defaults named in the help.
std::vector<Flag> sizeSweepFlags(const std::string& minDefault, const std::string& maxDefault,
                                 const std::string& factorDefault);

}  // namespace hetccl_apps
