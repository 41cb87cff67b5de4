// MPI started at load under a launcher, or on first use (mpi_bootstrap.h).
#include "nccl/mpi_bootstrap.h"

#include <cstdlib>
#include <string>

#include <mpi.h>
#include <unistd.h>

#include "base/settings_reader.h"
#include "base/settings_table.h"
#include "client/mpi_startup.h"
#include "nccl/shim_support.h"

namespace hetccl_nccl {
namespace {

// The launchers' own variables: Open MPI's mpirun, PMIx (srun --mpi=pmix, Open MPI), PMI-1/2
// (MPICH's hydra, srun --mpi=pmi2).
bool startedByMpiLauncher() {
  using Id = hetccl::SettingId;
  for (Id id : {Id::OmpiWorldSize, Id::PmixRank, Id::PmiRank, Id::PmiSize})
    if (hetccl::settingText(id)) return true;
  return false;
}

// Set by the process that started MPI at load, for its children: a program it runs (a
// compiler, nvidia-smi) inherits the launcher's variables and, through LD_PRELOAD, the drop-in,
// but is no rank of the job and must not join it.
bool aChildOfARank() {
  const char* startedBy = hetccl::settingText(hetccl::SettingId::MpiStartedBy);
  return startedBy && std::strtol(startedBy, nullptr, 10) != long(::getpid());
}

// MPI_Init_thread unless MPI runs, and then the job channel (MPI's start is the moment for
// it).  Started by someone else, MPI has the channel from there (the program's MPI_Init below,
// a hetcclCommInitMPI over the whole job) or gets it at the first creation; not here, where
// an id's maker may be alone (hetccl's island setup calls this drop-in so).
ncclResult_t start(const char* function) {
  std::string why;
  const hetccl_client::MpiStartup startup = hetccl_client::startMpiIfNeeded(&why);
  switch (startup) {
    case hetccl_client::MpiStartup::StartedNow:
      // Runs after main returns, before the handlers registered earlier (the application's).
      std::atexit(hetccl_client::finalizeMpiIfStartedHere);
      return forward(hetcclJobInit(), nullptr);
    case hetccl_client::MpiStartup::AlreadyRunning: return ncclSuccess;
    case hetccl_client::MpiStartup::AlreadyFinalised: return fail(ncclInvalidUsage, function, "%s", why.c_str());
    case hetccl_client::MpiStartup::InitFailed: break;
  }
  return fail(ncclSystemError, function, "%s", why.c_str());
}

__attribute__((constructor)) void startMpiAtLoad() {
  if (!startedByMpiLauncher() || aChildOfARank()) return;
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised) return;  // started by a library loaded before this one: see mpi_bootstrap.h
  if (start("loading the NCCL drop-in") != ncclSuccess) return;  // the first NCCL call reports it
  ::setenv(hetccl::settingSpec(hetccl::SettingId::MpiStartedBy).name, std::to_string(::getpid()).c_str(), 1);
}

}  // namespace

ncclResult_t ensureMpiInitialised(const char* function) { return start(function); }

}  // namespace hetccl_nccl

// The program's own MPI start, answered by the drop-in's (mpi_bootstrap.h); when the drop-in
// did not start MPI, the program's start is MPI's, followed by the job channel (every process
// is at its MPI_Init then).
extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised) {  // MPI's own answer, also its error for a late start
    const int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) (void)hetcclJobInit();
    return rc;
  }
  return MPI_Query_thread(provided);
}

extern "C" int MPI_Init(int* argc, char*** argv) {
  int provided = 0;
  return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}
