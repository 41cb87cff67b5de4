#include "thread_ranks.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "device/host/host_device.h"
#include "thread_island.h"
#include "transport/loopback_transport.h"
#include "transport/transport_stack.h"

namespace hetccl {

std::string LinkStack::describe() const {
  std::string text = "loopback";
  if (staged) text += "+staged(" + std::to_string(stagingSlotBytes) + " B x " + std::to_string(stagingSlots) + ")";
  if (paced) text += "+paced";
  return text;
}

const std::vector<LinkStack>& allLinkStacks() {
  static const std::vector<LinkStack> stacks = [] {
    std::vector<LinkStack> all(4);
    all[1].staged = true;
    all[2].paced = true;
    all[3].staged = all[3].paced = true;
    return all;
  }();
  return stacks;
}

RankMemory::~RankMemory() {
  (void)context_.device.synchronizeStream(context_.stream);
  for (void* block : blocks_) (void)context_.device.release(block);
}

Status RankMemory::allocate(size_t bytes, char** out) {
  void* block = nullptr;
  HETCCL_TRY(context_.device.allocate(&block, bytes));
  if (block) blocks_.push_back(block);
  *out = static_cast<char*>(block);
  return Status::ok();
}

namespace {

// What the rank threads share with each other and with the thread that waits for them.
class JobState {
 public:
  JobState(int nranks, const TopologyView& topology, bool shareOneDevice)
      : fabric(std::make_shared<LoopbackFabric>(nranks)),
        sharedDevice(shareOneDevice ? makeHostDevice() : nullptr),
        islands(topology.islandCount()),
        running_(nranks, true) {
    for (int i = 0; i < topology.islandCount(); ++i)
      if (topology.hasIslandLibrary(i)) islands[i] = std::make_shared<ThreadIsland>(topology.islandSize(i));
  }

  // Records how `rank` ended; the first failure aborts everyone else's waits.
  void finish(int rank, const Status& status) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_[rank] = false;
      if (!status.isOk() && firstFailure_.isOk())
        firstFailure_ = Status(status.code(), "rank " + std::to_string(rank) + ": " + status.message());
      finished_.notify_all();
    }
    if (!status.isOk()) abortAll("rank " + std::to_string(rank) + " failed");
  }

  // Waits for every rank, or aborts the job once `limit` has passed.
  void waitFor(std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto noneRunning = [&] {
      for (bool running : running_)
        if (running) return false;
      return true;
    };
    if (finished_.wait_for(lock, limit, noneRunning)) return;
    std::string stuck;
    for (size_t r = 0; r < running_.size(); ++r)
      if (running_[r]) stuck += (stuck.empty() ? "" : ", ") + std::to_string(r);
    const std::string reason = "time limit of " + std::to_string(limit.count()) + " ms passed with rank(s) " + stuck +
                               " still running (a deadlock?)";
    if (firstFailure_.isOk()) firstFailure_ = Status(Code::Timeout, reason);
    lock.unlock();
    abortAll(reason);
  }

  Status firstFailure() {
    std::lock_guard<std::mutex> lock(mutex_);
    return firstFailure_;
  }

  const std::shared_ptr<LoopbackFabric> fabric;
  const std::unique_ptr<Device> sharedDevice;          // null: every rank makes its own
  std::vector<std::shared_ptr<ThreadIsland>> islands;  // per island; null without a library

 private:
  void abortAll(const std::string& reason) {
    fabric->abort(reason);
    for (auto& island : islands)
      if (island) island->abort();
  }

  std::mutex mutex_;
  std::condition_variable finished_;
  std::vector<bool> running_;
  Status firstFailure_;
};

