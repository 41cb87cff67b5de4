// A job whose ranks are threads of this process: each thread gets a whole communicator of the
// job (made over the in-process bootstrap, core/bootstrap_threads.h) and a stream of its own,
// and calls the public API as a program's rank would -- without mpirun or MPI_Init.  The
// thread-per-rank tests run on it (also under ThreadSanitizer, which then sees every thread
// hetccl starts), and so does hetccl-accuracy, which needs hundreds of ranks where processes
// would not fit this host.
#pragma once

#include <functional>
#include <string>

#include "hetccl/hetccl.h"

namespace hetccl {

// One rank thread's: its communicator and a stream of its own (the ranks share the process's
// device, whose default stream would order one rank's operations behind another's, and
// deadlock them as it would two NCCL communicators on one stream).
struct ThreadRank {
  int rank = 0;
  hetcclComm_t comm = nullptr;  // a body that destroys or aborts it sets it to null
  hetcclStream_t stream = nullptr;
};

// Runs `body` on `nranks` threads, each with its own communicator of the job (made with
// `config`), and destroys the communicators the bodies leave.  Returns "" when creation and
// every body succeeded, else what failed, rank by rank.  A collective whose members do not all
// arrive within `timeoutSeconds` fails rather than hanging.
std::string runOnCommunicators(int nranks, const hetcclConfig_t* config,
                               const std::function<std::string(ThreadRank& self)>& body, double timeoutSeconds = 60);

}  // namespace hetccl
