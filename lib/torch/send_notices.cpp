#include "send_notices.h"

#include <stdexcept>
#include <string>
#include <thread>

namespace hetccl_torch {
namespace {

// The only tag on the notices' own communicator.
constexpr int kNoticeTag = 1;

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("hetccl send/recv: ") + call + " failed");
}

}  // namespace

SendNotices::SendNotices(MPI_Comm members) { check(MPI_Comm_dup(members, &comm_), "MPI_Comm_dup"); }

SendNotices::~SendNotices() { close(); }

void SendNotices::close() {
  std::lock_guard<std::mutex> guard(lock_);
  if (comm_ == MPI_COMM_NULL) return;
  // An empty message needs no buffer: a notice still on its way may be left to MPI.
  for (MPI_Request& request : sends_) MPI_Request_free(&request);
  sends_.clear();
  MPI_Comm_free(&comm_);
}

void SendNotices::reapSends() {
  if (sends_.empty()) return;
  int done = 0;
  std::vector<int> indices(sends_.size());
  check(MPI_Testsome(static_cast<int>(sends_.size()), sends_.data(), &done, indices.data(), MPI_STATUSES_IGNORE),
        "MPI_Testsome");
  std::vector<MPI_Request> pending;
  for (MPI_Request request : sends_)
    if (request != MPI_REQUEST_NULL) pending.push_back(request);
  sends_.swap(pending);
}

void SendNotices::announce(int peer) {
  std::lock_guard<std::mutex> guard(lock_);
  reapSends();
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Isend(nullptr, 0, MPI_BYTE, peer, kNoticeTag, comm_, &request), "MPI_Isend");
  sends_.push_back(request);
}

std::shared_ptr<SendNotices::Expected> SendNotices::expect(int peer) {
  std::lock_guard<std::mutex> guard(lock_);
  auto expected = std::make_shared<Expected>();
  check(
      MPI_Irecv(nullptr, 0, MPI_BYTE, peer == kAnyRank ? MPI_ANY_SOURCE : peer, kNoticeTag, comm_, &expected->request),
      "MPI_Irecv");
  return expected;
}

bool SendNotices::take(Expected& expected, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    {
      std::lock_guard<std::mutex> guard(lock_);
      if (expected.taken) return true;
      int arrived = 0;
      MPI_Status status;
      check(MPI_Test(&expected.request, &arrived, &status), "MPI_Test");
      if (arrived) {
        expected.source = status.MPI_SOURCE;
        expected.taken = true;
        return true;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void SendNotices::withdraw(Expected& expected) {
  std::lock_guard<std::mutex> guard(lock_);
  if (expected.taken || expected.request == MPI_REQUEST_NULL || comm_ == MPI_COMM_NULL) return;
  MPI_Cancel(&expected.request);
  MPI_Wait(&expected.request, MPI_STATUS_IGNORE);
}

}  // namespace hetccl_torch
