// MPI start-up for the clients of hetccl's C API that may run in a program that never calls
// MPI itself (the NCCL drop-in, the torch backend): initialise MPI on first use unless the
// program did, and finalise it later only if it was initialised here.  When to finalise is the
// client's to choose (the drop-in at process exit, the torch backend when the interpreter shuts
// down, after its groups are freed); both go through finalizeMpiIfStartedHere, so the rule
// "only what we started, only once" is written once.
#pragma once

#include <string>

namespace hetccl_client {

enum class MpiStartup {
  AlreadyRunning,    // initialised by the program (or by an earlier call here), not finalised
  StartedNow,        // this call initialised it
  AlreadyFinalised,  // MPI cannot be initialised again: hetccl cannot run
  InitFailed,        // MPI_Init_thread failed
};

// Initialises MPI with MPI_THREAD_MULTIPLE unless it is initialised already.  The level MPI
// grants is accepted whatever it is: with less than MPI_THREAD_MULTIPLE hetccl runs every
// operation on the calling thread (core/progress_mode.cpp).  Safe from several threads at once
// (two threads creating their first communicators must not both initialise MPI).  On
// AlreadyFinalised and InitFailed, `failure` (if not null) says why, without a prefix.
MpiStartup startMpiIfNeeded(std::string* failure);

// Whether startMpiIfNeeded found MPI usable (AlreadyRunning or StartedNow).
inline bool mpiUsable(MpiStartup startup) {
  return startup == MpiStartup::AlreadyRunning || startup == MpiStartup::StartedNow;
}

// Finalises MPI if startMpiIfNeeded initialised it and nothing has finalised it since; later
// calls do nothing.  Communicators still alive hold duplicated MPI communicators, which
// MPI_Finalize releases: callers free theirs first where they can.
void finalizeMpiIfStartedHere();

}  // namespace hetccl_client
