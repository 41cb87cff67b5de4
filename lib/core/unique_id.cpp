#include "core/unique_id.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>

#include <unistd.h>

namespace hetccl {
namespace {

constexpr char kMagic[8] = {'h', 'e', 't', 'c', 'c', 'l', 'I', 'D'};
// 2: the maker's rank and the job's size joined the token (1, the NCCL drop-in's first id,
// carried the token only).
constexpr uint32_t kLayoutVersion = 2;

// Byte layout inside hetcclUniqueId::internal; the remaining bytes stay zero.
struct IdLayout {
  char magic[8];
  uint32_t layoutVersion;
  int32_t makerJobRank;
  uint64_t token;
  int32_t jobSize;
  uint32_t reserved;
};
static_assert(sizeof(IdLayout) <= HETCCL_UNIQUE_ID_BYTES, "the id layout must fit a hetcclUniqueId");

// SplitMix64's finaliser: spreads every input bit over the output.
uint64_t mix(uint64_t value) {
  value += 0x9e3779b97f4a7c15ull;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}

// Two ids made at once must differ, also on one process from two threads: the OS's entropy
// source, with the clock, the pid and a counter mixed in should random_device be deterministic.
uint64_t freshToken() {
  static std::atomic<uint64_t> made{0};
  uint64_t entropy = 0;
  try {
    std::random_device device;
    entropy = (uint64_t(device()) << 32) ^ uint64_t(device());
  } catch (...) {
    // No entropy source: the clock, pid and counter below still separate callers.
  }
  const uint64_t clock = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return mix(entropy ^ mix(clock ^ (uint64_t(::getpid()) << 40) ^ mix(++made)));
}

}  // namespace

hetcclUniqueId makeUniqueId(int makerJobRank, int jobSize) {
  IdLayout layout{};
  std::memcpy(layout.magic, kMagic, sizeof kMagic);
  layout.layoutVersion = kLayoutVersion;
  layout.makerJobRank = makerJobRank;
  layout.token = freshToken();
  layout.jobSize = jobSize;
  hetcclUniqueId id;
  std::memset(&id, 0, sizeof id);
  std::memcpy(id.internal, &layout, sizeof layout);
  return id;
}

Status readUniqueId(const hetcclUniqueId& id, UniqueIdContents* contents) {
  IdLayout layout;
  std::memcpy(&layout, id.internal, sizeof layout);
  if (std::memcmp(layout.magic, kMagic, sizeof kMagic) != 0 || layout.layoutVersion != kLayoutVersion)
    return HETCCL_STATUS(Code::InvalidArgument,
                         "the unique id was not made by hetccl's GetUniqueId (made by another NCCL library or "
                         "another hetccl version, or not passed on intact from the process that made it?)");
  if (layout.makerJobRank < 0 || layout.makerJobRank >= layout.jobSize)
    return HETCCL_STATUS(Code::InvalidArgument, "the unique id is damaged (maker rank %d of %d)", layout.makerJobRank,
                         layout.jobSize);
  contents->token = layout.token;
  contents->makerJobRank = layout.makerJobRank;
  contents->jobSize = layout.jobSize;
  return Status::ok();
}

}  // namespace hetccl
