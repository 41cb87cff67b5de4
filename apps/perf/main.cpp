// hetccl-perf: nccl-tests' benchmark contract for hetccl.  Every rank runs the same sweep
// (types x ops x sizes, nccl-tests' order); rank 0 prints the table as rows complete, then the
// footer and, with -J, the JSON document.  Exit status: 0 all correct, 1 wrong results or an
// error, 2 bad command line (or a setting this job cannot run, such as --algo torus on
// unequal islands).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <hetccl/hetccl.h>

#include "base/settings_reader.h"
#include "perf/algorithm_communicators.h"
#include "perf/collective_runner.h"
#include "perf/collective_shape.h"
#include "perf/expected_values.h"
#include "perf/hetccl_bench.h"
#include "perf/hetccl_errors.h"
#include "perf/mpi_baseline.h"
#include "perf/options.h"
#include "perf/report.h"
#include "perf/rounding_error.h"

namespace hetccl_perf {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

std::string libraryVersion(hetcclComm_t comm) {
  int code = 0;
  PERF_HETCCL_CHECK(comm, hetcclGetVersion(&code));
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

// "Rank  0 Pid  1234 on node01", gathered to rank 0: which process ran where.
std::vector<std::string> describeRanks(int rank, int nranks) {
  constexpr int kLine = 256;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int hostLength = 0;
  MPI_Get_processor_name(host, &hostLength);
  char line[kLine] = {};
  // Host names are far shorter than MPI_MAX_PROCESSOR_NAME; the bound keeps the line's size
  // provable (GCC's -Wformat-truncation, an error in debug builds).
  std::snprintf(line, sizeof line, "Rank %2d Pid %6d on %.200s", rank, static_cast<int>(getpid()), host);
  std::vector<char> all(rank == 0 ? static_cast<size_t>(kLine) * nranks : 0);
  MPI_Gather(line, kLine, MPI_CHAR, all.data(), kLine, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> lines;
  for (int r = 0; rank == 0 && r < nranks; ++r) lines.emplace_back(&all[static_cast<size_t>(r) * kLine]);
  return lines;
}

// The largest buffer any row needs, so device memory is allocated once.
size_t bufferCapacity(const PerfOptions& o, const std::vector<size_t>& sizes, int nranks) {
  size_t capacity = 0;
  for (DataType t : o.types)
    for (size_t bytes : sizes) {
      CollectiveShape s = collectiveShape(o.collective, bytes, hetccl::elementSize(t), nranks, 0);
      size_t elements = std::max({s.sendElements, s.recvElements, s.inPlaceElements});
      capacity = std::max(capacity, elements * hetccl::elementSize(t));
    }
  return capacity;
}

// Rank 0 opens the JSON file before the run, so a bad path fails in a second, not after it.
bool openJson(const PerfOptions& o, int rank, FILE** file) {
  int ok = 1;
  if (rank == 0 && !o.jsonPath.empty()) {
    *file = std::fopen(o.jsonPath.c_str(), "w");
    if (*file == nullptr) {
      std::fprintf(stderr, "hetccl-perf: cannot open '%s' for writing\n", o.jsonPath.c_str());
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok == 1;
}

// Creation failed on every rank (AlgorithmCommunicators agrees on it).  A setting this job
// cannot honour (--algo torus on unequal islands, a bad HETCCL_* value) is the user's to fix,
// like a bad flag; anything else is a failure of the run.
int exitStatusForSetupError(hetcclResult_t result) {
  return result == hetcclInvalidArgument || result == hetcclInvalidUsage ? kExitUsage : kExitFailed;
}

ResultRow rowKey(const PerfOptions& o, const CollectiveShape& shape, DataType type, RedOp op) {
  ResultRow row;
  row.collective = o.collective;
  row.bytes = shape.bytes;
  row.count = shape.count;
  row.type = type;
  row.hasOp = collectiveReduces(o.collective);
  row.op = op;
  row.hasRoot = collectiveHasRoot(o.collective);
  row.root = o.root;
  return row;
}

// The algorithm the communicator's last operation ran; "" if the library cannot say.
std::string lastAlgorithm(hetcclComm_t comm) {
  const char* name = nullptr;
  if (hetcclCommGetAlgorithm(comm, &name) != hetcclSuccess || name == nullptr) return "";
  return name;
}

// The cost model's prediction for the communicator's last operation, in us; 0 if none.
double lastPredictedUs(hetcclComm_t comm) {
  double seconds = 0;
  if (hetcclCommGetPredictedTime(comm, &seconds) != hetcclSuccess) return 0;
  return seconds * 1e6;
}

// nccl-tests' order (types, then ops, then sizes); each size is measured on every
// communicator in turn, so one algorithm's row sits next to the others' for the same size.
// Rank 0 prints each row as it completes.
std::vector<ResultRow> runSweep(const PerfOptions& o, const CallContext& ctx, const AlgorithmCommunicators& comms) {
  const std::vector<size_t> sizes = sizeSweep(o);
  const size_t capacity = bufferCapacity(o, sizes, ctx.nranks);
  std::vector<ResultRow> rows;
  HetcclBench bench(ctx, capacity, o.warmupIters, o.iters, o.check);
  std::unique_ptr<MpiBaseline> baseline;
  if (o.mpiBaseline) baseline = std::make_unique<MpiBaseline>(MPI_COMM_WORLD, capacity);

  // Data-movement collectives have no op: one pass, printed as "none".
  const std::vector<RedOp> ops = collectiveReduces(o.collective) ? o.ops : std::vector<RedOp>{RedOp::Sum};
  for (DataType type : o.types) {
    for (RedOp op : ops) {
      for (size_t requested : sizes) {
        PatternSpec spec;
        spec.collective = o.collective;
        spec.type = type;
        spec.op = op;
        spec.nranks = ctx.nranks;
        spec.root = o.root;
        const CollectiveShape shape =
            collectiveShape(o.collective, requested, hetccl::elementSize(type), ctx.nranks, ctx.rank);
        // MPI's time does not depend on hetccl's algorithm: measured once, shown on each row.
        BaselineMeasurement mpiTime;
        if (baseline) mpiTime = baseline->measure(spec, shape, o.warmupIters, o.iters);
        for (const AlgorithmCommunicator& entry : comms.all()) {
          ResultRow row = rowKey(o, shape, type, op);
          row.requestedAlgorithm = entry.requested;
          if (o.overlap) {
            row.hasOverlap = true;
            row.overlap = bench.measureOverlap(entry.comm, spec, shape);
            row.outOfPlace = row.overlap.collective;
            row.algorithm = lastAlgorithm(entry.comm);
          } else {
            row.outOfPlace = bench.measure(entry.comm, spec, shape, /*inPlace=*/false);
            row.algorithm = lastAlgorithm(entry.comm);
            row.predictedUs = lastPredictedUs(entry.comm);
            row.inPlace = bench.measure(entry.comm, spec, shape, /*inPlace=*/true);
            if (!o.accumulate.empty() && measuresRoundingError(o.collective, type, op))
              row.maxUlpError = bench.measureRoundingError(entry.comm, spec, shape);
          }
          row.baseline = mpiTime;
          if (ctx.rank == 0) {
            std::fputs(formatRow(row, o).c_str(), stdout);
            std::fflush(stdout);
          }
          rows.push_back(row);
        }
      }
    }
  }
  return rows;
}

// What decides whether calls return before the work is done: HETCCL_PROGRESS and MPI's thread
// level (below MPI_THREAD_MULTIPLE the library runs every operation on the calling thread).
// Read through the settings table, as every HETCCL_* variable is.
std::string progressNote() {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  const bool set = hetccl::settingSource(hetccl::SettingId::Progress) != hetccl::SettingSource::Default;
  return "HETCCL_PROGRESS=" + hetccl::effectiveSettingText(hetccl::SettingId::Progress) + (set ? "" : " (default)") +
         ", MPI thread level " + (level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "below MPI_THREAD_MULTIPLE");
}

int runBenchmark(const PerfOptions& o, int rank, int nranks) {
  FILE* json = nullptr;
  if (!openJson(o, rank, &json)) return kExitUsage;

  AlgorithmCommunicators comms;
  if (const hetcclResult_t result = comms.create(o.algorithms, o.accumulate); result != hetcclSuccess) {
    if (json != nullptr) {
      std::fclose(json);
      std::remove(o.jsonPath.c_str());  // no empty document that looks like a run
    }
    return exitStatusForSetupError(result);
  }
  CallContext ctx;
  ctx.rank = rank;
  ctx.nranks = nranks;
  ctx.comm = comms.all().front().comm;
  PERF_HETCCL_CHECK(ctx.comm, hetcclStreamCreate(&ctx.stream));

  ReportSettings settings;
  settings.options = o;
  settings.nranks = nranks;
  settings.libraryVersion = libraryVersion(ctx.comm);
  settings.rankLines = describeRanks(rank, nranks);
  if (o.overlap) settings.progressNote = progressNote();
  if (rank == 0) {
    std::fputs(formatHeader(settings).c_str(), stdout);
    std::fflush(stdout);
  }

  const std::vector<ResultRow> rows = runSweep(o, ctx, comms);

  const Footer footer = summarize(rows);
  if (rank == 0) {
    std::fputs(formatFooter(footer).c_str(), stdout);
    std::fflush(stdout);
  }
  int status = footer.wrongTotal > 0 ? kExitFailed : kExitOk;
  if (json != nullptr) {
    const std::string document = formatJson(settings, rows, footer);
    if (std::fputs(document.c_str(), json) < 0 || std::fclose(json) != 0) {
      std::fprintf(stderr, "hetccl-perf: writing '%s' failed\n", o.jsonPath.c_str());
      status = kExitFailed;
    }
  }
  PERF_HETCCL_CHECK(ctx.comm, hetcclStreamDestroy(ctx.stream));
  return status;
}

}  // namespace
}  // namespace hetccl_perf

int main(int argc, char** argv) {
  using namespace hetccl_perf;
  // MPI_THREAD_MULTIPLE: hetccl's progress threads call MPI while this thread may too;
  // with less, hetccl runs every operation on the calling thread.
  int threadLevel = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &threadLevel);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  // Every rank parses the same argv to the same result, so all take the same exit path.
  const ParseResult parsed = parseOptions(argc, argv);
  const std::string program = "hetccl-perf";
  int status = kExitOk;
  if (parsed.outcome == ParseOutcome::Help) {
    if (rank == 0) std::fputs(usageText(program).c_str(), stdout);
  } else if (parsed.outcome == ParseOutcome::Error) {
    if (rank == 0) std::fprintf(stderr, "hetccl-perf: %s\n%s", parsed.error.c_str(), usageText(program).c_str());
    status = kExitUsage;
  } else if (collectiveHasRoot(parsed.options.collective) && parsed.options.root >= nranks) {
    if (rank == 0)
      std::fprintf(stderr, "hetccl-perf: root %d is not a rank (nranks %d)\n%s", parsed.options.root, nranks,
                   usageText(program).c_str());
    status = kExitUsage;
  } else {
    status = runBenchmark(parsed.options, rank, nranks);
  }
  MPI_Finalize();
  return status;
}
