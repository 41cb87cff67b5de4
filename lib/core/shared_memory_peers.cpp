#include "core/shared_memory_peers.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "base/log.h"
#include "transport/shm_channel.h"
#include "transport/shm_transport.h"

namespace hetccl {

namespace {

// What decides that two members can map each other's memory: the same kernel (boot id), the
// same host name (a namespace node has its own), the same /dev/shm (a container may have its
// own).
struct HostIdentity {
  char key[192] = {};
  int32_t eligible = 0;
};

std::string hostKey() {
  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  struct stat shm {};
  if (stat("/dev/shm", &shm) != 0) return "";  // no POSIX shared memory here
  char key[192];
  std::snprintf(key, sizeof key, "%s|%s|%llx:%llx", host, boot.c_str(), (unsigned long long)shm.st_dev,
                (unsigned long long)shm.st_ino);
  return key;
}

// Every eligible member's host mates: the other eligible members with its key, in rank order
// (both ends of a pair compute the same lists from the same exchange).  Grouped once by key, so
// a job of one rank per host does not compare every pair of thousands of ranks.
std::vector<std::vector<int>> hostMatesOfAll(const std::vector<HostIdentity>& all) {
  std::map<std::string, std::vector<int>> ranksOfKey;
  for (int r = 0; r < static_cast<int>(all.size()); ++r)
    if (all[static_cast<size_t>(r)].eligible) ranksOfKey[all[static_cast<size_t>(r)].key].push_back(r);
  std::vector<std::vector<int>> mates(all.size());
  for (const auto& [key, ranks] : ranksOfKey) {
    if (ranks.size() < 2) continue;
    for (int r : ranks) {
      std::vector<int>& others = mates[static_cast<size_t>(r)];
      for (int other : ranks)
        if (other != r) others.push_back(other);
    }
  }
  return mates;
}

uint32_t indexOf(const std::vector<int>& list, int rank) {
  return static_cast<uint32_t>(std::find(list.begin(), list.end(), rank) - list.begin());
}

// The inboxes this member has mapped (its own and its peers'), unmapped when the last user goes.
struct Mappings {
  struct Region {
    void* base;
    size_t bytes;
  };
  std::vector<Region> regions;
  ~Mappings() {
    for (const Region& r : regions) munmap(r.base, r.bytes);
  }
};

void* mapSegment(int fd, size_t bytes) {
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return base == MAP_FAILED ? nullptr : base;
}

// Makes this member's inbox; "" (and nothing made) when the host will not give one.
std::string createInbox(uint32_t channels, uint32_t slots, Mappings* mappings, void** base) {
  static std::atomic<unsigned> made{0};
  std::random_device entropy;
  char name[64];
  std::snprintf(name, sizeof name, "/hetccl-%d-%u-%08x", static_cast<int>(getpid()), made.fetch_add(1),
                static_cast<unsigned>(entropy()));
  const int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    HETCCL_INFO("shared memory: cannot create %s (%s); this rank's peers on its host use MPI", name,
                std::strerror(errno));
    return "";
  }
  const size_t bytes = shm::inboxBytes(channels, slots);
  // The pages are allocated now, not at first touch: a full /dev/shm (a container's is often
  // 64 MiB) then fails here, and the pair keeps MPI, instead of a SIGBUS in the middle of a
  // send.  posix_fallocate returns the error rather than setting errno.
  int failure = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  void* mapped = failure == 0 ? mapSegment(fd, bytes) : nullptr;
  if (failure == 0 && mapped == nullptr) failure = errno;
  close(fd);
  if (mapped == nullptr) {
    HETCCL_INFO("shared memory: cannot allocate or map %s (%zu bytes: %s); this rank's peers on its host use MPI", name,
                bytes, std::strerror(failure));
    shm_unlink(name);
    return "";
  }
  // A new segment reads as zeros: every counter and flag starts at 0.
  auto* header = static_cast<shm::InboxHeader*>(mapped);
  header->channels = channels;
  header->slots = slots;
  header->magic = shm::kInboxMagic;
  mappings->regions.push_back({mapped, bytes});
  *base = mapped;
  return name;
}

// Maps a peer's inbox; null when it cannot (then the pair keeps the wire).
void* mapInbox(const char* name, uint32_t channels, uint32_t slots, Mappings* mappings) {
  const int fd = shm_open(name, O_RDWR, 0);
  if (fd < 0) return nullptr;
  const size_t bytes = shm::inboxBytes(channels, slots);
  struct stat st {};
  void* mapped = fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == bytes ? mapSegment(fd, bytes) : nullptr;
  close(fd);
  if (mapped == nullptr) return nullptr;
  const auto* header = static_cast<const shm::InboxHeader*>(mapped);
  if (header->magic != shm::kInboxMagic || header->channels != channels || header->slots != slots) {
    munmap(mapped, bytes);
    return nullptr;
  }
  mappings->regions.push_back({mapped, bytes});
  return mapped;
}

}  // namespace

