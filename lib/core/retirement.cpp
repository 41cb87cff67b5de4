#include "core/retirement.h"

#include <mutex>
#include <utility>
#include <vector>

namespace hetccl {

namespace {

struct Kept {
  std::unique_ptr<Bootstrap> members;
  std::unique_ptr<ControlChannel> channel;
};

}  // namespace

void retire(std::unique_ptr<Bootstrap> members, std::unique_ptr<ControlChannel> channel) {
  if (channel->quiet()) {
    channel.reset();  // withdraws its receive before the communicator goes
    members.reset();
    return;
  }
  static std::mutex keptLock;
  // Never destroyed: nothing may call MPI after MPI_Finalize.
  static auto* kept = new std::vector<Kept>();
  std::lock_guard<std::mutex> guard(keptLock);
  kept->push_back(Kept{std::move(members), std::move(channel)});
}

}  // namespace hetccl
