// Connects the members that share a host through shared-memory rings (transport/shm_transport.h)
// at a communicator's creation.
//
// Which members share a host is asked of the machine, not of the topology: emulated nodes
// (HETCCL_EMULATE_NODES) of one real host still share its memory (their links are paced above
// the wire), and namespace "nodes" with a host name of their own do not use it.  Each member
// makes an inbox (POSIX shared memory, one channel per other member of its host), the members
// exchange the inboxes' names, map their peers', and a pair uses the rings only when both ends
// mapped each other's; everyone else, and every pair that failed, keeps the wire.  The inboxes
// are unlinked at once after the mapping, so nothing is left in /dev/shm even if a process dies.
#pragma once

#include <memory>

#include "base/status.h"
#include "core/bootstrap.h"
#include "transport/transport.h"

namespace hetccl {

struct SharedMemoryRequest {
  // Whether this member may use the rings at all (HETCCL_SHM_MAX_BYTES > 0, an MPI wire that
  // is not a simulator's, polling waits, host-readable buffers).  Members disagreeing is fine:
  // a pair needs both ends willing.
  bool eligible = false;
  size_t maxBytes = 0;
};

// Collective over the members.  Replaces *wire by a ShmTransport over it when at least one
// other member of this host was connected; *peersConnected says how many were.
Status connectSharedMemoryPeers(Bootstrap& members, const SharedMemoryRequest& request,
                                std::unique_ptr<Transport>* wire, int* peersConnected);

}  // namespace hetccl
