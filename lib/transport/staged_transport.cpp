#include "transport/staged_transport.h"

#include <algorithm>
#include <iterator>

namespace hetccl {

// One slot-sized part of a staged transfer, and where it is in its life.
struct StagedTransport::Piece {
  enum class Stage { WaitingForSlot, CopyingToHost, OnTheWire, CopyingToDevice, Done };
  bool isSend = true;
  char* device = nullptr;  // the user's (device) memory of this piece
  size_t bytes = 0;
  int peer = 0, tag = 0;
  Stage stage = Stage::WaitingForSlot;
  char* slot = nullptr;
  std::unique_ptr<DeviceEvent> copied;
  std::unique_ptr<Transfer> wire;
};

namespace {

class StagedTransfer : public Transfer {
 public:
  StagedTransfer(StagedTransport& owner, std::vector<std::shared_ptr<StagedTransport::Piece>> pieces)
      : owner_(owner), pieces_(std::move(pieces)) {}
  Status test(bool* done) override;
  // What touches memory later is a piece on the wire (its host slot, which the transport owns,
  // and nothing of the caller's: the copy to the device runs only when the transport makes
  // progress); copies already on the stream end with it before the memory goes.
  bool withdraw() override {
    bool stopped = true;
    for (const auto& piece : pieces_)
      if (piece->stage == StagedTransport::Piece::Stage::OnTheWire && piece->wire && !piece->wire->withdraw())
        stopped = false;
    return stopped;
  }

 private:
  StagedTransport& owner_;
  std::vector<std::shared_ptr<StagedTransport::Piece>> pieces_;
};

}  // namespace

StagedTransport::StagedTransport(std::unique_ptr<Transport> inner, Device& device, size_t slotBytes, int slots)
    : inner_(std::move(inner)),
      device_(device),
      slotBytes_(std::max<size_t>(1, slotBytes)),
      slotCount_(std::max(1, slots)) {}

StagedTransport::~StagedTransport() {
  (void)device_.synchronizeStream(copyStream_);
  pieces_.clear();
  for (char* slot : allSlots_) (void)device_.releaseHost(slot);
  if (copyStream_) (void)device_.destroyStream(copyStream_);
}

Status StagedTransport::initialize() {
  HETCCL_TRY(device_.createStream(&copyStream_));
  for (int i = 0; i < slotCount_; ++i) {
    void* slot = nullptr;
    HETCCL_TRY(device_.allocateHost(&slot, slotBytes_));
    allSlots_.push_back(static_cast<char*>(slot));
    freeSlots_.push_back(static_cast<char*>(slot));
  }
  return Status::ok();
}

static Status postPieces(StagedTransport& owner, std::deque<std::shared_ptr<StagedTransport::Piece>>& queue,
                         bool isSend, char* buffer, size_t bytes, int peer, int tag, size_t slotBytes,
                         std::unique_ptr<Transfer>* transfer) {
  std::vector<std::shared_ptr<StagedTransport::Piece>> pieces;
  size_t offset = 0;
  do {  // a zero-byte message is still one (empty) piece, so that it is matched
    auto piece = std::make_shared<StagedTransport::Piece>();
    piece->isSend = isSend;
    piece->device = buffer + offset;
    piece->bytes = std::min(slotBytes, bytes - offset);
    piece->peer = peer;
    piece->tag = tag;
    queue.push_back(piece);
    pieces.push_back(piece);
    offset += piece->bytes;
  } while (offset < bytes);
  *transfer = std::make_unique<StagedTransfer>(owner, std::move(pieces));
  return owner.progress();
}

Status StagedTransport::postSend(const void* buffer, size_t bytes, int peer, int tag,
                                 std::unique_ptr<Transfer>* transfer) {
  return postPieces(*this, pieces_, true, const_cast<char*>(static_cast<const char*>(buffer)), bytes, peer, tag,
                    slotBytes_, transfer);
}

Status StagedTransport::postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) {
  return postPieces(*this, pieces_, false, static_cast<char*>(buffer), bytes, peer, tag, slotBytes_, transfer);
}

// Moves one piece as far as it can go without waiting.
Status StagedTransport::advance(Piece& piece, bool mayPostSend, bool* finished) {
  using Stage = Piece::Stage;
  *finished = false;
  if (piece.stage == Stage::WaitingForSlot) {
    if (freeSlots_.empty()) {
      // Grow rather than wait: a receive holding a slot can wait on a peer whose sends wait
      // for slots, and bounded pools can deadlock across ranks that way.
      void* slot = nullptr;
      HETCCL_TRY(device_.allocateHost(&slot, slotBytes_));
      allSlots_.push_back(static_cast<char*>(slot));
      freeSlots_.push_back(static_cast<char*>(slot));
    }
    piece.slot = freeSlots_.back();
    freeSlots_.pop_back();
    if (piece.isSend) {
      HETCCL_TRY(device_.copyAsync(piece.slot, piece.device, piece.bytes, copyStream_));
      HETCCL_TRY(device_.recordEvent(copyStream_, &piece.copied));
      piece.stage = Stage::CopyingToHost;
    } else {
      HETCCL_TRY(inner_->postRecv(piece.slot, piece.bytes, piece.peer, piece.tag, &piece.wire));
      piece.stage = Stage::OnTheWire;
    }
  }
  if (piece.stage == Stage::CopyingToHost) {
    if (!mayPostSend || !piece.copied->query()) return Status::ok();
    HETCCL_TRY(inner_->postSend(piece.slot, piece.bytes, piece.peer, piece.tag, &piece.wire));
    piece.stage = Stage::OnTheWire;
  }
  if (piece.stage == Stage::OnTheWire) {
    bool done = false;
    HETCCL_TRY(piece.wire->test(&done));
    if (!done) return Status::ok();
    piece.wire.reset();
    if (piece.isSend) {
      piece.stage = Stage::Done;
    } else {
      HETCCL_TRY(device_.copyAsync(piece.device, piece.slot, piece.bytes, copyStream_));
      HETCCL_TRY(device_.recordEvent(copyStream_, &piece.copied));
      piece.stage = Stage::CopyingToDevice;
    }
  }
  if (piece.stage == Stage::CopyingToDevice) {
    if (!piece.copied->query()) return Status::ok();
    piece.stage = Stage::Done;
  }
  if (piece.stage == Stage::Done && piece.slot) {
    freeSlots_.push_back(piece.slot);
    piece.slot = nullptr;
  }
  *finished = piece.stage == Piece::Stage::Done;
  return Status::ok();
}

Status StagedTransport::progress() {
  // Sends must reach MPI in posting order.  Their copies finish in order on the one copy
  // stream, but the copy of a later piece can finish between the checks of an earlier and a
  // later piece in this loop: so once a send is still copying, later sends wait.
  bool earlierSendCopying = false;
  for (auto it = pieces_.begin(); it != pieces_.end();) {
    Piece& piece = **it;
    bool finished = false;
    HETCCL_TRY(advance(piece, /*mayPostSend=*/!earlierSendCopying, &finished));
    if (piece.isSend && piece.stage == Piece::Stage::CopyingToHost) earlierSendCopying = true;
    it = finished ? pieces_.erase(it) : std::next(it);
  }
  return Status::ok();
}

Status StagedTransfer::test(bool* done) {
  HETCCL_TRY(owner_.progress());
  *done = std::all_of(pieces_.begin(), pieces_.end(),
                      [](const auto& piece) { return piece->stage == StagedTransport::Piece::Stage::Done; });
  return Status::ok();
}

}  // namespace hetccl
