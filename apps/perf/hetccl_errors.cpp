#include "perf/hetccl_errors.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hetccl_perf {

void abortOnHetcclError(hetcclResult_t result, hetcclComm_t comm, const char* call, const char* file, int line) {
  // __FILE__ is the build machine's absolute path; from "apps/perf/" on is what a reader needs.
  if (const char* relative = std::strstr(file, "apps/perf/")) file = relative;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "hetccl-perf: rank %d: %s failed (%s:%d): %s: %s\n", rank, call, file, line,
               hetcclGetErrorString(result), hetcclGetLastError(comm));
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest if it did
}

}  // namespace hetccl_perf
