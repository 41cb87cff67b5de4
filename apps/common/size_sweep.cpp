#include "common/size_sweep.h"

#include <limits>

namespace hetccl_apps {

std::vector<size_t> sweepSizes(size_t minBytes, size_t maxBytes, size_t stepFactor, size_t stepBytes) {
  std::vector<size_t> sizes;
  const size_t kMax = std::numeric_limits<size_t>::max();
  for (size_t size = minBytes; size <= maxBytes;) {
    sizes.push_back(size);
    if (stepBytes > 0) {
      if (size > kMax - stepBytes) break;
      size += stepBytes;
    } else {
      if (size > kMax / stepFactor) break;
      size *= stepFactor;
    }
  }
  return sizes;
}

std::vector<Flag> sizeSweepFlags(const std::string& minDefault, const std::string& maxDefault,
                                 const std::string& factorDefault) {
  return {
      {'b', "minbytes", "SIZE", "smallest size in bytes, K/M/G suffixes (default " + minDefault + ")"},
      {'e', "maxbytes", "SIZE", "largest size in bytes (default " + maxDefault + ")"},
      {'f', "stepfactor", "N", "multiply the size by N each step (default " + factorDefault + ")"},
  };
}

}  // namespace hetccl_apps
