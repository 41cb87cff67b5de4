#include "core/control_channel.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace hetccl {

ControlChannel::ControlChannel(std::unique_ptr<NoticeWire> wire, uint64_t commId, int rank, int nranks)
    : wire_(std::move(wire)), commId_(commId), rank_(rank), nranks_(nranks) {}

namespace {

const char* codeName(Code code) {
  switch (code) {
    case Code::Success: return "success";
    case Code::DeviceError: return "device error";
    case Code::SystemError: return "system error";
    case Code::InternalError: return "internal error";
    case Code::InvalidArgument: return "invalid argument";
    case Code::InvalidUsage: return "invalid usage";
    case Code::RemoteError: return "remote error";
    case Code::InProgress: return "in progress";
    case Code::Timeout: return "timeout";
    case Code::Aborted: return "aborted";
    case Code::PeerLost: return "transfer with a peer failed";
  }
  return "error";
}

}  // namespace

Status ControlChannel::start() { return wire_->listen(); }

void ControlChannel::receive(const Notice& notice, int peer) {
  if (notice.commId != commId_ || peer < 0 || peer >= nranks_) return;
  noticeArrived_ = true;
  if (static_cast<Kind>(notice.kind) == Kind::Leaving) {
    if (leaver_ < 0 || notice.collectivesRun < leaverCollectives_) {
      leaver_ = peer;
      leaverCollectives_ = notice.collectivesRun;
    }
  } else if (remoteFailure_.isOk()) {
    char text[sizeof notice.text];
    std::memcpy(text, notice.text, sizeof text);
    text[sizeof text - 1] = '\0';
    remoteFailure_ = HETCCL_STATUS(Code::RemoteError, "rank %d failed (%s): %s", peer,
                                   codeName(static_cast<Code>(notice.code)), text);
  }
}

void ControlChannel::drain() {
  Notice notice;
  for (int peer = -1; wire_->take(&notice, sizeof notice, &peer);) receive(notice, peer);
}

Status ControlChannel::poll(uint64_t collective) {
  std::lock_guard<std::mutex> guard(lock_);
  drain();
  if (!remoteFailure_.isOk()) return remoteFailure_;
  if (leaver_ >= 0 && collective > leaverCollectives_) {
    remoteFailure_ = HETCCL_STATUS(Code::RemoteError,
                                   "rank %d left (destroyed or aborted its communicator) after %llu collectives, so "
                                   "it will never join this one (collective %llu)",
                                   leaver_, static_cast<unsigned long long>(leaverCollectives_),
                                   static_cast<unsigned long long>(collective));
    // The leaver told only the ranks whose messages waited for it; the others may be waiting
    // for those ranks, so they hear it from here.
    announce(remoteFailure_);
    return remoteFailure_;
  }
  return Status::ok();
}

bool ControlChannel::quiet() {
  std::lock_guard<std::mutex> guard(lock_);
  drain();
  return !noticeArrived_ && !announced_.load() && !toldWaitingPeers_;
}

void ControlChannel::announce(const Status& failure) {
  if (announced_.exchange(true)) return;
  Notice notice;
  notice.kind = static_cast<int32_t>(Kind::Failure);
  notice.code = static_cast<int32_t>(failure.code());
  std::strncpy(notice.text, failure.message().c_str(), sizeof notice.text - 1);
  std::vector<int> everyone;
  for (int peer = 0; peer < nranks_; ++peer)
    if (peer != rank_) everyone.push_back(peer);
  send(notice, everyone);
}

void ControlChannel::tellWaitingPeers(uint64_t collectives, const std::vector<int>& alsoWaiting) {
  if (announced_.load()) return;
  // A peer's message still unreceived here means that peer is in an operation this rank never
  // joined.
  std::vector<int> waiting = wire_->peersWithUnreceivedMessages();
  for (int peer : alsoWaiting)
    if (std::find(waiting.begin(), waiting.end(), peer) == waiting.end()) waiting.push_back(peer);
  if (waiting.empty()) return;
  toldWaitingPeers_ = true;
  Notice notice;
  notice.kind = static_cast<int32_t>(Kind::Leaving);
  notice.collectivesRun = collectives;
  send(notice, waiting);
}

void ControlChannel::send(Notice notice, const std::vector<int>& peers) {
  notice.commId = commId_;
  wire_->send(&notice, sizeof notice, peers);
}

}  // namespace hetccl
