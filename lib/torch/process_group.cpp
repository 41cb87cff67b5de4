#include "process_group.h"

#include <climits>
#include <mutex>
#include <set>
#include <stdexcept>

#include "client/group_calls.h"
#include "client/rooted_transfers.h"
#include "mpi_launch.h"
#include "tensor_arguments.h"

namespace hetccl_torch {
namespace {

std::mutex liveGroupsLock;
std::set<HetcclProcessGroup*> liveGroups;

size_t elements(const at::Tensor& tensor) { return static_cast<size_t>(tensor.numel()); }

// hetccl's operation timeout for torch's group timeout (whole seconds, rounded up).
int timeoutSeconds(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return 0;
  const long long seconds = (timeout.count() + 999) / 1000;
  return seconds > INT_MAX ? INT_MAX : static_cast<int>(seconds);
}

// The split sizes of an all_to_all_single side: as given, or equal parts when none are.
std::vector<int64_t> splitSizes(const std::vector<int64_t>& given, const at::Tensor& tensor, int size,
                                const char* role) {
  const int64_t rows = tensor.dim() == 0 ? 1 : tensor.size(0);
  if (given.empty()) {
    if (rows % size != 0)
      fail("all_to_all_single", std::string(role) + " tensor's first dimension (" + std::to_string(rows) +
                                    ") does not divide into " + std::to_string(size) + " equal parts");
    return std::vector<int64_t>(size, rows / size);
  }
  if (static_cast<int>(given.size()) != size)
    fail("all_to_all_single", std::string(role) + " split sizes have " + std::to_string(given.size()) +
                                  " entries for a group of " + std::to_string(size));
  int64_t sum = 0;
  for (int64_t part : given) {
    if (part < 0) fail("all_to_all_single", std::string(role) + " split sizes hold a negative size");
    sum += part;
  }
  if (sum != rows)
    fail("all_to_all_single", std::string(role) + " split sizes add up to " + std::to_string(sum) + ", but the " +
                                  role + " tensor's first dimension is " + std::to_string(rows));
  return given;
}

}  // namespace

HetcclProcessGroup::HetcclProcessGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                       std::chrono::milliseconds timeout)
    : BackendBase(rank, size), timeout_(timeout) {
  MPI_Comm members = groupCommunicator(*store, rank, size);
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.timeoutSeconds = timeoutSeconds(timeout);
  const hetcclResult_t created = hetcclCommInitMPI(&comm_, members, &config);
  std::unique_ptr<SendNotices> notices;
  if (created == hetcclSuccess) notices = std::make_unique<SendNotices>(members);
  MPI_Comm_free(&members);  // hetccl and the notices work on duplicates of their own
  if (created != hetcclSuccess)
    throw std::runtime_error(std::string("hetccl: creating the communicator failed: ") + hetcclGetLastError(nullptr));
  if (hetcclStreamCreate(&stream_) != hetcclSuccess) {
    (void)hetcclCommDestroy(comm_);
    throw std::runtime_error(std::string("hetccl: creating a stream failed: ") + hetcclGetLastError(nullptr));
  }
  notices_ = std::move(notices);
  completions_ = std::make_unique<CompletionThread>(comm_);
  flushHandle_ = std::make_shared<FlushHandle>();
  flushHandle_->group = this;
  std::lock_guard<std::mutex> guard(liveGroupsLock);
  liveGroups.insert(this);
}

HetcclProcessGroup::~HetcclProcessGroup() {
  shutdown();
  std::lock_guard<std::mutex> guard(liveGroupsLock);
  liveGroups.erase(this);
}

