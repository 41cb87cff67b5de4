// Runs a function on N threads of this process, one per rank, each with what a rank of a real
// job has: its own host device (or one shared by all) and stream, a transport stack (the
// loopback fabric, with the staged and the link-pacing decorators on top when asked), an
// executor and, on an island that "has a vendor library", island collectives among the
// island's threads.  So the
// executor and the transports are tested without mpirun, and under ThreadSanitizer.
//
// A rank that fails aborts the fabric and the islands, so that ranks waiting for it fail too
// instead of hanging; a job that runs past its time limit is aborted the same way (a
// deadlock).  The first failure is what the job reports.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "algorithms/topology_view.h"
#include "base/status.h"
#include "device/device.h"
#include "runtime/executor.h"
#include "transport/link_pacing.h"
#include "transport/transport.h"

namespace hetccl {

// Which decorators sit on the loopback, and how.
struct LinkStack {
  bool staged = false;
  size_t stagingSlotBytes = 64;  // small, so that messages travel as several pieces
  int stagingSlots = 2;          // few, so that the pool grows
  bool paced = false;
  // Fast links keep the tests quick and still pace every transfer (header message, clocks).
  LinkPacing intraIsland{true, 10e9, 1e-6};
  LinkPacing interIsland{true, 5e9, 2e-6};

  std::string describe() const;  // "loopback+staged(64 B x 2)+paced"
};

// The four stacks worth testing: the loopback alone, each decorator alone, both.
const std::vector<LinkStack>& allLinkStacks();

struct RankContext {
  int rank = 0;
  int nranks = 1;
  Device& device;
  StreamHandle stream;
  Transport& transport;
  Executor& executor;
};

// Device memory of one rank, released only once the rank's stream has finished with it (a
// run that failed midway may have left work queued that touches it).
class RankMemory {
 public:
  explicit RankMemory(RankContext& context) : context_(context) {}
  ~RankMemory();
  RankMemory(const RankMemory&) = delete;
  RankMemory& operator=(const RankMemory&) = delete;
  // *out is null for 0 bytes.
  Status allocate(size_t bytes, char** out);

 private:
  RankContext& context_;
  std::vector<void*> blocks_;
};

struct ThreadJob {
  int nranks = 1;
  LinkStack links;
  // Islands: the link classes of the pacing decorator; islands whose `islandLibrary` is set
  // get island collectives.  No islandOf: one island of every rank, without a library.
  TopologyView topology;
  // One host device for every rank (each still with its own stream), as the communicators of
  // one process share the process's device: its allocation tables and streams are then used
  // from several threads at once.
  bool shareOneDevice = false;
  std::chrono::milliseconds timeLimit{60000};
};

// Runs `body` on every rank; returns ok, or the first failure prefixed with its rank.
Status runOnThreadRanks(const ThreadJob& job, const std::function<Status(RankContext&)>& body);

}  // namespace hetccl
