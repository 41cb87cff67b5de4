#include "core/thread_job.h"

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/bootstrap_threads.h"
#include "core/communicator.h"

namespace hetccl {

std::string runOnCommunicators(int nranks, const hetcclConfig_t* config,
                               const std::function<std::string(ThreadRank& self)>& body, double timeoutSeconds) {
  std::vector<std::unique_ptr<Bootstrap>> members = makeThreadBootstraps(nranks, timeoutSeconds);
  std::mutex lock;
  std::string failures;
  auto fail = [&](int rank, const std::string& what) {
    std::lock_guard<std::mutex> guard(lock);
    failures += "rank " + std::to_string(rank) + ": " + what + "\n";
  };
  std::vector<std::thread> threads;
  for (int rank = 0; rank < nranks; ++rank)
    threads.emplace_back([&, rank] {
      ThreadRank self;
      self.rank = rank;
      const Status made = createCommunicator(std::move(members[static_cast<size_t>(rank)]), config, &self.comm);
      if (!made.isOk()) return fail(rank, "creation: " + made.message());
      if (hetcclStreamCreate(&self.stream) != hetcclSuccess) fail(rank, "no stream");
      std::string failed = self.stream ? body(self) : "";
      if (!failed.empty()) fail(rank, failed);
      if (self.comm && hetcclCommDestroy(self.comm) != hetcclSuccess)
        fail(rank, std::string("destroy: ") + hetcclGetLastError(nullptr));
      if (self.stream) (void)hetcclStreamDestroy(self.stream);
    });
  for (std::thread& thread : threads) thread.join();
  return failures;
}

}  // namespace hetccl
