#include "core/bootstrap_mpi.h"

#include <cstring>
#include <mutex>

#include "core/rendezvous_mpi.h"
#include "transport/mpi_transport.h"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace hetccl {

namespace {

// The link probe's ping-pongs run at creation, before the control channel listens on the same
// tag: no plan uses it (their tags start at 1).
constexpr int kBootstrapTag = 0;
constexpr int kNoticeTag = 0;

Status failed(const char* call, int rc) {
  return HETCCL_STATUS(Code::SystemError, "%s failed (MPI error %d)", call, rc);
}

const char* threadLevelName(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "an unknown MPI thread level";
}

class MpiPendingExchange : public PendingExchange {
 public:
  explicit MpiPendingExchange(MPI_Request request) : request_(request) {}
  ~MpiPendingExchange() override {
    // Abandoned (an abort): a collective cannot be cancelled, so it is left to MPI.
    if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
  }
  Status test(bool* done) override {
    int finished = 0;
    if (int rc = MPI_Test(&request_, &finished, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return failed("MPI_Test", rc);
    *done = finished != 0;
    return Status::ok();
  }

 private:
  MPI_Request request_;
};

// One receive always posted on the notice tag, from any member.  The notices MPI may still be
// sending when the wire goes are left alive then (a few hundred bytes, at most twice) rather
// than freed under MPI.
class MpiNoticeWire : public NoticeWire {
 public:
  explicit MpiNoticeWire(MPI_Comm comm) : comm_(comm) {}
  ~MpiNoticeWire() override {
    if (receive_ != MPI_REQUEST_NULL) {
      MPI_Cancel(&receive_);
      MPI_Request_free(&receive_);
    }
    int sent = 1;
    if (!sends_.empty()) MPI_Testall(static_cast<int>(sends_.size()), sends_.data(), &sent, MPI_STATUSES_IGNORE);
    if (!sent) {
      for (MPI_Request& request : sends_)
        if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
      for (auto& copy : outgoing_) (void)copy.release();
    }
  }

  Status listen() override { return repost(); }

  bool take(void* notice, size_t bytes, int* from) override {
    if (receive_ == MPI_REQUEST_NULL) return false;
    int arrived = 0;
    MPI_Status status;
    if (MPI_Test(&receive_, &arrived, &status) != MPI_SUCCESS || !arrived) return false;
    receive_ = MPI_REQUEST_NULL;
    std::memcpy(notice, incoming_, std::min(bytes, sizeof incoming_));
    *from = status.MPI_SOURCE;
    (void)repost();
    return true;
  }

  void send(const void* notice, size_t bytes, const std::vector<int>& peers) override {
    std::lock_guard<std::mutex> guard(sendLock_);
    auto copy = std::make_unique<char[]>(bytes);
    std::memcpy(copy.get(), notice, bytes);
    // Fire and forget: a small message goes out eagerly, and a peer that is gone never reads it.
    for (int peer : peers) {
      MPI_Request request = MPI_REQUEST_NULL;
      if (MPI_Isend(copy.get(), static_cast<int>(bytes), MPI_BYTE, peer, kNoticeTag, comm_, &request) == MPI_SUCCESS)
        sends_.push_back(request);
    }
    outgoing_.push_back(std::move(copy));
  }

  std::vector<int> peersWithUnreceivedMessages() override {
    int size = 0, rank = 0;
    MPI_Comm_size(comm_, &size);
    MPI_Comm_rank(comm_, &rank);
    // A probe that finds nothing drives MPI's progress once, which may only then move an
    // arrived message into the queue it probes: a few rounds of any-source probes first.
    int any = 0;
    for (int round = 0; round < 4; ++round) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &any, MPI_STATUS_IGNORE);
    std::vector<int> waiting;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      int pending = 0;
      MPI_Status status;
      if (MPI_Iprobe(peer, MPI_ANY_TAG, comm_, &pending, &status) == MPI_SUCCESS && pending &&
          status.MPI_TAG != kNoticeTag)
        waiting.push_back(peer);
    }
    return waiting;
  }

 private:
  Status repost() {
    const int rc = MPI_Irecv(incoming_, sizeof incoming_, MPI_BYTE, MPI_ANY_SOURCE, kNoticeTag, comm_, &receive_);
    if (rc != MPI_SUCCESS) return failed("posting the control channel's receive", rc);
    return Status::ok();
  }

  MPI_Comm comm_;
  char incoming_[512] = {};
  MPI_Request receive_ = MPI_REQUEST_NULL;
  std::mutex sendLock_;  // the two below
  std::vector<std::unique_ptr<char[]>> outgoing_;
  std::vector<MPI_Request> sends_;
};

}  // namespace

