#include "core/control_channel.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace hetccl {

ControlChannel::ControlChannel(MPI_Comm comm, int rank, int nranks) : comm_(comm), rank_(rank), nranks_(nranks) {}

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
    (void)outgoing_.release();
  }
}

Status ControlChannel::start() {
  const int rc = MPI_Irecv(&incoming_, sizeof incoming_, MPI_BYTE, MPI_ANY_SOURCE, kTag, comm_, &receive_);
  if (rc != MPI_SUCCESS)
    return HETCCL_STATUS(Code::SystemError, "posting the control channel's receive failed (%d)", rc);
  return Status::ok();
}

Status ControlChannel::poll() {
  std::lock_guard<std::mutex> guard(lock_);
  if (!remoteFailure_.isOk() || receive_ == MPI_REQUEST_NULL) return remoteFailure_;
  int arrived = 0;
  MPI_Status status;
  if (MPI_Test(&receive_, &arrived, &status) != MPI_SUCCESS || !arrived) return Status::ok();
  incoming_.text[sizeof incoming_.text - 1] = '\0';
  remoteFailure_ = HETCCL_STATUS(Code::RemoteError, "rank %d failed (%s): %s", status.MPI_SOURCE,
                                 codeName(static_cast<Code>(incoming_.code)), incoming_.text);
  return remoteFailure_;
}

void ControlChannel::announce(const Status& failure) {
  if (announced_.exchange(true)) return;
  outgoing_ = std::make_unique<Notice>();
  outgoing_->code = static_cast<int32_t>(failure.code());
  std::strncpy(outgoing_->text, failure.message().c_str(), sizeof outgoing_->text - 1);
  // Fire and forget: a small message goes out eagerly, and a peer that is gone never reads it.
  for (int peer = 0; peer < nranks_; ++peer) {
    if (peer == rank_) continue;
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(outgoing_.get(), sizeof(Notice), MPI_BYTE, peer, kTag, comm_, &request) == MPI_SUCCESS)
      sends_.push_back(request);
  }
}

}  // namespace hetccl
