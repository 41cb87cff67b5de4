#include "core/control_channel.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace hetccl {

ControlChannel::ControlChannel(MPI_Comm comm, uint64_t commId, int rank, int nranks)
    : comm_(comm), commId_(commId), rank_(rank), nranks_(nranks) {}

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
  }
  return "error";
}

}  // namespace

ControlChannel::~ControlChannel() {
  if (receive_ != MPI_REQUEST_NULL) {
    MPI_Cancel(&receive_);
    MPI_Request_free(&receive_);
  }
  int sent = 1;
  if (!sends_.empty()) MPI_Testall(static_cast<int>(sends_.size()), sends_.data(), &sent, MPI_STATUSES_IGNORE);
  if (!sent) {
    for (MPI_Request& request : sends_)
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    for (auto& notice : outgoing_) (void)notice.release();
  }
}

Status ControlChannel::start() { return repost(); }

Status ControlChannel::repost() {
  const int rc = MPI_Irecv(&incoming_, sizeof incoming_, MPI_BYTE, MPI_ANY_SOURCE, kTag, comm_, &receive_);
  if (rc != MPI_SUCCESS)
    return HETCCL_STATUS(Code::SystemError, "posting the control channel's receive failed (%d)", rc);
  return Status::ok();
}

void ControlChannel::receive(const MPI_Status& status) {
  const int peer = status.MPI_SOURCE;
  if (incoming_.commId != commId_ || peer < 0 || peer >= nranks_) return;
  noticeArrived_ = true;
  if (static_cast<Kind>(incoming_.kind) == Kind::Leaving) {
    if (leaver_ < 0 || incoming_.collectivesRun < leaverCollectives_) {
      leaver_ = peer;
      leaverCollectives_ = incoming_.collectivesRun;
    }
  } else if (remoteFailure_.isOk()) {
    incoming_.text[sizeof incoming_.text - 1] = '\0';
    remoteFailure_ = HETCCL_STATUS(Code::RemoteError, "rank %d failed (%s): %s", peer,
                                   codeName(static_cast<Code>(incoming_.code)), incoming_.text);
  }
}

void ControlChannel::drain() {
  while (receive_ != MPI_REQUEST_NULL) {
    int arrived = 0;
    MPI_Status status;
    if (MPI_Test(&receive_, &arrived, &status) != MPI_SUCCESS || !arrived) return;
    receive_ = MPI_REQUEST_NULL;
    receive(status);
    if (!repost().isOk()) return;
  }
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
  auto notice = std::make_unique<Notice>();
  notice->kind = static_cast<int32_t>(Kind::Failure);
  notice->code = static_cast<int32_t>(failure.code());
  std::strncpy(notice->text, failure.message().c_str(), sizeof notice->text - 1);
  std::vector<int> everyone;
  for (int peer = 0; peer < nranks_; ++peer)
    if (peer != rank_) everyone.push_back(peer);
  send(std::move(notice), everyone);
}

void ControlChannel::tellWaitingPeers(uint64_t collectives) {
  if (announced_.load()) return;
  // A peer's message still unreceived here (any tag but the channel's: those are received as
  // they come) means that peer is in an operation this rank never joined.
  // A probe that finds nothing drives MPI's progress once, which may only then move an arrived
  // message into the queue it probes: a few rounds of any-source probes first.
  int any = 0;
  for (int round = 0; round < 4; ++round) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &any, MPI_STATUS_IGNORE);
  std::vector<int> waiting;
  for (int peer = 0; peer < nranks_; ++peer) {
    if (peer == rank_) continue;
    int pending = 0;
    MPI_Status status;
    if (MPI_Iprobe(peer, MPI_ANY_TAG, comm_, &pending, &status) == MPI_SUCCESS && pending && status.MPI_TAG != kTag)
      waiting.push_back(peer);
  }
  if (waiting.empty()) return;
  toldWaitingPeers_ = true;
  auto notice = std::make_unique<Notice>();
  notice->kind = static_cast<int32_t>(Kind::Leaving);
  notice->collectivesRun = collectives;
  send(std::move(notice), waiting);
}

void ControlChannel::send(std::unique_ptr<Notice> notice, const std::vector<int>& peers) {
  std::lock_guard<std::mutex> guard(sendLock_);
  notice->commId = commId_;
  // Fire and forget: a small message goes out eagerly, and a peer that is gone never reads it.
  for (int peer : peers) {
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(notice.get(), sizeof(Notice), MPI_BYTE, peer, kTag, comm_, &request) == MPI_SUCCESS)
      sends_.push_back(request);
  }
  outgoing_.push_back(std::move(notice));
}

}  // namespace hetccl