// The library's own factory builds the stack, with the loopback as the wire, so the tests run
// exactly the decorators a communicator would stack on MPI.
Status buildTransport(const ThreadJob& job, const TopologyView& topology, JobState& state, int rank, Device& device,
                      std::unique_ptr<Transport>* transport) {
  TransportStackOptions options;
  options.wireName = "loopback";
  options.hostMemory = true;
  options.stage = job.links.staged;
  options.stagingSlotBytes = job.links.stagingSlotBytes;
  options.stagingSlots = job.links.stagingSlots;
  if (job.links.paced) {
    for (int peer = 0; peer < job.nranks; ++peer)
      options.linkClassOfPeer.push_back(topology.islandOf[peer] == topology.islandOf[rank] ? 0 : 1);
    options.pacing = {job.links.intraIsland, job.links.interIsland};
  }
  TransportStack stack;
  HETCCL_TRY(buildTransportStack(std::make_unique<LoopbackTransport>(state.fabric, rank), device, options, &stack));
  *transport = std::move(stack.transport);
  return Status::ok();
}

// A rank's transports, executor and island collectives, around one call of `body`.
// Declaration order is destruction order reversed: the executor and the transports release
// their device memory and streams before the caller destroys the rank's stream.
Status runBody(const ThreadJob& job, const TopologyView& topology, JobState& state, int rank, Device& device,
               StreamHandle stream, const std::function<Status(RankContext&)>& body) {
  std::unique_ptr<Transport> transport;
  HETCCL_TRY(buildTransport(job, topology, state, rank, device, &transport));
  const int island = topology.islandOf[rank];
  // Island steps run on a stream of their own, as a communicator's do (core/communicator.cpp).
  StreamHandle islandStream = nullptr;
  if (state.islands[island]) HETCCL_TRY(device.createStream(&islandStream));
  Status status = [&] {
    Executor executor(device, *transport, stream);
    std::unique_ptr<ThreadIslandCollectives> islandCollectives;
    if (state.islands[island]) {
      islandCollectives =
          std::make_unique<ThreadIslandCollectives>(state.islands[island], topology.indexInIsland[rank], device);
      executor.setIslandCollectives(islandCollectives.get(), islandStream);
    }
    RankContext context{rank, job.nranks, device, stream, *transport, executor};
    Status ran = body(context);
    // A body that failed midway may have left work on the streams: it ends before the memory
    // it touches does.
    Status drained = device.synchronizeStream(stream);
    if (islandStream && drained.isOk()) drained = device.synchronizeStream(islandStream);
    return ran.isOk() ? drained : ran;
  }();
  if (islandStream) (void)device.destroyStream(islandStream);
  return status;
}

Status runRank(const ThreadJob& job, const TopologyView& topology, JobState& state, int rank,
               const std::function<Status(RankContext&)>& body) {
  std::unique_ptr<Device> own;
  if (!state.sharedDevice) own = makeHostDevice();
  Device& device = own ? *own : *state.sharedDevice;
  StreamHandle stream = nullptr;
  HETCCL_TRY(device.createStream(&stream));
  Status status = runBody(job, topology, state, rank, device, stream, body);
  Status destroyed = device.destroyStream(stream);
  return status.isOk() ? destroyed : status;
}

}  // namespace

Status runOnThreadRanks(const ThreadJob& job, const std::function<Status(RankContext&)>& body) {
  if (job.nranks < 1) return HETCCL_STATUS(Code::InvalidArgument, "a job needs at least one rank");
  const TopologyView topology = job.topology.islandOf.empty() ? TopologyView::singleIsland(job.nranks) : job.topology;
  if (topology.nranks != job.nranks)
    return HETCCL_STATUS(Code::InvalidArgument, "the topology has %d ranks, the job %d", topology.nranks, job.nranks);
  JobState state(job.nranks, topology, job.shareOneDevice);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < job.nranks; ++rank)
    threads.emplace_back([&, rank] { state.finish(rank, runRank(job, topology, state, rank, body)); });
  state.waitFor(job.timeLimit);
  for (std::thread& thread : threads) thread.join();
  return state.firstFailure();
}

}  // namespace hetccl
