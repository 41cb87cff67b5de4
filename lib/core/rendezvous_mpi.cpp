#include "core/rendezvous_mpi.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/log.h"
#include "core/bootstrap_mpi.h"

namespace hetccl {
namespace {

// The rendezvous's tags on the job channel; MPI_Comm_create_group's start above them.
constexpr int kHelloTag = 1;
constexpr int kAnswerTag = 2;
constexpr int kFirstCreationTag = 16;

struct Hello {
  uint64_t token;
  int32_t nranks;
  int32_t rank;
  int32_t jobRank;
  int32_t jobSize;
};

// The maker's answer: a failure (code != 0, then `message`), or `count` job ranks after it.
struct AnswerHeader {
  uint64_t token;
  int32_t code;
  int32_t count;
  char message[256];
};

struct Answer {
  Status status;
  std::vector<int> jobRanks;
};

MPI_Comm channel = MPI_COMM_NULL;
std::mutex channelLock;

Status mpiFailed(const char* call, int rc) {
  return HETCCL_STATUS(Code::SystemError, "%s on hetccl's job channel failed (MPI error %d)", call, rc);
}

// What has arrived on the job channel for the rendezvous, by token: every waiting thread
// drains the channel into it (under the lock) and takes what is its own, so that a maker
// meeting two groups at once, or a member waiting for two answers, never takes another's.
class Inbox {
 public:
  static Inbox& get() {
    static Inbox inbox;
    return inbox;
  }

