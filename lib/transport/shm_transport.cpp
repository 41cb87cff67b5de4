#include "transport/shm_transport.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <typeinfo>

#include "base/spin_lock.h"
#include "transport/shm_channel.h"

namespace hetccl {

namespace {

// One posted send or receive on the rings.  Lives inside its transfer; the engine's queues
// point to it while it is pending.
struct RingOp {
  enum State { Idle, Queued, Active, Complete, Truncated };
  bool isSend = true;
  int peer = 0, tag = 0;
  char* buffer = nullptr;
  size_t bytes = 0;
  size_t copied = 0;        // a send: bytes written to the ring so far
  size_t messageBytes = 0;  // a receive that failed: what the message carried
  State state = Idle;
  // A send whose transfer went away half-written: the engine's own copy of the bytes from
  // `ownedFrom` on, which the receiver is still owed.
  bool engineOwned = false;
  size_t ownedFrom = 0;
  std::vector<char> owned;
  const char* unsent() const { return engineOwned ? owned.data() + (copied - ownedFrom) : buffer + copied; }
};

// What a send or receive is posted with.
struct RingMessage {
  bool isSend = true;
  int peer = 0, tag = 0;
  char* buffer = nullptr;
  size_t bytes = 0;
};

// A message that arrived before its receive was posted, copied out of the ring.
struct Unexpected {
  int tag = 0;
  std::vector<char> bytes;
  size_t received = 0;
  bool complete = false;
  RingOp* claimedBy = nullptr;  // a receive posted while the message was still arriving
  bool abandoned = false;       // its receive went away while it arrived: dropped on completion
};

// Where the fragments of the message now arriving from a peer go.
struct Incoming {
  bool active = false;
  size_t total = 0, received = 0;
  RingOp* receive = nullptr;         // straight into a posted receive's buffer
  Unexpected* unexpected = nullptr;  // or aside
  bool discard = false;              // or nowhere (truncated, or its receive went away)
};

struct PeerState {
  shm::ChannelHead* inbound = nullptr;
  shm::ChannelHead* outbound = nullptr;
  uint32_t inboundSlots = 0, outboundSlots = 0;
  uint64_t consumedLocal = 0;        // what this rank has emptied of `inbound`
  uint64_t publishedLocal = 0;       // what this rank has filled (and stamped) of `outbound`
  uint64_t consumedSeen = 0;         // the receiver's `consumed` as last read
  std::deque<RingOp*> sends;         // in posting order; the front one is being written
  std::deque<RingOp*> receives;      // posted, not yet matched, in posting order
  std::list<Unexpected> unexpected;  // in arrival order
  Incoming incoming;
};

}  // namespace

// The rings' state of one rank, shared by its transport and its transfers (a transfer may
// outlive the transport during retirement).  One lock: the executor's thread and the caller's
// (the inline path) may both post and poll; a spin lock, as each message takes it at least
// three times and another thread rarely wants it at the same moment (base/spin_lock.h).  It is
// held across copies into and out of the rings (up to a ring's worth per peer), so a second
// thread that does want it waits that long, yielding.
class ShmEngine {
 public:
  ShmEngine(const std::vector<ShmPeerChannels>& channels, std::shared_ptr<void> mappings)
      : mappings_(std::move(mappings)) {
    peers_.resize(channels.size());
    for (size_t p = 0; p < channels.size(); ++p) {
      PeerState& peer = peers_[p];
      peer.inbound = channels[p].inbound;
      peer.outbound = channels[p].outbound;
      peer.inboundSlots = channels[p].inboundSlots;
      peer.outboundSlots = channels[p].outboundSlots;
      // Every counter starts at 0: each communicator's inboxes are new (shm_channel.h).
      if (peer.inbound || peer.outbound) ringPeers_.push_back(static_cast<int>(p));
    }
  }