void HetcclProcessGroup::shutdown() {
  std::lock_guard<std::mutex> guard(shutdownLock_);
  if (comm_ == nullptr) return;
  try {
    flushTransfers(
        Flush::kReady, nullptr,
        std::chrono::steady_clock::now());  // what can be launched; receives still waiting for a sender fail below
  } catch (const std::exception&) {
    // Their Works fail below (the communicator is then aborted).
  }
  {
    std::lock_guard<std::mutex> handle(flushHandle_->lock);
    flushHandle_->group = nullptr;
  }
  failHeld(0, "the process group was shut down");
  notices_->close();
  const bool failed = completions_->failed();
  completions_.reset();  // completes every queued Work
  // A failed communicator's peers may be gone: an abort does not wait for them.
  (void)(failed ? hetcclCommAbort(comm_) : hetcclCommDestroy(comm_));
  (void)hetcclStreamDestroy(stream_);
  comm_ = nullptr;
}

void shutdownAllGroups() {
  std::set<HetcclProcessGroup*> groups;
  {
    std::lock_guard<std::mutex> guard(liveGroupsLock);
    groups = liveGroups;
  }
  for (HetcclProcessGroup* group : groups) group->shutdown();
}

std::string HetcclProcessGroup::lastAlgorithm() {
  std::lock_guard<std::mutex> guard(shutdownLock_);
  const char* algorithm = nullptr;
  if (comm_ == nullptr || hetcclCommGetAlgorithm(comm_, &algorithm) != hetcclSuccess || algorithm == nullptr)
    return "none";
  return algorithm;
}

void HetcclProcessGroup::checkOpen(const char* operation) {
  if (comm_ == nullptr) fail(operation, "the process group was shut down (interpreter exit)");
}

void HetcclProcessGroup::checkPeer(int peer, const char* operation, const char* role) {
  if (peer < 0 || peer >= getSize())
    fail(operation, std::string(role) + " " + std::to_string(peer) + " is outside the group's ranks 0.." +
                        std::to_string(getSize() - 1));
}

