// The torch.distributed backend "hetccl": one hetccl communicator per torch group, over the
// MPI communicator of the group's members (mpi_launch.h).  Every operation is enqueued on a
// hetccl stream and returns a Work at once; the group's completion thread completes the Works
// in order as the stream passes them, so Python (and DDP's backward pass) goes on while
// hetccl's progress thread moves the data.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "completion_thread.h"
#include "hetccl/hetccl.h"
#include "send_notices.h"
#include "torch_version.h"
#include "work.h"

namespace hetccl_torch {

class HetcclProcessGroup : public BackendBase {
 public:
  HetcclProcessGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                     std::chrono::milliseconds timeout);
  ~HetcclProcessGroup() override;

  const std::string getBackendName() const override { return "hetccl"; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts = c10d::BroadcastOptions()) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts = c10d::AllreduceOptions()) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors,
      const c10d::AllreduceCoalescedOptions& opts = c10d::AllreduceCoalescedOptions()) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts = c10d::ReduceOptions()) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                           std::vector<at::Tensor>& inputTensors,
                                           const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(
      at::Tensor& outputBuffer, at::Tensor& inputBuffer,
      const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(
      std::vector<at::Tensor>& outputTensors, std::vector<std::vector<at::Tensor>>& inputTensors,
      const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& outputBuffer, at::Tensor& inputBuffer,
      const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& outputBuffer, at::Tensor& inputBuffer,
                                               std::vector<int64_t>& outputSplitSizes,
                                               std::vector<int64_t>& inputSplitSizes,
                                               const c10d::AllToAllOptions& opts = c10d::AllToAllOptions()) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputTensors, std::vector<at::Tensor>& inputTensors,
                                          const c10d::AllToAllOptions& opts = c10d::AllToAllOptions()) override;
  // One all-gather per input tensor, launched as one hetccl group: the tensors may differ in
  // size and dtype, as long as every rank passes the same list.
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(
      std::vector<std::vector<at::Tensor>>& outputTensorLists, std::vector<at::Tensor>& inputTensors,
      const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                        std::vector<at::Tensor>& inputTensors,
                                        const c10d::GatherOptions& opts = c10d::GatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputTensors,
                                         std::vector<std::vector<at::Tensor>>& inputTensors,
                                         const c10d::ScatterOptions& opts = c10d::ScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dstRank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int srcRank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts = c10d::BarrierOptions()) override;

#if TORCH_VERSION_MAJOR < 2
  // batch_isend_irecv's bracket in 1.x: the sends and receives between are launched as one
  // group.  (2.x changed these hooks' signatures; there the first wait launches them.)
  void startCoalescing() override {}
  void endCoalescing(std::vector<c10::intrusive_ptr<c10d::Work>>& works) override { flushAll(); }
#endif

  // Launches the sends and receives held back so far as one hetccl group (below).  A receive
  // from any source first takes its send's notice (send_notices.h), which tells it its peer.
  //   kReady    launches the transfers before the first receive whose notice has not come;
  //   kThrough  waits until `deadline` for the notices up to `target`'s transfer (the Work
  //             being waited for), then as kReady;
  //   kAll      waits for every notice; the receives whose notice has not come by `deadline`
  //             fail (flushAll: before another operation, within the group's timeout).
  enum class Flush { kReady, kThrough, kAll };
  void flushTransfers(Flush how, const HetcclWork* target, std::chrono::steady_clock::time_point deadline);
  void flushAll();

  // hetccl's name for the algorithm of the last operation ("hier", "native:nccl", ...).
  std::string lastAlgorithm();
  // Completes the queued Works and frees the communicator (aborting it if an operation
  // failed); operations afterwards throw.  Also run at interpreter exit, before MPI_Finalize.
  void shutdown();

 private:
  // Enqueues one operation (`enqueue` makes the hetccl calls on `stream`) and returns its Work.
  c10::intrusive_ptr<c10d::Work> launch(const char* operation, c10d::OpType type, hetcclStream_t stream,
                                        std::vector<at::Tensor> outputs, std::vector<at::Tensor> keepAlive,
                                        const std::function<hetcclResult_t()>& enqueue,
                                        std::function<void()> afterCompletion = {});
  // The stream operations on `tensor` are ordered on: the group's own for CPU tensors.
  hetcclStream_t streamFor(const at::Tensor& tensor);
  // Sends and receives of one group call, each (tensor part, peer); counts of 0 are skipped.
  struct Transfer {
    at::Tensor tensor;
    int peer;
    bool isSend;
    std::shared_ptr<SendNotices::Expected> notice = {};  // a torch receive's (held transfers only)
  };
  // Enqueues the calls `enqueue` makes, without flushing held-back transfers first.
  c10::intrusive_ptr<HetcclWork> launchNow(const char* operation, c10d::OpType type, hetcclStream_t stream,
                                           std::vector<at::Tensor> outputs, std::vector<at::Tensor> keepAlive,
                                           const std::function<hetcclResult_t()>& enqueue,
                                           std::function<void()> afterCompletion);
  // Makes the hetccl calls of a group of transfers (on the calling thread, now).
  hetcclResult_t enqueueTransfers(const std::vector<Transfer>& transfers, hetcclStream_t stream);
  // send and recv: held back (see flushTransfers) until a Work is waited for, another
  // operation is launched, or batch_isend_irecv ends.  Separate sends and receives on one
  // stream would otherwise deadlock as soon as two ranks send to each other first (a ring of
  // isend/irecv): a large send completes only once its receive is posted.
  // `peer` is SendNotices::kAnyRank for a receive from any source.
  c10::intrusive_ptr<c10d::Work> holdTransfer(const char* operation, c10d::OpType type, at::Tensor tensor, int peer,
                                              bool isSend);
  // Fails the held Works from `first` on (their receives will not be launched).
  void failHeld(size_t first, const std::string& message);
  c10::intrusive_ptr<c10d::Work> launchTransfers(const char* operation, c10d::OpType type,
                                                 std::vector<at::Tensor> outputs, std::vector<at::Tensor> keepAlive,
                                                 std::vector<Transfer> transfers, const at::Tensor& like);
  void checkOpen(const char* operation);
  void checkPeer(int peer, const char* operation, const char* role);

  // What a held-back Work reaches its group through: cleared at shutdown, after the last flush.
  struct FlushHandle {
    std::mutex lock;
    HetcclProcessGroup* group = nullptr;
  };
  std::shared_ptr<FlushHandle> flushHandle_;
  std::mutex heldLock_;
  std::vector<Transfer> heldTransfers_;
  std::vector<c10::intrusive_ptr<HetcclWork>> heldWorks_;
  std::unique_ptr<SendNotices> notices_;
  static constexpr std::chrono::milliseconds kNoticeGrace{20};
  std::mutex shutdownLock_;
  hetcclComm_t comm_ = nullptr;
  hetcclStream_t stream_ = nullptr;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<CompletionThread> completions_;
};

// Shuts down every live group (at interpreter exit, before MPI_Finalize).
void shutdownAllGroups();

}  // namespace hetccl_torch
