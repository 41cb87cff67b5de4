// The communicator: one rank's view of a hetccl job.  It owns its members' bootstrap (over
// MPI, a private duplicate of the user's communicator), the transport over it, the executors and their scratch memory,
// the plans it has built and the progress engine that runs them (dispatch.h says which call goes where).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/p2p_plan.h"
#include "base/status.h"
#include "core/accumulation.h"
#include "core/bootstrap.h"
#include "core/control_channel.h"
#include "core/peer_setup.h"
#include "core/plan_cache.h"
#include "core/settings.h"
#include "device/device.h"
#include "runtime/device_buffer.h"
#include "runtime/executor.h"
#include "runtime/progress_engine.h"

namespace hetccl {

// One collective call, as validated by the API layer.
struct CollectiveCall {
  Collective collective = Collective::AllReduce;
  const void* sendbuff = nullptr;
  void* recvbuff = nullptr;
  size_t count = 0;
  ElementType type = ElementType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
  StreamHandle stream = nullptr;
};

// One send or receive of a group.
struct PointToPointCall {
  bool isSend = true;
  void* buffer = nullptr;
  size_t bytes = 0;
  int peer = 0;
  StreamHandle stream = nullptr;
};

// A creation that goes on after its call returned (hetcclCommInitRank with config.blocking = 0).
struct PendingCreation {
  std::thread worker;             // meets the members, then builds the communicator
  std::atomic<bool> stop{false};  // set by an abort: the rendezvous gives up
  std::atomic<bool> finished{false};
  Status outcome;  // the worker's, written before `finished`
};

}  // namespace hetccl

// The public opaque type (hetcclComm_t points to one).
struct hetcclComm {
  std::unique_ptr<hetccl::Bootstrap> members;  // how the ranks reach one another (bootstrap.h)
  int rank = 0;
  int nranks = 1;
  uint64_t id = 0;  // equal on every rank; orders communicators within a group
  hetccl::Settings settings;
  hetccl::Device* device = nullptr;
  hetccl::StreamHandle stream = nullptr;  // hetccl's own stream on the device
  // Topology, islands, link costs, tuner, transports, island library: built at creation.
  hetccl::PeerSetup setup;
  std::unique_ptr<hetccl::Executor> executor;  // the engine's, on `stream`
  // The inline path's (dispatch.h): on a stream that runs work on the calling thread; null
  // when the device has no such streams or HETCCL_INLINE_BYTES=0.
  hetccl::StreamHandle inlineStream = nullptr;
  // Where the executor runs the island library's steps, beside `stream`, so that they overlap
  // the cross-island phase (algorithms/island_slices.h); null without an island library.
  hetccl::StreamHandle islandStream = nullptr;
  std::unique_ptr<hetccl::Executor> inlineExecutor;
  std::unique_ptr<hetccl::DeviceBuffer> scratch;  // the plans' scratch buffer, made with the executor
  std::unique_ptr<hetccl::ProgressEngine> engine;
  std::unique_ptr<hetccl::ControlChannel> control;  // failures announced to and by peers
  std::string progressDescription;                  // who runs operations and why (hetccl-info)
  hetccl::PlanCache plans;                          // used on the calling thread only
  hetccl::AccumulatedPlanCache accumulatedPlans;    // HETCCL_ACCUMULATE=float32's, likewise
  uint64_t collectiveSequence = 0;                  // collectives launched (native ones aside)
  int collectiveTagBlocks = 0;     // blocks of kMaxPipelineDepth tags the transport has (0: not asked yet)
  int nextCollectiveTagBlock = 0;  // the next collective's (core/dispatch.cpp)
  // The number (1-based) of the collective being run, 0 for none or a point-to-point group:
  // what a peer's leaving notice is compared with (core/control_channel.h).  Written by
  // whichever thread runs the operation, read by its interrupt check.
  std::atomic<uint64_t> runningCollective{0};
  uint64_t operationCount = 0;      // operations launched (native ones aside), for messages
  uint64_t checkedCollectives = 0;  // collectives compared by HETCCL_CHECK_CALLS
  std::string lastAlgorithm = "none";
  uint64_t lastChoiceId = 0;        // the plan cache entry lastAlgorithm came from (CachedPlan::id); 0: none
  double lastPredictedSeconds = 0;  // the tuner's prediction for lastAlgorithm; 0: none made
  std::string lastError;
  // Set by a failure that leaves the communicator unusable (NCCL's async error); read by any
  // thread (a watchdog's hetcclCommGetAsyncError), so only under failureLock.
  hetccl::Status poisoned;
  std::mutex failureLock;
  std::atomic<bool> isPoisoned{false};  // lets every call skip the lock while all is well
  // API calls inside (core/live_communicators.h): destroy waits for none; one operation at a time.
  std::atomic<int> holders{0};
  std::atomic<bool> inOperation{false};
  // Null once made by a blocking call; until `finished` nothing above but rank and nranks is
  // set, and only the worker touches it.
  std::unique_ptr<hetccl::PendingCreation> creation;
};

namespace hetccl {

// Collective over the members, whose bootstrap the communicator then owns (also on failure).
Status createCommunicator(std::unique_ptr<Bootstrap> members, const hetcclConfig_t* config, hetcclComm** comm);
// With settings already loaded (a split's child inherits its parent's).
Status createCommunicator(std::unique_ptr<Bootstrap> members, const Settings& settings, hetcclComm** comm);
// How a non-blocking creation finds its members (on the worker thread; `stopped` turns true
// when the communicator is aborted meanwhile).
using ConnectMembers = std::function<Status(const std::function<bool()>& stopped, std::unique_ptr<Bootstrap>* members)>;
// Returns at once with *comm live but still being created: `connect`, then the collective part
// of createCommunicator, run on a thread of their own (creationState says how far it is).
Status startCreation(ConnectMembers connect, const Settings& settings, int rank, int nranks, hetcclComm** comm);
// Of a communicator the caller holds: ok once made; InProgress while a non-blocking creation
// runs; its failure if that failed.
Status creationState(const hetcclComm& comm);
// Frees everything once queued operations have finished and no call is inside; `abort` skips
// the operations, stops the one running, and does not wait for the device.  Safe from any
// thread; InvalidArgument when `comm` is not live (e.g. destroyed by another thread first).
Status destroyCommunicator(hetcclComm* comm, bool abort);
// What made the communicator unusable (an earlier call's failure, or a queued operation's),
// or ok.
Status communicatorFailure(hetcclComm& comm);
// Makes the communicator unusable with `failure`, unless an earlier failure already did.
void poison(hetcclComm& comm, const Status& failure);

}  // namespace hetccl