Status connectSharedMemoryPeers(Bootstrap& members, const SharedMemoryRequest& request,
                                std::unique_ptr<Transport>* wire, int* peersConnected) {
  *peersConnected = 0;
  const int rank = members.rank(), size = members.size();
  HostIdentity mine;
  const std::string key = request.eligible ? hostKey() : "";
  std::snprintf(mine.key, sizeof mine.key, "%s", key.c_str());
  mine.eligible = request.eligible && !key.empty() ? 1 : 0;
  std::vector<HostIdentity> all(static_cast<size_t>(size));
  HETCCL_TRY(members.allGather(&mine, sizeof mine, all.data()));
  // Every member sees the same exchange, so all skip the rest together when no pair can exist.
  const std::vector<std::vector<int>> matesOf = hostMatesOfAll(all);
  if (std::all_of(matesOf.begin(), matesOf.end(), [](const std::vector<int>& m) { return m.empty(); }))
    return Status::ok();

  const std::vector<int>& mates = matesOf[static_cast<size_t>(rank)];
  auto mappings = std::make_shared<Mappings>();
  const auto slots = [](size_t mateCount) { return shm::slotsPerChannel(static_cast<uint32_t>(mateCount)); };
  void* inbox = nullptr;
  struct Name {
    char text[64] = {};
  } myName;
  if (!mates.empty()) {
    const std::string made =
        createInbox(static_cast<uint32_t>(mates.size()), slots(mates.size()), mappings.get(), &inbox);
    std::snprintf(myName.text, sizeof myName.text, "%s", made.c_str());
  }
  std::vector<Name> names(static_cast<size_t>(size));
  Status exchanged = members.allGather(&myName, sizeof myName, names.data());
  if (!exchanged.isOk()) {
    if (myName.text[0]) shm_unlink(myName.text);
    return exchanged;
  }

  std::vector<ShmPeerChannels> channels(static_cast<size_t>(size));
  for (int peer : mates) {
    const char* name = names[static_cast<size_t>(peer)].text;
    if (!name[0]) continue;
    const std::vector<int>& theirMates = matesOf[static_cast<size_t>(peer)];
    const auto theirSlots = slots(theirMates.size());
    void* theirs = mapInbox(name, static_cast<uint32_t>(theirMates.size()), theirSlots, mappings.get());
    if (theirs == nullptr) continue;
    shm::ChannelHead* outbound = shm::channelAt(theirs, indexOf(theirMates, rank), theirSlots);
    outbound->senderAttached.store(1, std::memory_order_release);
    channels[static_cast<size_t>(peer)].outbound = outbound;
    channels[static_cast<size_t>(peer)].outboundSlots = theirSlots;
  }
  // Once everyone has mapped what it could, the names are no longer needed: unlinked, the
  // memory lives exactly as long as the mappings.
  const Status mapped = members.barrier();
  if (myName.text[0]) shm_unlink(myName.text);
  HETCCL_TRY(mapped);

  for (int peer : mates) {
    ShmPeerChannels& pair = channels[static_cast<size_t>(peer)];
    shm::ChannelHead* inbound = inbox ? shm::channelAt(inbox, indexOf(mates, peer), slots(mates.size())) : nullptr;
    if (pair.outbound != nullptr && inbound != nullptr && inbound->senderAttached.load(std::memory_order_acquire)) {
      pair.inbound = inbound;
      pair.inboundSlots = slots(mates.size());
      ++*peersConnected;
    } else {
      pair = ShmPeerChannels{};
    }
  }
  if (*peersConnected == 0) return Status::ok();
  HETCCL_INFO("shared memory: %d peer(s) of this host through rings of %u x %zu-byte slots, messages up to %zu bytes",
              *peersConnected, slots(mates.size()), shm::kSlotBytes, request.maxBytes);
  *wire = std::make_unique<ShmTransport>(std::move(*wire), std::move(channels), request.maxBytes, std::move(mappings));
  return Status::ok();
}

}  // namespace hetccl
