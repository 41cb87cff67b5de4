#include "core/bootstrap_threads.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "transport/loopback_transport.h"

namespace hetccl {

namespace {

using Clock = std::chrono::steady_clock;

// What the members of one group share.  Collectives are numbered per member (every member
// calls them in the same order), and round n collects every member's part of collective n.
struct ThreadGroup {
  ThreadGroup(std::vector<int> jobRanksOfMembers, int jobSizeOfAll, double timeout)
      : jobRanks(std::move(jobRanksOfMembers)),
        jobSize(jobSizeOfAll),
        timeoutSeconds(timeout),
        wire(std::make_shared<LoopbackFabric>(size())),
        pointToPoint(std::make_shared<LoopbackFabric>(size())),
        inbox(static_cast<size_t>(size())) {}
  int size() const { return static_cast<int>(jobRanks.size()); }

  struct Round {
    std::vector<std::vector<char>> parts;
    int arrived = 0;
    int left = 0;
    // A split's parts, by color, made once by the first member to collect the round.
    std::map<int, std::shared_ptr<ThreadGroup>> splitParts;
    bool splitDone = false;
  };
  struct Notice {
    int from;
    std::vector<char> bytes;
  };

  const std::vector<int> jobRanks;  // each member's rank in the whole job
  const int jobSize;
  const double timeoutSeconds;
  const std::shared_ptr<LoopbackFabric> wire;          // the plans' messages
  const std::shared_ptr<LoopbackFabric> pointToPoint;  // the bootstrap's own send and recv
  std::mutex mutex;                                    // everything below
  std::condition_variable changed;
  std::map<uint64_t, Round> rounds;
  std::vector<std::deque<Notice>> inbox;
};

// Under the group's lock: member `rank`'s part of `round`.
void deposit(ThreadGroup& group, uint64_t round, int rank, const void* mine, size_t bytes) {
  ThreadGroup::Round& r = group.rounds[round];
  if (r.parts.empty()) r.parts.resize(static_cast<size_t>(group.size()));
  const char* begin = static_cast<const char*>(mine);
  r.parts[static_cast<size_t>(rank)].assign(begin, begin + bytes);
  if (++r.arrived == group.size()) group.changed.notify_all();
}

// Under the group's lock, once every part has arrived (or, with all == nullptr, to abandon it):
// this member is done with `round`; the last one to leave frees it.
void leave(ThreadGroup& group, uint64_t round, void* all, size_t bytes) {
  ThreadGroup::Round& r = group.rounds[round];
  if (all)
    for (size_t member = 0; member < r.parts.size(); ++member)
      std::memcpy(static_cast<char*>(all) + member * bytes, r.parts[member].data(),
                  std::min(bytes, r.parts[member].size()));
  if (++r.left == group.size()) group.rounds.erase(round);
}

Status waitForAll(ThreadGroup& group, std::unique_lock<std::mutex>& lock, uint64_t round, const char* what) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(group.timeoutSeconds);
  const bool complete =
      group.changed.wait_until(lock, deadline, [&] { return group.rounds[round].arrived == group.size(); });
  if (!complete)
    return HETCCL_STATUS(Code::Timeout, "%s of %d threads: only %d arrived within %.0f s", what, group.size(),
                         group.rounds[round].arrived, group.timeoutSeconds);
  return Status::ok();
}

class ThreadPendingExchange : public PendingExchange {
 public:
  ThreadPendingExchange(std::shared_ptr<ThreadGroup> group, uint64_t round, void* all, size_t bytes)
      : group_(std::move(group)), round_(round), all_(all), bytes_(bytes) {}
  ~ThreadPendingExchange() override {
    if (collected_) return;
    std::lock_guard<std::mutex> guard(group_->mutex);
    leave(*group_, round_, nullptr, 0);  // abandoned (an abort): the others still finish it
  }
  Status test(bool* done) override {
    std::lock_guard<std::mutex> guard(group_->mutex);
    *done = collected_ || group_->rounds[round_].arrived == group_->size();
    if (*done && !collected_) {
      leave(*group_, round_, all_, bytes_);
      collected_ = true;
    }
    return Status::ok();
  }

