#include "device/host/strict_memory.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <iterator>
#include <mutex>

namespace hetccl {

namespace {

constexpr size_t kPage = 4096;

// One region per process for every caller-visible address, never reused: a stale pointer to
// freed device memory faults too, instead of landing in a newer allocation.  Reserved without
// access and without backing memory, so its size only costs address space.
struct ReservedRegion {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<uintptr_t> next{0};
};
ReservedRegion region;
struct sigaction previousSegv, previousBus;

// Async-signal-safe: no stdio, no allocation.
void writeText(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void writeAddress(const void* address) {
  char text[2 + 16 + 1] = "0x";
  const uintptr_t value = reinterpret_cast<uintptr_t>(address);
  for (int digit = 0; digit < 16; ++digit) text[2 + digit] = "0123456789abcdef"[(value >> (60 - 4 * digit)) & 0xf];
  text[18] = '\0';
  writeText(text);
}

void passOn(int signal, siginfo_t* info, void* context, const struct sigaction& previous) {
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
  } else {
    // The default action: returning re-runs the faulting access, which now kills the process.
    ::signal(signal, SIG_DFL);
  }
}

void onFault(int signal, siginfo_t* info, void* context) {
  if (info && StrictMemory::isReserved(info->si_addr)) {
    writeText("hetccl: host-strict device: the host touched device memory at ");
    writeAddress(info->si_addr);
    writeText(
        " (HETCCL_DEVICE=host-strict: device memory is reached only through the device's copies and "
        "reductions, as on a GPU)\n");
    ::signal(signal, SIG_DFL);
    return;
  }
  passOn(signal, info, context, signal == SIGBUS ? previousBus : previousSegv);
}

Status reserveRegion() {
  static std::once_flag once;
  static Status reserved;
  std::call_once(once, [] {
    // 1 TiB of address space, less where the address space (or a sanitizer's layout) is tighter.
    for (size_t bytes = size_t{1} << 40; bytes >= (size_t{16} << 30); bytes /= 2) {
      void* base = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) continue;
      region.begin = reinterpret_cast<uintptr_t>(base);
      region.next = reinterpret_cast<uintptr_t>(base);
      region.end = reinterpret_cast<uintptr_t>(base) + bytes;
      struct sigaction handler = {};
      handler.sa_sigaction = onFault;
      handler.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&handler.sa_mask);
      sigaction(SIGSEGV, &handler, &previousSegv);
      sigaction(SIGBUS, &handler, &previousBus);
      return;
    }
    reserved = HETCCL_STATUS(Code::SystemError, "host-strict: could not reserve address space for device memory");
  });
  return reserved;
}

}  // namespace

bool StrictMemory::isReserved(const void* ptr) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  return address >= region.begin.load(std::memory_order_relaxed) &&
         address < region.end.load(std::memory_order_relaxed);
}

StrictMemory::~StrictMemory() {
  for (auto& [address, allocation] : allocations_) munmap(allocation.reach, allocation.mapped);
}

Status StrictMemory::allocate(void** ptr, size_t bytes) {
  HETCCL_TRY(reserveRegion());
  const size_t mapped = (bytes + kPage - 1) / kPage * kPage;
  // Bump allocation: a page of distance between allocations, so running off one's end faults
  // too instead of reaching the next.
  const uintptr_t address = region.next.fetch_add(mapped + kPage);
  if (address + mapped > region.end.load())
    return HETCCL_STATUS(Code::SystemError, "host-strict: the address space reserved for device memory is used up");
  void* reach = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reach == MAP_FAILED) return HETCCL_STATUS(Code::SystemError, "host-strict: out of memory for %zu bytes", bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_[address] = Allocation{bytes, mapped, static_cast<char*>(reach)};
  *ptr = reinterpret_cast<void*>(address);
  return Status::ok();
}

Status StrictMemory::release(void* ptr) {
  Allocation gone;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = allocations_.find(reinterpret_cast<uintptr_t>(ptr));
    if (found == allocations_.end())
      return HETCCL_STATUS(Code::InvalidArgument, "release: %p was not allocated by allocate", ptr);
    gone = found->second;
    allocations_.erase(found);
  }
  munmap(gone.reach, gone.mapped);
  return Status::ok();
}

Status StrictMemory::translate(const void* ptr, size_t bytes, void** reachable) {
  *reachable = const_cast<void*>(ptr);
  if (!isReserved(ptr)) return Status::ok();
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto after = allocations_.upper_bound(address);
  if (after == allocations_.begin())
    return HETCCL_STATUS(Code::InvalidArgument, "%p is not (or no longer) allocated device memory", ptr);
  const auto& [base, allocation] = *std::prev(after);
  if (address + bytes > base + allocation.bytes)
    return HETCCL_STATUS(
        Code::InvalidArgument,
        "%zu bytes at %p run past the end of device memory allocated at %p (%zu bytes), or it was freed", bytes, ptr,
        reinterpret_cast<void*>(base), allocation.bytes);
  *reachable = allocation.reach + (address - base);
  return Status::ok();
}

}  // namespace hetccl
