#include "core/broken_pipe.h"

#include <csignal>
#include <mutex>

#include "base/log.h"

namespace hetccl {

void ignoreBrokenPipeSignalsOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (sigaction(SIGPIPE, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
        (current.sa_flags & SA_SIGINFO) != 0)
      return;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    if (sigaction(SIGPIPE, &ignore, nullptr) == 0)
      HETCCL_INFO(
          "SIGPIPE was at its default action: now ignored, so that a dead peer's reset connection "
          "fails MPI's write instead of ending this process");
  });
}

}  // namespace hetccl
