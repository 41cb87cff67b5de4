// Who runs a communicator's operations (HETCCL_PROGRESS): a progress thread, so that calls
// return once enqueued, or the calling thread.  The thread calls MPI while the application may
// call it too, which MPI allows only at MPI_THREAD_MULTIPLE; and the caller's streams must be
// able to wait for the host (Device::createStreamFlag).  Without either, `auto` runs
// operations on the calling thread, and says so.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "core/bootstrap.h"
#include "core/settings.h"
#include "device/device.h"
#include "runtime/progress_engine.h"

namespace hetccl {

// The communicator's engine in the mode the settings, the members' wire (MPI's thread level)
// and the device allow; *why says why that mode, for hetccl-info and the INFO log.
Status startProgressEngine(const Settings& settings, const Bootstrap& members, Device& device,
                           std::unique_ptr<ProgressEngine>* engine, std::string* why);

}  // namespace hetccl