  // Posts `message` in `op`, unless `op` is still pending (queued or arriving: a transfer
  // handed back before it completed); one lock for the check and the post, since another
  // thread's poll may be completing it.
  bool postIfIdle(RingOp* op, const RingMessage& message) {
    std::lock_guard<SpinLock> lock(lock_);
    if (op->state == RingOp::Queued || op->state == RingOp::Active) return false;
    op->isSend = message.isSend;
    op->peer = message.peer;
    op->tag = message.tag;
    op->buffer = message.buffer;
    op->bytes = message.bytes;
    PeerState& peer = peers_[static_cast<size_t>(op->peer)];
    op->copied = 0;
    op->messageBytes = 0;
    if (op->isSend) {
      op->state = RingOp::Queued;
      peer.sends.push_back(op);
      pushSends(peer);  // usually the whole message fits: the send is complete on return
      return true;
    }
    // The oldest message of this tag set aside, if any, is this receive's.
    for (auto it = peer.unexpected.begin(); it != peer.unexpected.end(); ++it) {
      if (it->tag != op->tag || it->claimedBy != nullptr || it->abandoned) continue;
      if (it->complete) {
        deliverAside(*it, op);
        peer.unexpected.erase(it);
      } else {
        it->claimedBy = op;
        op->state = RingOp::Active;
      }
      return true;
    }
    op->state = RingOp::Queued;
    peer.receives.push_back(op);
    pullMessages(peer);
    return true;
  }

  RingOp::State poll(const RingOp* op) {
    std::lock_guard<SpinLock> lock(lock_);
    if (op->state == RingOp::Queued || op->state == RingOp::Active) progressAll();
    return op->state;
  }

  // Takes a pending operation out of the rings' way so its buffer is never touched again.
  void withdraw(RingOp* op) {
    std::lock_guard<SpinLock> lock(lock_);
    if (op->state != RingOp::Queued && op->state != RingOp::Active) return;
    PeerState& peer = peers_[static_cast<size_t>(op->peer)];
    if (op->isSend) {
      auto it = std::find(peer.sends.begin(), peer.sends.end(), op);
      if (op->copied == 0) {
        peer.sends.erase(it);
      } else {
        // Half in the ring: the receiver is owed the rest, which the engine now keeps.
        auto* rest = new RingOp(*op);
        rest->engineOwned = true;
        rest->ownedFrom = op->copied;
        rest->owned.assign(op->buffer + op->copied, op->buffer + op->bytes);
        rest->buffer = nullptr;
        *it = rest;
      }
    } else if (op->state == RingOp::Queued) {
      peer.receives.erase(std::find(peer.receives.begin(), peer.receives.end(), op));
    } else if (peer.incoming.receive == op) {
      peer.incoming.receive = nullptr;
      peer.incoming.discard = true;
    } else {
      for (Unexpected& aside : peer.unexpected)
        if (aside.claimedBy == op) aside.claimedBy = nullptr, aside.abandoned = true;
    }
    op->state = RingOp::Idle;
  }

  std::vector<int> peersWithUnreceivedMessages() {
    std::lock_guard<SpinLock> lock(lock_);
    progressAll();
    std::vector<int> waiting;
    for (int p : ringPeers_) {
      const PeerState& peer = peers_[static_cast<size_t>(p)];
      // Set aside with no receive yet (also one still arriving), or still in the ring with no
      // receive posted to take it.
      bool aside = std::any_of(peer.unexpected.begin(), peer.unexpected.end(),
                               [](const Unexpected& u) { return u.claimedBy == nullptr && !u.abandoned; });
      const bool inRing =
          peer.inbound != nullptr && !peer.incoming.active && peer.receives.empty() && filledSlot(peer) != nullptr;
      if (aside || inRing) waiting.push_back(p);
    }
    return waiting;
  }

  ~ShmEngine() {
    for (PeerState& peer : peers_)
      for (RingOp* op : peer.sends)
        if (op->engineOwned) delete op;
  }

 private:
  void progressAll() {
    for (int p : ringPeers_) {
      PeerState& peer = peers_[static_cast<size_t>(p)];
      if (!peer.sends.empty()) pushSends(peer);
      if (peer.inbound) pullMessages(peer);
    }
  }

  // Writes queued sends into the peer's ring while it has free slots.
  void pushSends(PeerState& peer) {
    shm::ChannelHead* channel = peer.outbound;
    while (!peer.sends.empty()) {
      RingOp* op = peer.sends.front();
      do {
        if (peer.publishedLocal - peer.consumedSeen == peer.outboundSlots) {
          peer.consumedSeen = channel->consumed.load(std::memory_order_acquire);
          if (peer.publishedLocal - peer.consumedSeen == peer.outboundSlots) return;  // full
        }
        shm::Slot* slot = shm::slotAt(channel, peer.publishedLocal, peer.outboundSlots);
        const size_t n = std::min(shm::kSlotPayloadBytes, op->bytes - op->copied);
        slot->messageBytes = op->bytes;
        slot->tag = op->tag;
        slot->fragmentBytes = static_cast<uint32_t>(n);
        if (n > 0) std::memcpy(slot->payload, op->unsent(), n);
        op->copied += n;
        slot->stamp.store(++peer.publishedLocal, std::memory_order_release);
      } while (op->copied < op->bytes);
      peer.sends.pop_front();
      if (op->engineOwned) {
        delete op;  // the rest of a withdrawn send
      } else {
        op->state = RingOp::Complete;
      }
    }
  }

