#include "core/progress_mode.h"

#include <atomic>

#include "base/log.h"

namespace hetccl {

namespace {

// Said once per process: every communicator of a job would repeat it.
void sayOnce(std::atomic<bool>& said, LogLevel level, const std::string& text) {
  if (said.exchange(true)) return;
  if (level == LogLevel::Warn)
    HETCCL_WARN("%s", text.c_str());
  else
    HETCCL_INFO("%s", text.c_str());
}

}  // namespace

Status startProgressEngine(const Settings& settings, const Bootstrap& members, Device& device,
                           std::unique_ptr<ProgressEngine>* engine, std::string* why) {
  static std::atomic<bool> toldCaller{false}, toldUnsafe{false};
  using Mode = ProgressEngine::Mode;
  if (settings.progress == ProgressMode::Caller) {
    *why = "calling thread (HETCCL_PROGRESS=caller)";
    return ProgressEngine::create(device, Mode::Caller, settings.queueDepth, engine);
  }
  std::string level;
  const bool multiple = members.allowsConcurrentCalls(&level);
  if (settings.progress == ProgressMode::Thread) {
    const Status started =
        ProgressEngine::create(device, Mode::Thread, settings.queueDepth, engine, settings.timeoutSeconds);
    if (!started.isOk())
      return HETCCL_STATUS(started.code(), "HETCCL_PROGRESS=thread, but %s", started.message().c_str());
    *why = "progress thread (HETCCL_PROGRESS=thread)";
    if (!multiple)
      sayOnce(toldUnsafe, LogLevel::Warn,
              "HETCCL_PROGRESS=thread with " + level +
                  ": hetccl's progress thread calls MPI, so the application must not call MPI while operations "
                  "are in flight");
    return Status::ok();
  }
  if (!multiple) {
    *why = "calling thread (MPI provides " + level + ", not MPI_THREAD_MULTIPLE: initialise MPI with MPI_Init_thread)";
    sayOnce(toldCaller, LogLevel::Info, "operations run on the " + *why + "; calls return when they have completed");
    return ProgressEngine::create(device, Mode::Caller, settings.queueDepth, engine);
  }
  const Status started =
      ProgressEngine::create(device, Mode::Thread, settings.queueDepth, engine, settings.timeoutSeconds);
  if (started.isOk()) {
    *why = "progress thread (" + level + ")";
    return Status::ok();
  }
  *why = "calling thread (the device's streams cannot wait for the host: " + started.message() + ")";
  sayOnce(toldCaller, LogLevel::Info, "operations run on the " + *why);
  return ProgressEngine::create(device, Mode::Caller, settings.queueDepth, engine);
}

}  // namespace hetccl
