// Command line of hetccl-sim:
//   hetccl-sim FILE [-b MIN] [-e MAX] [-f FACTOR] [-c COLLECTIVE] [-t TYPE] [--chunk BYTES]
//              [--depth D] [--island-scope node|job] [--explain] [--json] [--smpi-platform PREFIX]
// Sizes as hetccl-perf's (nccl-tests': total bytes of the larger buffer, K/M/G binary
// suffixes).  --chunk, --depth and --island-scope override HETCCL_CHUNK_BYTES,
// HETCCL_PIPELINE_DEPTH and HETCCL_ISLAND_SCOPE, which the sim reads as the library does (so
// does HETCCL_ALGO).  Read by getopt_long like
// the other tools (common/command_line.h), so -b, -e, -f, -c and -t also have hetccl-perf's
// long names (--minbytes ...).  Pure, for the unit tests.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <optional>

#include "algorithms/plan.h"
#include "base/setting_modes.h"

namespace hetccl_sim {

struct SimOptions {
  std::string clusterPath;
  size_t minBytes = size_t{1} << 10;
  size_t maxBytes = size_t{1} << 30;
  size_t stepFactor = 4;
  hetccl::Collective collective = hetccl::Collective::AllReduce;
  std::string typeName = "float";
  size_t elementSize = 4;
  size_t chunkBytes = 0;                           // 0: the tuner chooses (or HETCCL_CHUNK_BYTES)
  int pipelineDepth = 0;                           // 0: the library's setting
  std::optional<hetccl::IslandScope> islandScope;  // empty: HETCCL_ISLAND_SCOPE
  bool explain = false;                            // per-phase breakdown of the pick
  // --accumulate float32: half/bfloat16 all-reduce or reduce-scatter priced with fp32
  // accumulation (algorithms/accumulation.h), as HETCCL_ACCUMULATE=float32 runs it.
  bool accumulate = false;
  bool json = false;
  // --smpi-platform PREFIX: write PREFIX.xml, PREFIX.hosts and PREFIX.vendors (sim/smpi_platform.h)
  // instead of the table.
  std::string smpiPlatformPrefix;
  bool help = false;
};

// argv[0] is the program name.  False with *error set on bad usage.
bool parseSimOptions(int argc, const char* const* argv, SimOptions* options, std::string* error);
std::string simUsage(const std::string& program);
// min, min*f, ... up to max inclusive.
std::vector<size_t> sizeSweep(const SimOptions& options);

}  // namespace hetccl_sim