  // The slot this rank empties next from the peer, once the sender has filled it; else null.
  static const shm::Slot* filledSlot(const PeerState& peer) {
    const shm::Slot* slot = shm::slotAt(peer.inbound, peer.consumedLocal, peer.inboundSlots);
    return slot->stamp.load(std::memory_order_acquire) == peer.consumedLocal + 1 ? slot : nullptr;
  }

  // Empties the peer's filled slots into its receives, or aside, while it has a receive posted
  // or a message half taken.  Messages with no receive posted stay in the ring: a message
  // that arrives while the receiver is still busy with an earlier call (a broadcast's root
  // runs ahead) would otherwise be copied aside into an allocation and copied again when its
  // receive comes, on every call.  A sender whose ring is full meanwhile waits until the
  // receiver posts a receive from it: plans never need a ring's worth of unmatched messages
  // buffered (the verifier proves them with sends that complete only when received, as MPI's
  // rendezvous sends do).
  void pullMessages(PeerState& peer) {
    shm::ChannelHead* channel = peer.inbound;
    Incoming& in = peer.incoming;
    while (in.active || !peer.receives.empty()) {
      const shm::Slot* slot = filledSlot(peer);
      if (slot == nullptr) return;
      if (!in.active) begin(peer, slot->tag, slot->messageBytes);
      const size_t n = slot->fragmentBytes;
      if (n > 0 && in.receive != nullptr && !in.discard)
        std::memcpy(in.receive->buffer + in.received, slot->payload, n);
      else if (n > 0 && in.unexpected != nullptr)
        std::memcpy(in.unexpected->bytes.data() + in.received, slot->payload, n);
      in.received += n;
      channel->consumed.store(++peer.consumedLocal, std::memory_order_release);
      if (in.received >= in.total) finish(peer);
    }
  }

  void begin(PeerState& peer, int tag, size_t total) {
    Incoming& in = peer.incoming;
    in = Incoming{};
    in.active = true;
    in.total = total;
    auto match = std::find_if(peer.receives.begin(), peer.receives.end(), [&](RingOp* r) { return r->tag == tag; });
    if (match != peer.receives.end()) {
      in.receive = *match;
      if (match == peer.receives.begin())
        peer.receives.pop_front();  // the usual case, and much cheaper than a deque's erase
      else
        peer.receives.erase(match);
      in.receive->state = RingOp::Active;
      in.receive->messageBytes = total;
      in.discard = total > in.receive->bytes;  // truncated: reported once the message is through
      return;
    }
    peer.unexpected.emplace_back();
    in.unexpected = &peer.unexpected.back();
    in.unexpected->tag = tag;
    in.unexpected->bytes.resize(total);
  }

  void finish(PeerState& peer) {
    Incoming& in = peer.incoming;
    if (in.receive != nullptr) {
      in.receive->state = in.total > in.receive->bytes ? RingOp::Truncated : RingOp::Complete;
    } else if (Unexpected* aside = in.unexpected) {
      aside->complete = true;
      if (aside->claimedBy != nullptr || aside->abandoned) {
        if (aside->claimedBy != nullptr) deliverAside(*aside, aside->claimedBy);
        peer.unexpected.remove_if([aside](const Unexpected& u) { return &u == aside; });
      }
    }
    in = Incoming{};
  }

  static void deliverAside(const Unexpected& aside, RingOp* op) {
    op->messageBytes = aside.bytes.size();
    if (aside.bytes.size() > op->bytes) {
      op->state = RingOp::Truncated;
      return;
    }
    if (!aside.bytes.empty()) std::memcpy(op->buffer, aside.bytes.data(), aside.bytes.size());
    op->state = RingOp::Complete;
  }

  SpinLock lock_;
  std::vector<PeerState> peers_;
  std::vector<int> ringPeers_;
  std::shared_ptr<void> mappings_;
};

namespace {

class RingTransfer final : public Transfer {
 public:
  explicit RingTransfer(std::shared_ptr<ShmEngine> engine) : engine_(std::move(engine)) {}
  ~RingTransfer() override { engine_->withdraw(&op_); }
  RingOp& op() { return op_; }