 private:
  std::shared_ptr<ThreadGroup> group_;
  uint64_t round_;
  void* all_;
  size_t bytes_;
  bool collected_ = false;
};

class ThreadNoticeWire : public NoticeWire {
 public:
  ThreadNoticeWire(std::shared_ptr<ThreadGroup> group, int rank) : group_(std::move(group)), rank_(rank) {}
  Status listen() override { return Status::ok(); }  // the in-box keeps what came before
  bool take(void* notice, size_t bytes, int* from) override {
    std::lock_guard<std::mutex> guard(group_->mutex);
    auto& mine = group_->inbox[static_cast<size_t>(rank_)];
    if (mine.empty()) return false;
    const ThreadGroup::Notice& first = mine.front();
    std::memcpy(notice, first.bytes.data(), std::min(bytes, first.bytes.size()));
    *from = first.from;
    mine.pop_front();
    return true;
  }
  void send(const void* notice, size_t bytes, const std::vector<int>& peers) override {
    const char* begin = static_cast<const char*>(notice);
    std::lock_guard<std::mutex> guard(group_->mutex);
    for (int peer : peers)
      group_->inbox[static_cast<size_t>(peer)].push_back({rank_, std::vector<char>(begin, begin + bytes)});
  }
  std::vector<int> peersWithUnreceivedMessages() override { return group_->wire->sourcesWaitingFor(rank_); }

