// The predictions hetccl-sim prints: for each size, every algorithm's time at its best chunk
// size and the tuner's pick.  Both come from the library's own Tuner (algorithms/tuner.h), so the
// pick is the one a communicator with these links would make.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/tuner.h"
#include "perf/perf_types.h"
#include "sim/bound.h"

namespace hetccl_sim {

struct AlgorithmPrediction {
  hetccl::Algorithm algorithm = hetccl::Algorithm::Ring;
  bool applies = false;
  hetccl::TuningChoice choice;  // valid when applies
  double busBandwidth = 0;      // bytes per second, nccl-tests' bus bandwidth
};

struct SizePrediction {
  size_t bytes = 0;                             // nccl-tests' size: the larger of the send and receive buffers
  size_t count = 0;                             // the collective's count argument (per rank for all-gather etc.)
  std::vector<AlgorithmPrediction> algorithms;  // in allAlgorithms() order
  hetccl::TuningChoice pick;
  double pickBusBandwidth = 0;
  hetccl::CostBreakdown pickBreakdown;  // the pick's prediction taken apart
  bool hasBound = false;                // all-reduce only
  AllReduceBound bound;
};

// hetccl-perf's collective of the same name (both use nccl-tests' names), so the sim's bus
// bandwidth is hetccl-perf's: one factor table, hetccl_perf::busBandwidthFactor.
hetccl_perf::Collective perfCollective(hetccl::Collective collective);

// One row per size; sizes whose count rounds to that of the previous row are dropped.
// `accumulate`: every algorithm and the pick priced with fp32 accumulation
// (Tuner::priceAccumulated / chooseAccumulated); the breakdown is then its float32 phase's.
// `islands` (formedIslands of the topology's cluster) give the all-reduce's bound.
std::vector<SizePrediction> predictSweep(const hetccl::TopologyView& topology, const std::vector<FormedIsland>& islands,
                                         const hetccl::CostParameters& costs, const hetccl::TunerSettings& tuning,
                                         hetccl::Collective collective, size_t elementSize,
                                         const std::vector<size_t>& sizes, bool accumulate = false);

}  // namespace hetccl_sim
