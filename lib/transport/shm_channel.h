// The layout of the shared memory that ranks of one host exchange small messages through
// (shm_transport.h).  Each rank owns an inbox: one channel per other rank of its host that
// sends to it.  A channel is a single-producer, single-consumer ring of fixed-size slots: the
// sender fills a slot and then stamps it with its sequence number; the receiver waits for the
// stamp of the slot it expects next, empties it and advances `consumed`, which the sender reads
// only when the ring looks full.  So a message of up to 40 bytes costs the receiver one cache
// line from the sender's core (the slot's first: stamp, header and payload together), not two (a
// separate `published` counter and then the slot), and neither side ever takes a lock the other
// holds.  A message larger than a slot's payload takes consecutive slots (fragments); a sender
// writes one message's fragments before the next message's.
//
// The counters are lock-free std::atomic, which is address-free: the two processes map the
// segment at different addresses and still see each other's stores.  A new segment reads as
// zeros: every stamp, counter and flag starts at 0, and the first slot written is stamped 1.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hetccl::shm {

// One slot: a fragment's stamp and header (24 bytes) and up to kSlotPayloadBytes of the
// message: the first 40 bytes share the slot's first cache line with the stamp.  8 KiB slots
// carry a 64 KiB message in 9.
constexpr size_t kSlotBytes = 8192;
constexpr size_t kSlotHeaderBytes = 24;
constexpr size_t kSlotPayloadBytes = kSlotBytes - kSlotHeaderBytes;

struct alignas(64) Slot {
  // The slot's place in the channel's sequence (1-based), stored last with release order: the
  // receiver reads the fields below only after it sees the number it expects.
  std::atomic<uint64_t> stamp;
  uint64_t messageBytes;   // the whole message's size (in every fragment)
  int32_t tag;             // the message's tag
  uint32_t fragmentBytes;  // payload bytes in this slot
  unsigned char payload[kSlotPayloadBytes];
};
static_assert(sizeof(Slot) == kSlotBytes, "a slot is exactly kSlotBytes");

struct alignas(64) ChannelHead {
  alignas(64) std::atomic<uint64_t> consumed;  // slots the receiver has emptied (written by the receiver)
  // Set by the sender once it has mapped this inbox: a pair uses shared memory only when both
  // ends have mapped each other's (core/shared_memory_peers.cpp reads it after a barrier).
  alignas(64) std::atomic<uint32_t> senderAttached;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared-memory counters must be lock-free");

// A channel: its head, then `slots` slots.
constexpr size_t channelBytes(uint32_t slots) { return sizeof(ChannelHead) + size_t{slots} * sizeof(Slot); }

struct alignas(64) InboxHeader {
  uint64_t magic;     // kInboxMagic once initialized
  uint32_t channels;  // channels in this inbox
  uint32_t slots;     // slots per channel
};
constexpr uint64_t kInboxMagic = 0x6865746363;  // "hetcc"

constexpr size_t inboxBytes(uint32_t channels, uint32_t slots) {
  return sizeof(InboxHeader) + size_t{channels} * channelBytes(slots);
}

// Channel `index` of an inbox mapped at `base`.
inline ChannelHead* channelAt(void* base, uint32_t index, uint32_t slots) {
  return reinterpret_cast<ChannelHead*>(static_cast<char*>(base) + sizeof(InboxHeader) + index * channelBytes(slots));
}
// Slot `sequence` (0-based) of a channel of `slots` slots, a power of two (a mask, not a
// division, on every fragment).
inline Slot* slotAt(ChannelHead* channel, uint64_t sequence, uint32_t slots) {
  return reinterpret_cast<Slot*>(reinterpret_cast<char*>(channel) + sizeof(ChannelHead)) + (sequence & (slots - 1));
}

// Slots per channel for an inbox of `channels` channels: 16 (a 128 KiB ring), fewer on a host
// with many ranks so an inbox stays near 2 MiB (8, then 4, never fewer: a power of two).
constexpr uint32_t slotsPerChannel(uint32_t channels) {
  if (channels == 0) return 16;
  const size_t fit = (size_t{2} << 20) / (size_t{channels} * kSlotBytes);
  return fit >= 16 ? 16 : fit >= 8 ? 8 : 4;
}
static_assert(slotsPerChannel(1) == 16 && slotsPerChannel(20) == 8 && slotsPerChannel(1000) == 4,
              "slots per channel are powers of two");

}  // namespace hetccl::shm
