#include "perf/measurement.h"

namespace hetccl_perf {

Measurement makeMeasurement(double timeUs, size_t bytes, double busFactor, int64_t wrong) {
  Measurement m;
  m.timeUs = timeUs;
  // bytes / (us * 1e-6) / 1e9 == bytes / us / 1e3.
  m.algbw = timeUs > 0 ? static_cast<double>(bytes) / timeUs / 1.0e3 : 0.0;
  m.busbw = m.algbw * busFactor;
  m.wrong = wrong;
  return m;
}

}  // namespace hetccl_perf
