// How a communicator's members reach one another outside the plans' own traffic: the few
// collectives of creation (rank descriptors, the islands' decisions, the communicator's id),
// the link probe's ping-pongs, the call check's comparison, a split of the members, the
// control channel's notices, and the wire the plans' messages then travel on.
//
// Creation and everything after it talk to this interface only, never to MPI, so that the
// whole of core runs two ways: over MPI (bootstrap_mpi.h, what programs use) and over threads
// of one process (bootstrap_threads.h, what the thread-per-rank tests use, also under
// ThreadSanitizer).  Every collective here is called by every member, in the same order.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "transport/transport.h"

namespace hetccl {

// An all-gather in flight, polled (the call check watches for an abort and for peers' failure
// notices while it waits).
class PendingExchange {
 public:
  virtual ~PendingExchange() = default;
  // *done once every member's part has arrived in the output buffer.
  virtual Status test(bool* done) = 0;
};

// The control channel's messages (core/control_channel.h): small, fire-and-forget, received
// from any member.
class NoticeWire {
 public:
  virtual ~NoticeWire() = default;
  // Starts listening; before it, nothing is received.
  virtual Status listen() = 0;
  // One notice that has arrived (copied into `notice`, at most `bytes`), if any; never waits.
  virtual bool take(void* notice, size_t bytes, int* from) = 0;
  // Sends a copy of `notice` to each of `peers`; a peer that is gone never reads it.
  virtual void send(const void* notice, size_t bytes, const std::vector<int>& peers) = 0;
  // The members whose plan messages to this one wait unreceived (they are in an operation this
  // member never joined).
  virtual std::vector<int> peersWithUnreceivedMessages() = 0;
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This member's place in the whole job (MPI_COMM_WORLD's rank and size): the emulated vendor
  // and node lists (core/emulation.h) are indexed by it, whatever group the member is in.
  virtual int jobRank() const = 0;
  virtual int jobSize() const = 0;
  // "MPI", "threads": for logs and hetccl-info.
  virtual std::string describe() const = 0;

  // Every member's `bytes` bytes, in rank order, into `all` (size() * bytes).
  virtual Status allGather(const void* mine, size_t bytes, void* all) = 0;
  virtual Status startAllGather(const void* mine, size_t bytes, void* all,
                                std::unique_ptr<PendingExchange>* pending) = 0;
  // `bytes` at `data` from member `root` to every member.
  virtual Status broadcast(void* data, size_t bytes, int root) = 0;
  virtual Status barrier() = 0;
  // The members that pass the same color >= 0 form one part, ranked by (key, rank); a member
  // passing a negative color joins none and gets null.
  virtual Status split(int color, int key, std::unique_ptr<Bootstrap>* part) = 0;
  // Blocking messages between two members (the link probe).
  virtual Status send(const void* data, size_t bytes, int peer) = 0;
  virtual Status recv(void* data, size_t bytes, int peer) = 0;
  virtual double seconds() const = 0;  // a wall clock, for the link probe
  // The wire's name for this member's node (MPI_Get_processor_name), for HETCCL_NODE_NAME=mpi;
  // "" when the wire has none (the host name is used then).
  virtual std::string nodeName() const { return ""; }

  // The wire the plans' messages travel on (made once, by creation), its messages split at
  // `maxMessageBytes` where the wire needs it.
  virtual std::unique_ptr<Transport> makeWire(size_t maxMessageBytes) = 0;
  virtual const char* wireName() const = 0;  // in the transport's name: "mpi", "loopback"
  // Whether the wire moves memory of a device of `deviceKind` ("cuda", "hip") itself
  // (GPU-aware MPI), asked once per member at creation.
  virtual bool wireReadsDeviceMemory(const std::string& deviceKind) = 0;
  virtual std::unique_ptr<NoticeWire> makeNoticeWire() = 0;
  // Whether several threads may use the wire at once (MPI_THREAD_MULTIPLE); *level names the
  // answer for messages.
  virtual bool allowsConcurrentCalls(std::string* level) const = 0;
};

// *everyone: whether every member passed true.  Collective.
Status allTrue(Bootstrap& members, bool mine, bool* everyone);
// Each member's outcome of a step that can fail alone made everyone's: a failure on some
// members fails all of them together rather than leaving the others waiting in a later
// collective.  Collective.
Status agree(Bootstrap& members, const Status& mine, const char* what);

}  // namespace hetccl