  Status test(bool* done) override {
    const RingOp::State state = engine_->poll(&op_);
    *done = state == RingOp::Complete;
    if (state == RingOp::Truncated)
      return HETCCL_STATUS(
          Code::SystemError,
          "receive of %zu bytes from rank %d (tag %d) truncated a message of %zu bytes (shared memory)", op_.bytes,
          op_.peer, op_.tag, op_.messageBytes);
    return Status::ok();
  }
  bool withdraw() override {
    engine_->withdraw(&op_);
    return true;  // nothing of the rings touches the buffer afterwards
  }
  const ShmEngine* engine() const { return engine_.get(); }

 private:
  std::shared_ptr<ShmEngine> engine_;
  RingOp op_;
};

}  // namespace

ShmTransport::ShmTransport(std::unique_ptr<Transport> wire, std::vector<ShmPeerChannels> channels, size_t maxBytes,
                           std::shared_ptr<void> mappings)
    : wire_(std::move(wire)), maxBytes_(maxBytes) {
  for (const ShmPeerChannels& peer : channels) ringPeer_.push_back(peer.inbound != nullptr && peer.outbound != nullptr);
  engine_ = std::make_shared<ShmEngine>(channels, std::move(mappings));
}

ShmTransport::~ShmTransport() = default;

bool ShmTransport::usesRings(int peer, size_t bytes) const {
  return bytes <= maxBytes_ && peer >= 0 && static_cast<size_t>(peer) < ringPeer_.size() &&
         ringPeer_[static_cast<size_t>(peer)];
}

int ShmTransport::peersOnRings() const {
  return static_cast<int>(std::count(ringPeer_.begin(), ringPeer_.end(), true));
}

Status ShmTransport::post(bool isSend, char* buffer, size_t bytes, int peer, int tag,
                          std::unique_ptr<Transfer>* transfer) {
  if (buffer == nullptr && bytes > 0)
    return HETCCL_STATUS(Code::InvalidArgument, "shared memory: null buffer for %zu bytes", bytes);
  if (tag < 0 || tag > maxTag())
    return HETCCL_STATUS(Code::InvalidArgument, "shared memory: tag %d outside 0..%d", tag, maxTag());
  // A completed transfer handed back is posted again (no allocation per message).  The class
  // is final: comparing types is exact, and cheaper than a dynamic_cast on every message.
  const RingMessage message{isSend, peer, tag, buffer, bytes};
  Transfer* handedBack = transfer->get();
  auto* reused = handedBack != nullptr && typeid(*handedBack) == typeid(RingTransfer)
                     ? static_cast<RingTransfer*>(handedBack)
                     : nullptr;
  if (reused != nullptr && reused->engine() == engine_.get() && engine_->postIfIdle(&reused->op(), message))
    return Status::ok();
  // The one handed back, if still pending, is withdrawn first (its destructor), so that no
  // message meant for the new operation can land in it.
  *transfer = std::make_unique<RingTransfer>(engine_);
  engine_->postIfIdle(&static_cast<RingTransfer*>(transfer->get())->op(), message);  // a new one is idle
  return Status::ok();
}

Status ShmTransport::postSend(const void* buffer, size_t bytes, int peer, int tag,
                              std::unique_ptr<Transfer>* transfer) {
  if (!usesRings(peer, bytes)) return wire_->postSend(buffer, bytes, peer, tag, transfer);
  return post(true, const_cast<char*>(static_cast<const char*>(buffer)), bytes, peer, tag, transfer);
}

Status ShmTransport::postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) {
  if (!usesRings(peer, bytes)) return wire_->postRecv(buffer, bytes, peer, tag, transfer);
  return post(false, static_cast<char*>(buffer), bytes, peer, tag, transfer);
}

Status ShmTransport::waitForAny(Transfer* const* transfers, size_t count, bool* blocked) {
  // Rings cannot be slept on: with any of theirs among them the caller polls.
  for (size_t t = 0; t < count; ++t)
    if (dynamic_cast<RingTransfer*>(transfers[t]) != nullptr) {
      *blocked = false;
      return Status::ok();
    }
  return wire_->waitForAny(transfers, count, blocked);
}

std::vector<int> ShmTransport::peersWithUnreceivedMessages() {
  // Only the rings' own: what waits in MPI the control channel finds through the bootstrap.
  return engine_->peersWithUnreceivedMessages();
}

}  // namespace hetccl