MpiBootstrap::MpiBootstrap(MPI_Comm owned) : comm_(owned) {
  // Errors must come back to us as codes, not abort the job.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiBootstrap::~MpiBootstrap() { MPI_Comm_free(&comm_); }

Status MpiBootstrap::duplicate(MPI_Comm userComm, std::unique_ptr<Bootstrap>* bootstrap) {
  MPI_Comm comm = MPI_COMM_NULL;
  if (int rc = MPI_Comm_dup(userComm, &comm); rc != MPI_SUCCESS) return failed("MPI_Comm_dup", rc);
  bootstrap->reset(new MpiBootstrap(comm));
  return Status::ok();
}

Status MpiBootstrap::createGroup(const std::vector<int>& jobRanks, int tag, std::unique_ptr<Bootstrap>* bootstrap) {
  MPI_Group job = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
  if (int rc = MPI_Comm_group(jobChannel(), &job); rc != MPI_SUCCESS) return failed("MPI_Comm_group", rc);
  int rc = MPI_Group_incl(job, static_cast<int>(jobRanks.size()), jobRanks.data(), &members);
  MPI_Group_free(&job);
  if (rc != MPI_SUCCESS) return failed("MPI_Group_incl", rc);
  MPI_Comm comm = MPI_COMM_NULL;
  rc = MPI_Comm_create_group(jobChannel(), members, tag, &comm);
  MPI_Group_free(&members);
  if (rc != MPI_SUCCESS) return failed("MPI_Comm_create_group", rc);
  bootstrap->reset(new MpiBootstrap(comm));
  return Status::ok();
}

int mpiJobRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int mpiJobSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

Status checkMpiRunning() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised)
    return HETCCL_STATUS(Code::InvalidUsage,
                         "MPI is not initialised (call MPI_Init first; every process must be a "
                         "rank of an MPI job, started by mpirun or srun)");
  return Status::ok();
}

int MpiBootstrap::jobRank() const { return mpiJobRank(); }
int MpiBootstrap::jobSize() const { return mpiJobSize(); }

Status MpiBootstrap::allGather(const void* mine, size_t bytes, void* all) {
  const int n = static_cast<int>(bytes);
  if (int rc = MPI_Allgather(mine, n, MPI_BYTE, all, n, MPI_BYTE, comm_); rc != MPI_SUCCESS)
    return failed("MPI_Allgather", rc);
  return Status::ok();
}

Status MpiBootstrap::startAllGather(const void* mine, size_t bytes, void* all,
                                    std::unique_ptr<PendingExchange>* pending) {
  const int n = static_cast<int>(bytes);
  MPI_Request request = MPI_REQUEST_NULL;
  if (int rc = MPI_Iallgather(mine, n, MPI_BYTE, all, n, MPI_BYTE, comm_, &request); rc != MPI_SUCCESS)
    return failed("MPI_Iallgather", rc);
  *pending = std::make_unique<MpiPendingExchange>(request);
  return Status::ok();
}

Status MpiBootstrap::broadcast(void* data, size_t bytes, int root) {
  if (int rc = MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_); rc != MPI_SUCCESS)
    return failed("MPI_Bcast", rc);
  return Status::ok();
}

Status MpiBootstrap::barrier() {
  if (int rc = MPI_Barrier(comm_); rc != MPI_SUCCESS) return failed("MPI_Barrier", rc);
  return Status::ok();
}

Status MpiBootstrap::split(int color, int key, std::unique_ptr<Bootstrap>* part) {
  part->reset();
  MPI_Comm comm = MPI_COMM_NULL;
  if (int rc = MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &comm); rc != MPI_SUCCESS)
    return failed("MPI_Comm_split", rc);
  if (comm != MPI_COMM_NULL) part->reset(new MpiBootstrap(comm));
  return Status::ok();
}

Status MpiBootstrap::send(const void* data, size_t bytes, int peer) {
  if (int rc = MPI_Send(data, static_cast<int>(bytes), MPI_BYTE, peer, kBootstrapTag, comm_); rc != MPI_SUCCESS)
    return failed("MPI_Send", rc);
  return Status::ok();
}

Status MpiBootstrap::recv(void* data, size_t bytes, int peer) {
  const int rc = MPI_Recv(data, static_cast<int>(bytes), MPI_BYTE, peer, kBootstrapTag, comm_, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return failed("MPI_Recv", rc);
  return Status::ok();
}

std::unique_ptr<Transport> MpiBootstrap::makeWire(size_t maxMessageBytes) {
  return std::make_unique<MpiTransport>(comm_, maxMessageBytes);
}

// Asked of the MPI for the member's own kind of device: Open MPI's extensions (CUDA; ROCm
// from Open MPI 5), MPICH's MPIX_GPU_query_support (from 4.0).  Compiled-in support alone is
// not enough: the queries answer for the run (UCX or the CUDA/ROCm components may be missing
// at run time).
std::string MpiBootstrap::nodeName() const {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  if (MPI_Get_processor_name(name, &length) != MPI_SUCCESS) return "";
  return std::string(name, static_cast<size_t>(length));
}

bool MpiBootstrap::wireReadsDeviceMemory(const std::string& deviceKind) {
  int aware = 0;
  if (deviceKind == "cuda") {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    aware = MPIX_Query_cuda_support();
#elif defined(MPIX_GPU_SUPPORT_CUDA)
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &aware) != MPI_SUCCESS) aware = 0;
#endif
  } else if (deviceKind == "hip") {
#if defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
    aware = MPIX_Query_rocm_support();
#elif defined(MPIX_GPU_SUPPORT_HIP)
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &aware) != MPI_SUCCESS) aware = 0;
#endif
  }
  return aware != 0;
}

std::unique_ptr<NoticeWire> MpiBootstrap::makeNoticeWire() { return std::make_unique<MpiNoticeWire>(comm_); }

bool MpiBootstrap::allowsConcurrentCalls(std::string* level) const {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  *level = threadLevelName(provided);
  return provided == MPI_THREAD_MULTIPLE;
}

}  // namespace hetccl
