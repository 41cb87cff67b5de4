// Command line of hetccl-perf: nccl-tests' flags (-b -e -f -i -n -w -c -d -o -r -J) plus
// hetccl's own (--baseline mpi, --algo LIST, --overlap), read by getopt_long (common/command_line.h).
// Parsing is pure so every rank parses the same argv to the same result and the unit tests
// need no MPI.
#pragma once

#include "base/byte_size.h"

#include <cstddef>
#include <string>
#include <vector>

#include "perf/perf_types.h"

namespace hetccl_perf {

using hetccl::parseByteSize;

struct PerfOptions {
  Collective collective = Collective::AllReduce;
  size_t minBytes = 8;
  size_t maxBytes = size_t{32} << 20;
  size_t stepFactor = 2;  // next size = size * stepFactor, unless stepBytes is set
  size_t stepBytes = 0;   // -i: next size = size + stepBytes (takes precedence when > 0)
  int iters = 20;
  int warmupIters = 5;
  bool check = true;
  std::vector<DataType> types{DataType::Float32};
  std::vector<RedOp> ops{RedOp::Sum};
  int root = 0;
  std::string jsonPath;      // empty: no JSON file
  bool mpiBaseline = false;  // --baseline mpi
  // --algo: one communicator per entry, each forced to that algorithm ("auto": the tuner's
  // choice), so the algorithms are timed side by side in one run.  Empty: one communicator
  // with the library's own setting (HETCCL_ALGO, else auto).
  std::vector<std::string> algorithms;
  // --overlap: instead of nccl-tests' table, how much of the collective hides behind host
  // work on the calling thread (hetccl_bench.h, host_work.h); out of place only.
  bool overlap = false;
  // --model: the cost model's predicted time beside the measured one (hetcclCommGetPredictedTime).
  bool model = false;
  // --accumulate native|float32: every communicator made with config.accumulate set to it, and
  // the rows of half/bfloat16 sums and averages gain their largest error in ulps against the
  // exact sum (rounding_error.h).  Empty: the library's setting, no error column.
  std::string accumulate;
};

enum class ParseOutcome { Run, Help, Error };

struct ParseResult {
  ParseOutcome outcome = ParseOutcome::Error;
  PerfOptions options;
  std::string error;  // why parsing failed (outcome == Error)
};

// argv[0] is the program name.  Flags may come before or after the collective.
ParseResult parseOptions(int argc, const char* const* argv);

std::string usageText(const std::string& program);

// The names --algo accepts: the values of hetcclConfig_t.algorithm.
const std::vector<std::string>& knownAlgorithms();

// "ring,hier,auto" -> {ring, hier, auto}.  Fails (with a message) on an unknown name, an
// empty entry or a name listed twice (two identical communicators would only double the run).
bool parseAlgorithmList(const std::string& text, std::vector<std::string>* algorithms, std::string* error);

// The sizes to run, min to max inclusive: by factor, or by increment when stepBytes > 0.
std::vector<size_t> sizeSweep(const PerfOptions& options);

}  // namespace hetccl_perf