  // Files whatever has arrived on the rendezvous's tags.
  Status pump() {
    std::lock_guard<std::mutex> guard(lock_);
    for (int tag : {kHelloTag, kAnswerTag}) {
      for (;;) {
        int arrived = 0;
        MPI_Message message;
        MPI_Status status;
        if (int rc = MPI_Improbe(MPI_ANY_SOURCE, tag, jobChannel(), &arrived, &message, &status); rc != MPI_SUCCESS)
          return mpiFailed("MPI_Improbe", rc);
        if (!arrived) break;
        int bytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        std::vector<char> data(static_cast<size_t>(bytes));
        if (int rc = MPI_Mrecv(data.data(), bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
          return mpiFailed("MPI_Mrecv", rc);
        if (tag == kHelloTag)
          fileHello(data);
        else
          fileAnswer(data);
      }
    }
    return Status::ok();
  }

  std::vector<Hello> hellos(uint64_t token) {
    std::lock_guard<std::mutex> guard(lock_);
    auto found = hellos_.find(token);
    return found == hellos_.end() ? std::vector<Hello>{} : found->second;
  }
  void forgetHellos(uint64_t token) {
    std::lock_guard<std::mutex> guard(lock_);
    hellos_.erase(token);
  }
  bool takeAnswer(uint64_t token, Answer* answer) {
    std::lock_guard<std::mutex> guard(lock_);
    auto found = answers_.find(token);
    if (found == answers_.end()) return false;
    *answer = std::move(found->second);
    answers_.erase(found);
    return true;
  }

 private:
  void fileHello(const std::vector<char>& data) {
    if (data.size() != sizeof(Hello)) return;  // not from this hetccl: ignored
    Hello hello;
    std::memcpy(&hello, data.data(), sizeof hello);
    hellos_[hello.token].push_back(hello);
  }
  void fileAnswer(const std::vector<char>& data) {
    if (data.size() < sizeof(AnswerHeader)) return;
    AnswerHeader header;
    std::memcpy(&header, data.data(), sizeof header);
    Answer answer;
    if (header.code != 0) {
      header.message[sizeof header.message - 1] = '\0';
      answer.status = Status(static_cast<Code>(header.code), header.message);
    } else if (data.size() == sizeof header + sizeof(int) * size_t(header.count)) {
      answer.jobRanks.resize(static_cast<size_t>(header.count));
      std::memcpy(answer.jobRanks.data(), data.data() + sizeof header, sizeof(int) * answer.jobRanks.size());
    } else {
      answer.status = HETCCL_STATUS(Code::InternalError, "a rendezvous answer of %zu bytes for %d ranks", data.size(),
                                    header.count);
    }
    answers_[header.token] = std::move(answer);
  }

  std::mutex lock_;
  std::map<uint64_t, std::vector<Hello>> hellos_;
  std::map<uint64_t, Answer> answers_;
};

// Sends `bytes` and waits for the send (the answers and hellos are small: MPI sends them
// eagerly, so this does not wait for the receiver).
Status sendAndWait(const void* data, size_t bytes, int jobRank, int tag) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (int rc = MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, jobRank, tag, jobChannel(), &request);
      rc != MPI_SUCCESS)
    return mpiFailed("MPI_Isend", rc);
  if (int rc = MPI_Wait(&request, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return mpiFailed("MPI_Wait", rc);
  return Status::ok();
}

Status answer(const Hello& to, const Status& outcome, const std::vector<int>& jobRanks) {
  AnswerHeader header{};
  header.token = to.token;
  header.code = outcome.isOk() ? 0 : static_cast<int32_t>(outcome.code());
  header.count = outcome.isOk() ? static_cast<int32_t>(jobRanks.size()) : 0;
  std::snprintf(header.message, sizeof header.message, "%s", outcome.message().c_str());
  std::vector<char> data(sizeof header + sizeof(int) * size_t(header.count));
  std::memcpy(data.data(), &header, sizeof header);
  if (header.count) std::memcpy(data.data() + sizeof header, jobRanks.data(), sizeof(int) * jobRanks.size());
  return sendAndWait(data.data(), data.size(), to.jobRank, kAnswerTag);
}

// The maker's part: whether the arrivals (with its own) make a whole, consistent group.
Status checkArrivals(const std::vector<Hello>& arrived, int nranks, std::vector<int>* jobRanks) {
  jobRanks->assign(static_cast<size_t>(nranks), -1);
  for (const Hello& hello : arrived) {
    if (hello.nranks != nranks)
      return HETCCL_STATUS(Code::InvalidArgument,
                           "the members of one unique id disagree on nranks: %d (job rank %d) and %d (the id's maker, "
                           "job rank %d)",
                           hello.nranks, hello.jobRank, nranks, mpiJobRank());
    if (hello.rank < 0 || hello.rank >= nranks || (*jobRanks)[size_t(hello.rank)] != -1)
      return HETCCL_STATUS(Code::InvalidArgument,
                           "rank %d of one unique id is given by two processes (job ranks %d and %d)", hello.rank,
                           (*jobRanks)[size_t(hello.rank)], hello.jobRank);
    (*jobRanks)[size_t(hello.rank)] = hello.jobRank;
  }
  return Status::ok();
}

// Polls `ready` (which pumps the inbox) with a back-off from spinning to 1 ms naps, until it
// answers true or fails, `stopped` answers true or the time runs out (`what` says what was
// waited for, for the timeout's message).
Status pollUntil(const std::function<Status(bool*)>& ready, const std::function<bool()>& stopped, double timeoutSeconds,
                 const std::function<std::string()>& what) {
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0;; ++round) {
    bool done = false;
    HETCCL_TRY(Inbox::get().pump());
    HETCCL_TRY(ready(&done));
    if (done) return Status::ok();
    if (stopped && stopped()) return HETCCL_STATUS(Code::Aborted, "the communicator was aborted while being created");
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeoutSeconds > 0 && waited > timeoutSeconds)
      return HETCCL_STATUS(Code::Timeout, "%s after %.0f s (HETCCL_TIMEOUT)", what().c_str(), waited);
    if (round < 100)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(round < 1000 ? 20 : 1000));
  }
}

}  // namespace

