// Device memory of the strict host device (HETCCL_DEVICE=host-strict): memory the host cannot
// read, as a GPU's.  Each allocation is ordinary memory reached through a second, private
// address (its "reach"); the address handed to the caller lies in a region reserved with no
// access at all, so any host code or MPI call that dereferences it faults at once, where on
// the plain host device it would quietly work and only a GPU would find the bug.  The device's
// own stream workers translate the caller's addresses to reaches (translate()) before they
// copy or reduce.  A fault inside the reserved region is reported on stderr as a host access
// to device memory before the process dies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "base/status.h"

namespace hetccl {

class StrictMemory {
 public:
  StrictMemory() = default;
  ~StrictMemory();  // frees what is still allocated
  StrictMemory(const StrictMemory&) = delete;
  StrictMemory& operator=(const StrictMemory&) = delete;

  Status allocate(void** ptr, size_t bytes);
  Status release(void* ptr);
  // The address the device's workers use for [ptr, ptr + bytes): its reach inside an
  // allocation of this memory, ptr itself for memory outside every allocation (host memory);
  // InvalidArgument for a range that starts in the reserved region but not inside one live
  // allocation (freed, or running past its end).
  Status translate(const void* ptr, size_t bytes, void** reachable);

  // Whether an address lies in the reserved region (lock-free: the fault handler asks).
  static bool isReserved(const void* ptr);

 private:
  struct Allocation {
    size_t bytes = 0;   // as asked for
    size_t mapped = 0;  // whole pages
    char* reach = nullptr;
  };
  std::mutex mutex_;
  std::map<uintptr_t, Allocation> allocations_;  // by the caller's address
};

}  // namespace hetccl