 private:
  std::shared_ptr<ThreadGroup> group_;
  int rank_;
};

class ThreadBootstrap : public Bootstrap {
 public:
  ThreadBootstrap(std::shared_ptr<ThreadGroup> group, int rank) : group_(std::move(group)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  int jobRank() const override { return group_->jobRanks[static_cast<size_t>(rank_)]; }
  int jobSize() const override { return group_->jobSize; }
  std::string describe() const override { return "threads"; }

  Status allGather(const void* mine, size_t bytes, void* all) override {
    std::unique_lock<std::mutex> lock(group_->mutex);
    const uint64_t round = nextRound_++;
    deposit(*group_, round, rank_, mine, bytes);
    HETCCL_TRY(waitForAll(*group_, lock, round, "an all-gather"));
    leave(*group_, round, all, bytes);
    return Status::ok();
  }

  Status startAllGather(const void* mine, size_t bytes, void* all, std::unique_ptr<PendingExchange>* pending) override {
    std::lock_guard<std::mutex> guard(group_->mutex);
    const uint64_t round = nextRound_++;
    deposit(*group_, round, rank_, mine, bytes);
    *pending = std::make_unique<ThreadPendingExchange>(group_, round, all, bytes);
    return Status::ok();
  }

  Status broadcast(void* data, size_t bytes, int root) override {
    std::vector<char> all(bytes * static_cast<size_t>(size()));
    HETCCL_TRY(allGather(data, bytes, all.data()));
    std::memcpy(data, all.data() + static_cast<size_t>(root) * bytes, bytes);
    return Status::ok();
  }

  Status barrier() override {
    char none = 0;
    std::vector<char> all(static_cast<size_t>(size()));
    return allGather(&none, 1, all.data());
  }

  Status split(int color, int key, std::unique_ptr<Bootstrap>* part) override {
    part->reset();
    const int mine[2] = {color, key};
    std::unique_lock<std::mutex> lock(group_->mutex);
    const uint64_t round = nextRound_++;
    deposit(*group_, round, rank_, mine, sizeof mine);
    HETCCL_TRY(waitForAll(*group_, lock, round, "a split"));
    ThreadGroup::Round& r = group_->rounds[round];
    if (!r.splitDone) makeParts(r);
    if (color >= 0) {
      const std::shared_ptr<ThreadGroup>& made = r.splitParts.at(color);
      const auto at = std::find(made->jobRanks.begin(), made->jobRanks.end(), jobRank());
      part->reset(new ThreadBootstrap(made, static_cast<int>(at - made->jobRanks.begin())));
    }
    leave(*group_, round, nullptr, 0);
    return Status::ok();
  }

  Status send(const void* data, size_t bytes, int peer) override {
    LoopbackTransport wire(group_->pointToPoint, rank_);
    std::unique_ptr<Transfer> transfer;
    HETCCL_TRY(wire.postSend(data, bytes, peer, 0, &transfer));
    return finish(*transfer, "a send");
  }

  Status recv(void* data, size_t bytes, int peer) override {
    LoopbackTransport wire(group_->pointToPoint, rank_);
    std::unique_ptr<Transfer> transfer;
    HETCCL_TRY(wire.postRecv(data, bytes, peer, 0, &transfer));
    return finish(*transfer, "a receive");
  }

  double seconds() const override { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

  std::unique_ptr<Transport> makeWire(size_t) override {
    return std::make_unique<LoopbackTransport>(group_->wire, rank_);
  }
  const char* wireName() const override { return "loopback"; }
  // The loopback fabric copies with memcpy: memory the host cannot read goes through staging.
  bool wireReadsDeviceMemory(const std::string&) override { return false; }
  std::unique_ptr<NoticeWire> makeNoticeWire() override { return std::make_unique<ThreadNoticeWire>(group_, rank_); }
  bool allowsConcurrentCalls(std::string* level) const override {
    *level = "threads of one process";
    return true;
  }

 private:
  // Under the lock, once: every part of the split, its members ranked by (key, rank).
  void makeParts(ThreadGroup::Round& r) {
    std::map<int, std::vector<std::pair<int, int>>> byColor;  // color: (key, rank)
    for (int member = 0; member < group_->size(); ++member) {
      int entry[2];
      std::memcpy(entry, r.parts[static_cast<size_t>(member)].data(), sizeof entry);
      if (entry[0] >= 0) byColor[entry[0]].push_back({entry[1], member});
    }
    for (auto& [partColor, members] : byColor) {
      std::sort(members.begin(), members.end());
      std::vector<int> jobRanks;
      for (const auto& [memberKey, member] : members) jobRanks.push_back(group_->jobRanks[static_cast<size_t>(member)]);
      r.splitParts[partColor] =
          std::make_shared<ThreadGroup>(std::move(jobRanks), group_->jobSize, group_->timeoutSeconds);
    }
    r.splitDone = true;
  }

  Status finish(Transfer& transfer, const char* what) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(group_->timeoutSeconds);
    for (bool done = false;;) {
      HETCCL_TRY(transfer.test(&done));
      if (done) return Status::ok();
      if (Clock::now() > deadline)
        return HETCCL_STATUS(Code::Timeout, "%s between threads did not complete within %.0f s", what,
                             group_->timeoutSeconds);
      std::this_thread::yield();
    }
  }

  std::shared_ptr<ThreadGroup> group_;
  int rank_;
  uint64_t nextRound_ = 0;  // under the group's lock
};

}  // namespace

std::vector<std::unique_ptr<Bootstrap>> makeThreadBootstraps(int nranks, double timeoutSeconds) {
  std::vector<int> jobRanks(static_cast<size_t>(nranks));
  for (int r = 0; r < nranks; ++r) jobRanks[static_cast<size_t>(r)] = r;
  auto group = std::make_shared<ThreadGroup>(jobRanks, nranks, timeoutSeconds);
  std::vector<std::unique_ptr<Bootstrap>> members;
  for (int r = 0; r < nranks; ++r) members.push_back(std::make_unique<ThreadBootstrap>(group, r));
  return members;
}

}  // namespace hetccl