Status ensureJobChannel(const char* why) {
  std::lock_guard<std::mutex> guard(channelLock);
  if (channel != MPI_COMM_NULL) return Status::ok();
  HETCCL_TRY(checkMpiRunning());
  if (std::strcmp(why, "hetcclJobInit") != 0)
    HETCCL_WARN(
        "hetccl's job channel is made by %s, not when MPI started: every process of the job must reach this call "
        "(call hetcclJobInit right after MPI_Init, or use the NCCL drop-in, which does)",
        why);
  MPI_Comm made = MPI_COMM_NULL;
  if (int rc = MPI_Comm_dup(MPI_COMM_WORLD, &made); rc != MPI_SUCCESS)
    return HETCCL_STATUS(Code::SystemError, "MPI_Comm_dup(MPI_COMM_WORLD) failed (MPI error %d)", rc);
  MPI_Comm_set_errhandler(made, MPI_ERRORS_RETURN);
  channel = made;
  return Status::ok();
}

MPI_Comm jobChannel() { return channel; }

int creationTag(const UniqueIdContents& id) {
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
  // MPI guarantees at least 32767.
  const uint64_t upperBound = found ? uint64_t(*static_cast<int*>(value)) : 32767;
  return kFirstCreationTag + int(id.token % (upperBound - kFirstCreationTag));
}

Status meetMembers(const UniqueIdContents& id, int nranks, int rank, const std::function<bool()>& stopped,
                   double timeoutSeconds, std::vector<int>* jobRanks) {
  const int myJobRank = mpiJobRank();
  const int jobSize = mpiJobSize();
  if (id.jobSize != jobSize)
    return HETCCL_STATUS(Code::InvalidArgument,
                         "the unique id was made in a job of %d processes, this one has %d (an id from another job?)",
                         id.jobSize, jobSize);
  if (nranks == 1) {
    if (id.makerJobRank != myJobRank)
      return HETCCL_STATUS(Code::InvalidArgument,
                           "a communicator of 1 rank must be made by the id's maker (job rank %d), not job rank %d",
                           id.makerJobRank, myJobRank);
    *jobRanks = {myJobRank};
    return Status::ok();
  }
  Inbox& inbox = Inbox::get();
  if (id.makerJobRank == myJobRank) {
    // The maker: waits for the nranks - 1 others, checks them with itself, answers each.
    const Hello self{id.token, nranks, rank, myJobRank, jobSize};
    std::vector<Hello> arrived;
    Status verdict;
    Status waited = pollUntil(
        [&](bool* done) {
          arrived = inbox.hellos(id.token);
          arrived.push_back(self);
          // A disagreement is final as soon as it shows; a whole group waits for everyone.
          verdict = checkArrivals(arrived, nranks, jobRanks);
          *done = !verdict.isOk() || arrived.size() >= size_t(nranks);
          return Status::ok();
        },
        stopped, timeoutSeconds,
        [&] {
          return "only " + std::to_string(arrived.size()) + " of the " + std::to_string(nranks) +
                 " members of this unique id arrived at its maker";
        });
    inbox.forgetHellos(id.token);
    const Status outcome = waited.isOk() ? verdict : waited;
    for (const Hello& member : arrived)
      if (member.jobRank != myJobRank) HETCCL_TRY(answer(member, outcome, *jobRanks));
    return outcome;
  }
  // A member: says hello to the maker and waits for its answer.
  const Hello hello{id.token, nranks, rank, myJobRank, jobSize};
  HETCCL_TRY(sendAndWait(&hello, sizeof hello, id.makerJobRank, kHelloTag));
  Answer reply;
  HETCCL_TRY(pollUntil(
      [&](bool* done) {
        *done = inbox.takeAnswer(id.token, &reply);
        return Status::ok();
      },
      stopped, timeoutSeconds,
      [&] {
        return "no answer from the unique id's maker (job rank " + std::to_string(id.makerJobRank) +
               "), which must be one of the members, for rank " + std::to_string(rank) + " of " +
               std::to_string(nranks);
      }));
  HETCCL_TRY(reply.status);
  if (reply.jobRanks.size() != size_t(nranks))
    return HETCCL_STATUS(Code::InternalError, "the maker answered %zu ranks for %d", reply.jobRanks.size(), nranks);
  *jobRanks = std::move(reply.jobRanks);
  return Status::ok();
}

}  // namespace hetccl
