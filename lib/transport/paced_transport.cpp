#include "transport/paced_transport.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace hetccl {

std::string describeLinkPacing(const LinkPacing& pacing) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g GB/s, %.3g us", pacing.bytesPerSecond / 1e9, pacing.latencySeconds * 1e6);
  return text;
}

double monotonicSeconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

namespace {

// Completes when the inner transfers have completed and the modelled time has passed.
class PacedTransfer : public Transfer {
 public:
  std::unique_ptr<Transfer> header, data;
  double headerValue = 0;  // the arrival time travelling in (or out of) the header
  double readyAt = 0;      // for sends: when the data has left this rank; receives: the header's
  bool isReceive = false;
  Status test(bool* done) override {
    *done = false;
    for (std::unique_ptr<Transfer>* part : {&header, &data}) {
      if (!*part) continue;
      bool partDone = false;
      Status status = (*part)->test(&partDone);
      if (!status.isOk()) return status;
      if (!partDone) return Status::ok();
      part->reset();
      if (part == &header && isReceive) readyAt = headerValue;
    }
    *done = monotonicSeconds() >= readyAt;
    return Status::ok();
  }
  // Known once the real transfers are over: only the modelled time is left.
  double notBefore() const override { return header || data ? 0 : readyAt; }
  bool withdraw() override {
    const bool headerStopped = !header || header->withdraw();
    return (!data || data->withdraw()) && headerStopped;
  }
};

}  // namespace

PacedTransport::PacedTransport(std::unique_ptr<Transport> inner, std::vector<int> linkClassOfPeer,
                               std::vector<LinkPacing> classes)
    : inner_(std::move(inner)),
      linkClassOfPeer_(std::move(linkClassOfPeer)),
      classes_(std::move(classes)),
      egressFreeAt_(classes_.size(), 0.0) {}

Status PacedTransport::postSend(const void* buffer, size_t bytes, int peer, int tag,
                                std::unique_ptr<Transfer>* transfer) {
  const int linkClass = linkClassOfPeer_[peer];
  const LinkPacing& link = classes_[linkClass];
  if (!link.paced) return inner_->postSend(buffer, bytes, peer, tag, transfer);
  auto paced = std::make_unique<PacedTransfer>();
  const double now = monotonicSeconds();
  const double departs = std::max(now, egressFreeAt_[linkClass]);
  const double wire = static_cast<double>(bytes) / link.bytesPerSecond;
  egressFreeAt_[linkClass] = departs + wire;
  paced->readyAt = departs + wire;
  paced->headerValue = departs + wire + link.latencySeconds;
  HETCCL_TRY(inner_->postSend(&paced->headerValue, sizeof paced->headerValue, peer, tag, &paced->header));
  HETCCL_TRY(inner_->postSend(buffer, bytes, peer, tag, &paced->data));
  *transfer = std::move(paced);
  return Status::ok();
}

Status PacedTransport::postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) {
  if (!classes_[linkClassOfPeer_[peer]].paced) return inner_->postRecv(buffer, bytes, peer, tag, transfer);
  auto paced = std::make_unique<PacedTransfer>();
  paced->isReceive = true;
  HETCCL_TRY(inner_->postRecv(&paced->headerValue, sizeof paced->headerValue, peer, tag, &paced->header));
  HETCCL_TRY(inner_->postRecv(buffer, bytes, peer, tag, &paced->data));
  *transfer = std::move(paced);
  return Status::ok();
}

}  // namespace hetccl
