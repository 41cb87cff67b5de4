// MPI initialised on first use, finalised only if initialised here (mpi_startup.h).
#include "client/mpi_startup.h"

#include <mutex>

#include <mpi.h>

namespace hetccl_client {
namespace {

// Guards both the check-then-initialise and startedHere.
std::mutex startupLock;
bool startedHere = false;

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "unknown MPI error";
  return std::string(text, static_cast<size_t>(length));
}

}  // namespace

MpiStartup startMpiIfNeeded(std::string* failure) {
  std::lock_guard<std::mutex> guard(startupLock);
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (finalised) {
    if (failure) *failure = "MPI has already been finalised in this process; hetccl runs over MPI";
    return MpiStartup::AlreadyFinalised;
  }
  if (initialised) return MpiStartup::AlreadyRunning;
  int provided = MPI_THREAD_SINGLE;
  const int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (code != MPI_SUCCESS) {
    if (failure) *failure = "MPI_Init_thread failed: " + mpiErrorText(code);
    return MpiStartup::InitFailed;
  }
  startedHere = true;
  return MpiStartup::StartedNow;
}

void finalizeMpiIfStartedHere() {
  std::lock_guard<std::mutex> guard(startupLock);
  if (!startedHere) return;
  startedHere = false;
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) MPI_Finalize();
}

}  // namespace hetccl_client
