#include "core/retirement.h"

#include <mutex>
#include <utility>
#include <vector>

namespace hetccl {

namespace {

struct Retiring {
  MPI_Comm comm;
  std::unique_ptr<ControlChannel> channel;
};

std::mutex retiringLock;
// Never destroyed: what is still waiting at exit must not call MPI after MPI_Finalize.
std::vector<Retiring>& retiring() {
  static auto* waiting = new std::vector<Retiring>();
  return *waiting;
}

// Called with retiringLock held.
void freeIfDone(std::vector<Retiring>& all) {
  for (auto it = all.begin(); it != all.end();) {
    if (!it->channel->heardFromEveryPeer()) {
      ++it;
      continue;
    }
    it->channel.reset();  // withdraws its receive before the communicator goes
    MPI_Comm_free(&it->comm);
    it = all.erase(it);
  }
}

}  // namespace

void retire(MPI_Comm comm, std::unique_ptr<ControlChannel> channel) {
  std::lock_guard<std::mutex> guard(retiringLock);
  retiring().push_back(Retiring{comm, std::move(channel)});
  freeIfDone(retiring());
}

void retireWhatIsDone() {
  std::lock_guard<std::mutex> guard(retiringLock);
  freeIfDone(retiring());
}

}  // namespace hetccl
