// hetccl-perf stops at the first failed hetccl call: a benchmark that carried on after an
// error would print numbers for work that never happened.  The message names the call, the
// code's string and the communicator's last error, then the whole job aborts (a lone rank
// leaving would leave the others waiting in a collective forever).
#pragma once

#include <hetccl/hetccl.h>

namespace hetccl_perf {

[[noreturn]] void abortOnHetcclError(hetcclResult_t result, hetcclComm_t comm, const char* call, const char* file,
                                     int line);

}  // namespace hetccl_perf

#define PERF_HETCCL_CHECK(comm, call)                                                    \
  do {                                                                                   \
    hetcclResult_t perfResult_ = (call);                                                 \
    if (perfResult_ != hetcclSuccess)                                                    \
      ::hetccl_perf::abortOnHetcclError(perfResult_, (comm), #call, __FILE__, __LINE__); \
  } while (0)