hetcclStream_t HetcclProcessGroup::streamFor(const at::Tensor& tensor) {
  // CPU tensors only (checkTensor refuses the others); GPU tensors would be ordered on torch's
  // current stream instead.
  (void)tensor;
  return stream_;
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::launch(const char* operation, c10d::OpType type,
                                                          hetcclStream_t stream, std::vector<at::Tensor> outputs,
                                                          std::vector<at::Tensor> keepAlive,
                                                          const std::function<hetcclResult_t()>& enqueue,
                                                          std::function<void()> afterCompletion) {
  checkOpen(operation);
  flushAll();  // issued earlier, so enqueued first
  return launchNow(operation, type, stream, std::move(outputs), std::move(keepAlive), enqueue,
                   std::move(afterCompletion));
}

c10::intrusive_ptr<HetcclWork> HetcclProcessGroup::launchNow(const char* operation, c10d::OpType type,
                                                             hetcclStream_t stream, std::vector<at::Tensor> outputs,
                                                             std::vector<at::Tensor> keepAlive,
                                                             const std::function<hetcclResult_t()>& enqueue,
                                                             std::function<void()> afterCompletion) {
  const hetcclResult_t result = enqueue();
  if (result != hetcclSuccess) fail(operation, hetcclGetLastError(comm_));
  auto work = c10::make_intrusive<HetcclWork>(getRank(), type, operation, std::move(outputs), timeout_);
  work->keepAlive = std::move(keepAlive);
  work->afterCompletion = std::move(afterCompletion);
  completions_->add(work, stream);
  return work;
}

hetcclResult_t HetcclProcessGroup::enqueueTransfers(const std::vector<Transfer>& transfers, hetcclStream_t stream) {
  return hetccl_client::inGroup([&](auto record) {
    for (const Transfer& t : transfers) {
      if (t.tensor.numel() == 0) continue;  // both sides know the sizes, so both skip it
      const hetcclDataType_t type = hetcclTypeOf(t.tensor, t.isSend ? "send" : "recv");
      record(t.isSend ? hetcclSend(t.tensor.data_ptr(), elements(t.tensor), type, t.peer, comm_, stream)
                      : hetcclRecv(t.tensor.data_ptr(), elements(t.tensor), type, t.peer, comm_, stream));
    }
  });
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::launchTransfers(const char* operation, c10d::OpType type,
                                                                   std::vector<at::Tensor> outputs,
                                                                   std::vector<at::Tensor> keepAlive,
                                                                   std::vector<Transfer> transfers,
                                                                   const at::Tensor& like) {
  (void)hetcclTypeOf(like, operation);  // refuses an unsupported dtype with this operation's name
  const hetcclStream_t stream = streamFor(like);
  return launch(operation, type, stream, std::move(outputs), std::move(keepAlive),
                [&] { return enqueueTransfers(transfers, stream); });
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::holdTransfer(const char* operation, c10d::OpType type,
                                                                at::Tensor tensor, int peer, bool isSend) {
  checkOpen(operation);
  (void)hetcclTypeOf(tensor, operation);
  std::vector<at::Tensor> outputs;
  if (!isSend) outputs.push_back(tensor);
  auto work = c10::make_intrusive<HetcclWork>(getRank(), type, operation, outputs, timeout_);
  work->keepAlive = {tensor};
  std::weak_ptr<FlushHandle> handle = flushHandle_;
  work->beforeWait = [handle](const HetcclWork* target, std::chrono::steady_clock::time_point deadline) {
    if (auto live = handle.lock()) {
      std::lock_guard<std::mutex> guard(live->lock);
      if (live->group != nullptr)
        live->group->flushTransfers(target == nullptr ? Flush::kReady : Flush::kThrough, target, deadline);
    }
  };
  work->held = true;
  std::lock_guard<std::mutex> held(heldLock_);
  // Under the lock: notices are posted in the order the transfers are held.
  std::shared_ptr<SendNotices::Expected> notice;
  if (isSend)
    notices_->announce(peer);
  else
    notice = notices_->expect(peer);
  if (!isSend && peer != SendNotices::kAnyRank) work->setSourceRank(peer);
  heldTransfers_.push_back({tensor, peer, isSend, notice});
  heldWorks_.push_back(work);
  return work;
}

void HetcclProcessGroup::failHeld(size_t first, const std::string& message) {
  std::vector<c10::intrusive_ptr<HetcclWork>> failed;
  {
    std::lock_guard<std::mutex> held(heldLock_);
    if (first >= heldWorks_.size()) return;
    for (size_t i = first; i < heldTransfers_.size(); ++i)
      if (heldTransfers_[i].notice) notices_->withdraw(*heldTransfers_[i].notice);
    failed.assign(heldWorks_.begin() + static_cast<std::ptrdiff_t>(first), heldWorks_.end());
    heldWorks_.resize(first);
    heldTransfers_.resize(first);
  }
  // Outside the lock: completing runs the futures' callbacks, which may call back in.
  const auto failure = std::make_exception_ptr(std::runtime_error("hetccl " + message));
  for (auto& work : failed) {
    work->held = false;
    work->complete(failure);
  }
}

void HetcclProcessGroup::flushTransfers(Flush how, const HetcclWork* target,
                                        std::chrono::steady_clock::time_point deadline) {
  std::vector<c10::intrusive_ptr<HetcclWork>> works;
  std::exception_ptr failure;
  bool timedOut = false;
  {
    std::lock_guard<std::mutex> held(heldLock_);
    if (heldWorks_.empty()) return;
    size_t through = 0;  // the receives from any source before this one are waited for
    if (how == Flush::kAll) through = heldWorks_.size();
    if (how == Flush::kThrough)
      for (size_t i = 0; i < heldWorks_.size(); ++i)
        if (heldWorks_[i].get() == target) through = i + 1;
    // A receive from any source learns its peer from its notice, and what was issued after it
    // is launched after it.  A known peer's receive needs no notice yet (its notice is already
    // matched, in order) and goes in one group with the sends around it, as a ring of
    // isend/irecv needs.  Waiting for a send held before a receive from any source, the
    // receive's notice is given kNoticeGrace: in a ring the peer announced its send before it
    // waits, and launching the send alone first could leave both ranks' streams blocked on
    // sends whose receives are queued behind them.
    const auto now = std::chrono::steady_clock::now();
    size_t ready = 0;
    for (; ready < heldTransfers_.size(); ++ready) {
      Transfer& t = heldTransfers_[ready];
      if (t.isSend || t.peer != SendNotices::kAnyRank) continue;
      const bool needed = ready < through;
      if (!notices_->take(*t.notice, needed ? deadline : how == Flush::kThrough ? now + kNoticeGrace : now)) {
        timedOut = needed;
        break;
      }
      t.peer = t.notice->source;
      heldWorks_[ready]->setSourceRank(t.peer);
    }
    if (ready > 0) {
      std::vector<Transfer> transfers(heldTransfers_.begin(),
                                      heldTransfers_.begin() + static_cast<std::ptrdiff_t>(ready));
      works.assign(heldWorks_.begin(), heldWorks_.begin() + static_cast<std::ptrdiff_t>(ready));
      heldTransfers_.erase(heldTransfers_.begin(), heldTransfers_.begin() + static_cast<std::ptrdiff_t>(ready));
      heldWorks_.erase(heldWorks_.begin(), heldWorks_.begin() + static_cast<std::ptrdiff_t>(ready));
      const hetcclStream_t stream = streamFor(transfers.front().tensor);
      for (auto& work : works) work->held = false;
      if (enqueueTransfers(transfers, stream) == hetcclSuccess) {
        for (auto& work : works) completions_->add(work, stream);
        works.clear();
      } else {
        failure =
            std::make_exception_ptr(std::runtime_error(std::string("hetccl send/recv: ") + hetcclGetLastError(comm_)));
      }
    }
  }
  // Outside the lock: completing runs the futures' callbacks, which may call back in.
  for (auto& work : works) work->complete(failure);
  // Before another operation the receive cannot stay held: it fails (a Work's own wait merely
  // times out, and may be waited for again).
  if (timedOut && how == Flush::kAll)
    failHeld(0, "recv: no rank sent to this rank within " + std::to_string(timeout_.count()) +
                    " ms (a receive from any source waits for a send's notice)");
}

void HetcclProcessGroup::flushAll() {
  flushTransfers(Flush::kAll, nullptr, std::chrono::steady_clock::now() + timeout_);
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::broadcast(std::vector<at::Tensor>& tensors,
                                                             const c10d::BroadcastOptions& opts) {
  at::Tensor& tensor = singleTensor(tensors, "broadcast", "the");
  checkPeer(static_cast<int>(opts.rootRank), "broadcast", "root");
  const hetcclDataType_t type = hetcclTypeOf(tensor, "broadcast");
  const hetcclStream_t stream = streamFor(tensor);
  return launch("broadcast", c10d::OpType::BROADCAST, stream, {tensor}, {}, [&] {
    return hetcclBroadcast(tensor.data_ptr(), tensor.data_ptr(), elements(tensor), type,
                           static_cast<int>(opts.rootRank), comm_, stream);
  });
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::allreduce(std::vector<at::Tensor>& tensors,
                                                             const c10d::AllreduceOptions& opts) {
  at::Tensor& tensor = singleTensor(tensors, "all_reduce", "the");
  const hetcclDataType_t type = hetcclTypeOf(tensor, "all_reduce");
  const hetcclRedOp_t op = hetcclOpOf(opts.reduceOp, "all_reduce");
  const hetcclStream_t stream = streamFor(tensor);
  return launch("all_reduce", c10d::OpType::ALLREDUCE, stream, {tensor}, {}, [&] {
    return hetcclAllReduce(tensor.data_ptr(), tensor.data_ptr(), elements(tensor), type, op, comm_, stream);
  });
}

// One Work for several all-reduces, launched as one hetccl group.
c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                       const c10d::AllreduceCoalescedOptions& opts) {
  if (tensors.empty()) fail("all_reduce_coalesced", "no tensors given");
  for (const at::Tensor& tensor : tensors) checkTensor(tensor, "all_reduce_coalesced", "a");
  const hetcclRedOp_t op = hetcclOpOf(opts.reduceOp, "all_reduce_coalesced");
  std::vector<hetcclDataType_t> types;
  for (const at::Tensor& tensor : tensors) types.push_back(hetcclTypeOf(tensor, "all_reduce_coalesced"));
  const hetcclStream_t stream = streamFor(tensors[0]);
  return launch("all_reduce_coalesced", c10d::OpType::ALLREDUCE_COALESCED, stream, tensors, {}, [&] {
    return hetccl_client::inGroup([&](auto record) {
      for (size_t i = 0; i < tensors.size(); ++i)
        record(hetcclAllReduce(tensors[i].data_ptr(), tensors[i].data_ptr(), elements(tensors[i]), types[i], op, comm_,
                               stream));
    });
  });
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::reduce(std::vector<at::Tensor>& tensors,
                                                          const c10d::ReduceOptions& opts) {
  at::Tensor& tensor = singleTensor(tensors, "reduce", "the");
  checkPeer(static_cast<int>(opts.rootRank), "reduce", "root");
  const hetcclDataType_t type = hetcclTypeOf(tensor, "reduce");
  const hetcclRedOp_t op = hetcclOpOf(opts.reduceOp, "reduce");
  const hetcclStream_t stream = streamFor(tensor);
  return launch("reduce", c10d::OpType::REDUCE, stream, {tensor}, {}, [&] {
    return hetcclReduce(tensor.data_ptr(), tensor.data_ptr(), elements(tensor), type, op,
                        static_cast<int>(opts.rootRank), comm_, stream);
  });
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::_allgather_base(at::Tensor& outputBuffer, at::Tensor& inputBuffer,
                                                                   const c10d::AllgatherOptions&) {
  checkWholeOfParts(outputBuffer, "output", inputBuffer, "input", getSize(), "all_gather_into_tensor");
  const hetcclDataType_t type = hetcclTypeOf(inputBuffer, "all_gather_into_tensor");
  const hetcclStream_t stream = streamFor(inputBuffer);
  return launch("all_gather_into_tensor", c10d::OpType::_ALLGATHER_BASE, stream, {outputBuffer}, {inputBuffer}, [&] {
    return hetcclAllGather(inputBuffer.data_ptr(), outputBuffer.data_ptr(), elements(inputBuffer), type, comm_, stream);
  });
}

// Gathered into one buffer, then copied into the caller's list once complete.
c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::allgather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                                             std::vector<at::Tensor>& inputTensors,
                                                             const c10d::AllgatherOptions&) {
  at::Tensor& input = singleTensor(inputTensors, "all_gather", "input");
  if (outputTensors.size() != 1 || static_cast<int>(outputTensors[0].size()) != getSize())
    fail("all_gather", "takes one output list of " + std::to_string(getSize()) + " tensors (the group size)");
  std::vector<at::Tensor> outputs = outputTensors[0];
  checkSameShape(outputs, input, "all_gather", "output");
  const hetcclDataType_t type = hetcclTypeOf(input, "all_gather");
  const hetcclStream_t stream = streamFor(input);
  at::Tensor gathered = at::empty({input.numel() * getSize()}, input.options());
  const int64_t n = input.numel();
  return launch(
      "all_gather", c10d::OpType::ALLGATHER, stream, outputs, {input, gathered},
      [&] { return hetcclAllGather(input.data_ptr(), gathered.data_ptr(), elements(input), type, comm_, stream); },
      [outputs, gathered, n]() mutable {
        for (size_t i = 0; i < outputs.size(); ++i)
          outputs[i].view({-1}).copy_(gathered.narrow(0, static_cast<int64_t>(i) * n, n));
      });
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::_reduce_scatter_base(at::Tensor& outputBuffer,
                                                                        at::Tensor& inputBuffer,
                                                                        const c10d::ReduceScatterOptions& opts) {
  checkWholeOfParts(inputBuffer, "input", outputBuffer, "output", getSize(), "reduce_scatter_tensor");
  const hetcclDataType_t type = hetcclTypeOf(inputBuffer, "reduce_scatter_tensor");
  const hetcclRedOp_t op = hetcclOpOf(opts.reduceOp, "reduce_scatter_tensor");
  const hetcclStream_t stream = streamFor(inputBuffer);
  return launch("reduce_scatter_tensor", c10d::OpType::_REDUCE_SCATTER_BASE, stream, {outputBuffer}, {inputBuffer},
                [&] {
                  return hetcclReduceScatter(inputBuffer.data_ptr(), outputBuffer.data_ptr(), elements(outputBuffer),
                                             type, op, comm_, stream);
                });
}

// The caller's list concatenated into one buffer (the inputs are ready now), then reduced.
c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::reduce_scatter(std::vector<at::Tensor>& outputTensors,
                                                                  std::vector<std::vector<at::Tensor>>& inputTensors,
                                                                  const c10d::ReduceScatterOptions& opts) {
  at::Tensor& output = singleTensor(outputTensors, "reduce_scatter", "output");
  if (inputTensors.size() != 1 || static_cast<int>(inputTensors[0].size()) != getSize())
    fail("reduce_scatter", "takes one input list of " + std::to_string(getSize()) + " tensors (the group size)");
  checkSameShape(inputTensors[0], output, "reduce_scatter", "input");
  std::vector<at::Tensor> flat;
  for (const at::Tensor& part : inputTensors[0]) flat.push_back(part.view({-1}));
  at::Tensor input = at::cat(flat);
  return _reduce_scatter_base(output, input, opts);
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::alltoall_base(at::Tensor& outputBuffer, at::Tensor& inputBuffer,
                                                                 std::vector<int64_t>& outputSplitSizes,
                                                                 std::vector<int64_t>& inputSplitSizes,
                                                                 const c10d::AllToAllOptions&) {
  const char* name = "all_to_all_single";
  checkTensor(inputBuffer, name, "input");
  checkTensor(outputBuffer, name, "output");
  if (outputBuffer.scalar_type() != inputBuffer.scalar_type())
    fail(name, "the output tensor's dtype differs from the input's");
  const int n = getSize();
  if (inputSplitSizes.empty() && outputSplitSizes.empty()) {
    if (inputBuffer.numel() % n != 0 || outputBuffer.numel() != inputBuffer.numel())
      fail(name, "with equal splits, input and output need the same element count, a multiple of the group size (" +
                     std::to_string(inputBuffer.numel()) + " and " + std::to_string(outputBuffer.numel()) + ")");
    const hetcclDataType_t type = hetcclTypeOf(inputBuffer, name);
    const hetcclStream_t stream = streamFor(inputBuffer);
    return launch(name, c10d::OpType::ALLTOALL_BASE, stream, {outputBuffer}, {inputBuffer}, [&] {
      return hetcclAlltoAll(inputBuffer.data_ptr(), outputBuffer.data_ptr(), elements(inputBuffer) / n, type, comm_,
                            stream);
    });
  }
  // Uneven: row counts along the first dimension, each part sent and received on its own.
  const std::vector<int64_t> sends = splitSizes(inputSplitSizes, inputBuffer, n, "input");
  const std::vector<int64_t> receives = splitSizes(outputSplitSizes, outputBuffer, n, "output");
  if (inputBuffer.dim() == 0 || outputBuffer.dim() == 0)
    fail(name, "uneven splits need tensors with a first dimension");
  std::vector<Transfer> transfers;
  int64_t sent = 0, received = 0;
  for (int peer = 0; peer < n; ++peer) {
    transfers.push_back({inputBuffer.narrow(0, sent, sends[peer]), peer, true});
    transfers.push_back({outputBuffer.narrow(0, received, receives[peer]), peer, false});
    sent += sends[peer];
    received += receives[peer];
  }
  return launchTransfers(name, c10d::OpType::ALLTOALL_BASE, {outputBuffer}, {inputBuffer}, std::move(transfers),
                         inputBuffer);
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::alltoall(std::vector<at::Tensor>& outputTensors,
                                                            std::vector<at::Tensor>& inputTensors,
                                                            const c10d::AllToAllOptions&) {
  const int n = getSize();
  if (static_cast<int>(inputTensors.size()) != n || static_cast<int>(outputTensors.size()) != n)
    fail("all_to_all", "takes input and output lists of " + std::to_string(n) + " tensors (the group size)");
  std::vector<Transfer> transfers;
  for (int peer = 0; peer < n; ++peer) {
    checkTensor(inputTensors[peer], "all_to_all", "input");
    checkTensor(outputTensors[peer], "all_to_all", "output");
    if (inputTensors[peer].scalar_type() != inputTensors[0].scalar_type() ||
        outputTensors[peer].scalar_type() != inputTensors[0].scalar_type())
      fail("all_to_all", "every input and output tensor needs the same dtype");
    transfers.push_back({inputTensors[peer], peer, true});
    transfers.push_back({outputTensors[peer], peer, false});
  }
  return launchTransfers("all_to_all", c10d::OpType::ALLTOALL, outputTensors, inputTensors, std::move(transfers),
                         inputTensors[0]);
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::allgather_coalesced(
    std::vector<std::vector<at::Tensor>>& outputTensorLists, std::vector<at::Tensor>& inputTensors,
    const c10d::AllgatherOptions&) {
  const char* name = "all_gather_coalesced";
  if (inputTensors.empty()) fail(name, "no input tensors given");
  if (static_cast<int>(outputTensorLists.size()) != getSize())
    fail(name, "takes one output list per rank of the group (" + std::to_string(getSize()) + "), not " +
                   std::to_string(outputTensorLists.size()));
  std::vector<hetcclDataType_t> types;
  for (const at::Tensor& input : inputTensors) {
    checkTensor(input, name, "an input");
    types.push_back(hetcclTypeOf(input, name));
  }
  std::vector<at::Tensor> outputs;
  for (const std::vector<at::Tensor>& list : outputTensorLists) {
    if (list.size() != inputTensors.size())
      fail(name, "every output list needs one tensor per input tensor (" + std::to_string(inputTensors.size()) +
                     "), one has " + std::to_string(list.size()));
    for (size_t j = 0; j < list.size(); ++j) {
      const std::string role = "output list " + std::to_string(outputs.size() / list.size()) + "'s";
      checkSameShape({list[j]}, inputTensors[j], name, role.c_str());
      outputs.push_back(list[j]);
    }
  }
  // Each input gathered into a buffer of its own, copied into the lists once complete.
  std::vector<at::Tensor> gathered;
  for (const at::Tensor& input : inputTensors)
    gathered.push_back(at::empty({input.numel() * getSize()}, input.options()));
  std::vector<at::Tensor> keepAlive = inputTensors;
  keepAlive.insert(keepAlive.end(), gathered.begin(), gathered.end());
  const hetcclStream_t stream = streamFor(inputTensors[0]);
  const size_t perRank = inputTensors.size();
  return launch(
      name, c10d::OpType::ALLGATHER_COALESCED, stream, outputs, std::move(keepAlive),
      [&] {
        return hetccl_client::inGroup([&](auto record) {
          for (size_t j = 0; j < perRank; ++j)
            if (inputTensors[j].numel() > 0)  // every rank passes the same sizes, so all skip it
              record(hetcclAllGather(inputTensors[j].data_ptr(), gathered[j].data_ptr(), elements(inputTensors[j]),
                                     types[j], comm_, stream));
        });
      },
      [outputs, gathered, perRank]() mutable {
        for (size_t i = 0; i < outputs.size(); ++i) {
          const at::Tensor& from = gathered[i % perRank];
          const int64_t n = outputs[i].numel();
          outputs[i].view({-1}).copy_(from.narrow(0, static_cast<int64_t>(i / perRank) * n, n));
        }
      });
}

// gather and scatter: one group of sends and receives (client/rooted_transfers.h, the NCCL
// drop-in's too).
c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::gather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                                          std::vector<at::Tensor>& inputTensors,
                                                          const c10d::GatherOptions& opts) {
  at::Tensor& input = singleTensor(inputTensors, "gather", "input");
  const int root = static_cast<int>(opts.rootRank);
  checkPeer(root, "gather", "root");
  std::vector<at::Tensor> outputs;
  if (getRank() == root) {
    if (outputTensors.size() != 1 || static_cast<int>(outputTensors[0].size()) != getSize())
      fail("gather", "the root takes one output list of " + std::to_string(getSize()) + " tensors (the group size)");
    outputs = outputTensors[0];
    checkSameShape(outputs, input, "gather", "output");
  } else if (!outputTensors.empty() && !outputTensors[0].empty()) {
    fail("gather", "only the root takes output tensors");
  }
  std::vector<void*> blocks;
  for (at::Tensor& output : outputs) blocks.push_back(output.data_ptr());
  const hetcclDataType_t dtype = hetcclTypeOf(input, "gather");
  const hetcclStream_t stream = streamFor(input);
  return launch("gather", c10d::OpType::GATHER, stream, outputs, {input}, [&] {
    return hetccl_client::groupedGather(input.data_ptr(), blocks.empty() ? nullptr : blocks.data(), elements(input),
                                        dtype, root, comm_, stream);
  });
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::scatter(std::vector<at::Tensor>& outputTensors,
                                                           std::vector<std::vector<at::Tensor>>& inputTensors,
                                                           const c10d::ScatterOptions& opts) {
  at::Tensor& output = singleTensor(outputTensors, "scatter", "output");
  const int root = static_cast<int>(opts.rootRank);
  checkPeer(root, "scatter", "root");
  std::vector<at::Tensor> inputs;
  if (getRank() == root) {
    if (inputTensors.size() != 1 || static_cast<int>(inputTensors[0].size()) != getSize())
      fail("scatter", "the root takes one input list of " + std::to_string(getSize()) + " tensors (the group size)");
    inputs = inputTensors[0];
    checkSameShape(inputs, output, "scatter", "input");
  } else if (!inputTensors.empty() && !inputTensors[0].empty()) {
    fail("scatter", "only the root takes input tensors");
  }
  std::vector<const void*> blocks;
  for (const at::Tensor& input : inputs) blocks.push_back(input.data_ptr());
  const hetcclDataType_t dtype = hetcclTypeOf(output, "scatter");
  const hetcclStream_t stream = streamFor(output);
  return launch("scatter", c10d::OpType::SCATTER, stream, {output}, inputs, [&] {
    return hetccl_client::groupedScatter(blocks.empty() ? nullptr : blocks.data(), output.data_ptr(), elements(output),
                                         dtype, root, comm_, stream);
  });
}

// Matched by order between each pair of ranks, as NCCL's; torch's tag is not used.
c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::send(std::vector<at::Tensor>& tensors, int dstRank, int) {
  at::Tensor& tensor = singleTensor(tensors, "send", "the");
  checkPeer(dstRank, "send", "destination rank");
  return holdTransfer("send", c10d::OpType::SEND, tensor, dstRank, true);
}

c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::recv(std::vector<at::Tensor>& tensors, int srcRank, int) {
  at::Tensor& tensor = singleTensor(tensors, "recv", "the");
  checkPeer(srcRank, "recv", "source rank");
  return holdTransfer("recv", c10d::OpType::RECV, tensor, srcRank, false);
}

// The sender is the rank whose send's notice arrives first (send_notices.h); the Work's
// sourceRank() gives it once the receive was launched.
c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::recvAnysource(std::vector<at::Tensor>& tensors, int) {
  at::Tensor& tensor = singleTensor(tensors, "recv", "the");
  return holdTransfer("recv", c10d::OpType::RECVANYSOURCE, tensor, SendNotices::kAnyRank, false);
}

// An all-reduce of one element: complete once every rank has reached it.
c10::intrusive_ptr<c10d::Work> HetcclProcessGroup::barrier(const c10d::BarrierOptions&) {
  at::Tensor token = at::zeros({1}, at::TensorOptions().dtype(at::kInt));
  std::vector<at::Tensor> tensors{token};
  return allreduce(tensors, c10d::AllreduceOptions());
}

}  // namespace hetccl_torch
