// ncclGetUniqueId and the id's layout: magic, layout version, token (see unique_id.h).
#include "nccl/unique_id.h"

#include <chrono>
#include <cstring>
#include <random>

#include <unistd.h>

#include "nccl/shim_support.h"

namespace hetccl_nccl {
namespace {

constexpr char kMagic[8] = {'h', 'e', 't', 'c', 'c', 'l', 'I', 'D'};
constexpr uint32_t kLayoutVersion = 1;

// Byte layout inside ncclUniqueId::internal; the remaining bytes stay zero.
struct IdLayout {
  char magic[8];
  uint32_t layoutVersion;
  uint32_t reserved;
  uint64_t token;
};
static_assert(sizeof(IdLayout) <= NCCL_UNIQUE_ID_BYTES, "the id layout must fit an ncclUniqueId");

// SplitMix64's finaliser: spreads every input bit over the output.
uint64_t mix(uint64_t value) {
  value += 0x9e3779b97f4a7c15ull;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}

// Two ids made at once on different hosts must differ: the OS's entropy source, with the clock
// and the pid mixed in should a platform's random_device be deterministic.
uint64_t freshToken() {
  uint64_t entropy = 0;
  try {
    std::random_device device;
    entropy = (uint64_t(device()) << 32) ^ uint64_t(device());
  } catch (...) {
    // No entropy source: the clock and pid below still separate concurrent callers.
  }
  uint64_t clock = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return mix(entropy ^ mix(clock ^ (uint64_t(::getpid()) << 40)));
}

}  // namespace

ncclUniqueId makeUniqueId() {
  IdLayout layout{};
  std::memcpy(layout.magic, kMagic, sizeof kMagic);
  layout.layoutVersion = kLayoutVersion;
  layout.token = freshToken();
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  std::memcpy(id.internal, &layout, sizeof layout);
  return id;
}

bool readUniqueIdToken(const ncclUniqueId& id, uint64_t* token) {
  IdLayout layout;
  std::memcpy(&layout, id.internal, sizeof layout);
  if (std::memcmp(layout.magic, kMagic, sizeof kMagic) != 0 || layout.layoutVersion != kLayoutVersion) return false;
  *token = layout.token;
  return true;
}

int colourOfToken(uint64_t token) { return int(mix(token) & 0x7fffffffu); }

}  // namespace hetccl_nccl

extern "C" {

// Needs no MPI: the id is only random bytes until ncclCommInitRank uses it.
ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId) {
  if (!uniqueId) return hetccl_nccl::fail(ncclInvalidArgument, "ncclGetUniqueId", "uniqueId is NULL");
  *uniqueId = hetccl_nccl::makeUniqueId();
  return ncclSuccess;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGetUniqueId);

}  // extern "C"
