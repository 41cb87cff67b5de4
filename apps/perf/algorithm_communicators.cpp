#include "perf/algorithm_communicators.h"

#include <mpi.h>

#include <cstdio>

#include "perf/hetccl_errors.h"

namespace hetccl_perf {

namespace {

// The library decides deterministically from what every rank shares (settings, topology),
// so ranks normally fail together; agreeing anyway keeps a rank that succeeded from waiting
// in a collective that its failed peers will never join.
struct Agreement {
  int lowestFailingRank;
  hetcclResult_t code;
};

Agreement agreeOnFailure(hetcclResult_t mine, int rank, int nranks) {
  int candidate = mine == hetcclSuccess ? nranks : rank;
  Agreement a{nranks, hetcclSuccess};
  MPI_Allreduce(&candidate, &a.lowestFailingRank, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (a.lowestFailingRank == nranks) return a;
  int code = static_cast<int>(mine);
  MPI_Bcast(&code, 1, MPI_INT, a.lowestFailingRank, MPI_COMM_WORLD);
  a.code = static_cast<hetcclResult_t>(code);
  return a;
}

}  // namespace

hetcclResult_t AlgorithmCommunicators::create(const std::vector<std::string>& requested,
                                              const std::string& accumulate) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const std::vector<std::string> entries = requested.empty() ? std::vector<std::string>{""} : requested;
  for (const std::string& name : entries) {
    hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
    config.algorithm = name.empty() ? nullptr : name.c_str();
    config.accumulate = accumulate.empty() ? nullptr : accumulate.c_str();
    hetcclComm_t comm = nullptr;
    const hetcclResult_t result = hetcclCommInitMPI(&comm, MPI_COMM_WORLD, &config);
    const Agreement agreement = agreeOnFailure(result, rank, nranks);
    if (agreement.code == hetcclSuccess) {
      comms_.push_back({name, comm});
      continue;
    }
    if (rank == agreement.lowestFailingRank) {
      const std::string what = name.empty() ? "a communicator" : "a communicator for --algo " + name;
      std::fprintf(stderr, "hetccl-perf: rank %d: cannot create %s: %s: %s\n", rank, what.c_str(),
                   hetcclGetErrorString(result), hetcclGetLastError(nullptr));
      std::fflush(stderr);
    }
    // Peers of a rank that failed will not wait for this one: leave without waiting.
    if (comm != nullptr) (void)hetcclCommAbort(comm);
    return agreement.code;
  }
  return hetcclSuccess;
}

AlgorithmCommunicators::~AlgorithmCommunicators() {
  for (auto it = comms_.rbegin(); it != comms_.rend(); ++it) PERF_HETCCL_CHECK(it->comm, hetcclCommDestroy(it->comm));
}

}  // namespace hetccl_perf
