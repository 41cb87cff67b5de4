#include "thread_communicators.h"

#include <memory>
#include <mutex>
#include <thread>

#include "core/bootstrap_threads.h"
#include "core/communicator.h"

namespace hetccl {

std::string runOnCommunicators(int nranks, const hetcclConfig_t* config,
                               const std::function<std::string(ThreadRank& self)>& body) {
  std::vector<std::unique_ptr<Bootstrap>> members = makeThreadBootstraps(nranks, 60);
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

ScopedSetting::ScopedSetting(const char* name, const std::string& value) : name_(name) {
  if (const char* old = std::getenv(name)) {
    hadValue_ = true;
    oldValue_ = old;
  }
  setenv(name, value.c_str(), 1);
}

ScopedSetting::~ScopedSetting() {
  if (hadValue_)
    setenv(name_.c_str(), oldValue_.c_str(), 1);
  else
    unsetenv(name_.c_str());
}

std::string toDevice(const std::vector<int>& values, void** device) {
  const size_t bytes = values.size() * sizeof(int);
  if (hetcclMemAlloc(device, bytes) != hetcclSuccess)
    return std::string("hetcclMemAlloc: ") + hetcclGetLastError(nullptr);
  if (hetcclMemcpyToDevice(*device, values.data(), bytes) != hetcclSuccess)
    return std::string("hetcclMemcpyToDevice: ") + hetcclGetLastError(nullptr);
  return "";
}

std::string fromDevice(const void* device, size_t count, std::vector<int>* values) {
  values->assign(count, 0);
  if (hetcclMemcpyFromDevice(values->data(), device, count * sizeof(int)) != hetcclSuccess)
    return std::string("hetcclMemcpyFromDevice: ") + hetcclGetLastError(nullptr);
  return "";
}

}  // namespace hetccl
