#include "transport/loopback_transport.h"

#include <algorithm>
#include <cstring>

namespace hetccl {

void LoopbackFabric::abort(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (aborted_.load(std::memory_order_relaxed)) return;
  abortReason_ = reason;
  aborted_.store(true, std::memory_order_release);
}

std::string LoopbackFabric::abortReason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return abortReason_;
}

// Called under the lock.  The copy happens on the thread that posted second; the release
// stores publish it to the thread that polls the other half.
void LoopbackFabric::complete(Posting& send, Posting& receive) {
  if (receive.bytes < send.bytes) {
    receive.partnerBytes = send.bytes;
    receive.state.store(Posting::Truncated, std::memory_order_release);
  } else {
    if (send.bytes > 0) std::memcpy(receive.buffer, send.buffer, send.bytes);
    receive.state.store(Posting::Done, std::memory_order_release);
  }
  // Like MPI, the sender of a truncated message completes; the receiver reports the error.
  send.state.store(Posting::Done, std::memory_order_release);
}

void LoopbackFabric::post(const std::shared_ptr<Posting>& posting) {
  std::lock_guard<std::mutex> lock(mutex_);
  Channel& channel = channels_[ChannelKey{posting->source, posting->destination, posting->tag}];
  auto& waiting = posting->isSend ? channel.receives : channel.sends;
  if (waiting.empty()) {
    (posting->isSend ? channel.sends : channel.receives).push_back(posting);
    return;
  }
  std::shared_ptr<Posting> partner = std::move(waiting.front());
  waiting.pop_front();
  if (posting->isSend)
    complete(*posting, *partner);
  else
    complete(*partner, *posting);
}

std::vector<int> LoopbackFabric::sourcesWaitingFor(int destination) const {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<int> sources;
  for (const auto& [key, channel] : channels_) {
    const int source = std::get<0>(key);
    if (std::get<1>(key) == destination && !channel.sends.empty() && (sources.empty() || sources.back() != source))
      sources.push_back(source);  // the map is ordered by source first
  }
  return sources;
}

void LoopbackFabric::withdraw(const std::shared_ptr<Posting>& posting) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = channels_.find(ChannelKey{posting->source, posting->destination, posting->tag});
  if (found == channels_.end()) return;
  auto& queue = posting->isSend ? found->second.sends : found->second.receives;
  queue.erase(std::remove(queue.begin(), queue.end(), posting), queue.end());
}

namespace {

class LoopbackTransfer : public Transfer {
 public:
  LoopbackTransfer(std::shared_ptr<LoopbackFabric> fabric, std::shared_ptr<LoopbackFabric::Posting> posting)
      : fabric_(std::move(fabric)), posting_(std::move(posting)) {}
  // A transfer dropped before completion (an aborted operation): its buffer may be freed, so
  // no later partner may copy into or out of it.
  ~LoopbackTransfer() override {
    if (posting_->state.load(std::memory_order_acquire) == LoopbackFabric::Posting::Pending)
      fabric_->withdraw(posting_);
  }

  Status test(bool* done) override {
    using Posting = LoopbackFabric::Posting;
    *done = false;
    const Posting& p = *posting_;
    switch (p.state.load(std::memory_order_acquire)) {
      case Posting::Done: *done = true; return Status::ok();
      case Posting::Truncated:
        return HETCCL_STATUS(Code::SystemError,
                             "receive of %zu bytes from rank %d (tag %d) truncated a message of %zu bytes", p.bytes,
                             p.source, p.tag, p.partnerBytes);
      default: break;
    }
    if (fabric_->aborted())
      return HETCCL_STATUS(Code::RemoteError, "%s rank %d (tag %d) abandoned: %s",
                           p.isSend ? "send to" : "receive from", p.isSend ? p.destination : p.source, p.tag,
                           fabric_->abortReason().c_str());
    return Status::ok();
  }

 private:
  std::shared_ptr<LoopbackFabric> fabric_;
  std::shared_ptr<LoopbackFabric::Posting> posting_;
};

}  // namespace

Status LoopbackTransport::postTransfer(bool isSend, char* buffer, size_t bytes, int peer, int tag,
                                       std::unique_ptr<Transfer>* transfer) {
  if (peer < 0 || peer >= fabric_->size())
    return HETCCL_STATUS(Code::InvalidArgument, "loopback: peer %d outside 0..%d", peer, fabric_->size() - 1);
  if (tag < 0 || tag > kLoopbackMaxTag)
    return HETCCL_STATUS(Code::InvalidArgument, "loopback: tag %d outside 0..%d", tag, kLoopbackMaxTag);
  if (buffer == nullptr && bytes > 0)
    return HETCCL_STATUS(Code::InvalidArgument, "loopback: null buffer for %zu bytes", bytes);
  auto posting = std::make_shared<LoopbackFabric::Posting>();
  posting->isSend = isSend;
  posting->source = isSend ? rank_ : peer;
  posting->destination = isSend ? peer : rank_;
  posting->tag = tag;
  posting->buffer = buffer;
  posting->bytes = bytes;
  fabric_->post(posting);
  *transfer = std::make_unique<LoopbackTransfer>(fabric_, std::move(posting));
  return Status::ok();
}

Status LoopbackTransport::postSend(const void* buffer, size_t bytes, int peer, int tag,
                                   std::unique_ptr<Transfer>* transfer) {
  // The fabric only reads a send's buffer; one posting routine serves both directions.
  return postTransfer(true, const_cast<char*>(static_cast<const char*>(buffer)), bytes, peer, tag, transfer);
}

Status LoopbackTransport::postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) {
  return postTransfer(false, static_cast<char*>(buffer), bytes, peer, tag, transfer);
}

}  // namespace hetccl
