#include "core/communicator.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

#include "algorithms/algorithm.h"
#include "base/log.h"
#include "core/broken_pipe.h"
#include "core/live_communicators.h"
#include "core/process_device.h"
#include "core/progress_mode.h"
#include "core/retirement.h"

namespace hetccl {

namespace {

// The communicator's id: the next after the largest any member has made, so equal on every
// member and increasing on each.
Status agreeOnId(Bootstrap& members, uint64_t* id) {
  static std::atomic<uint64_t> lastId{0};
  const uint64_t proposed = lastId.load() + 1;
  std::vector<uint64_t> all(static_cast<size_t>(members.size()));
  HETCCL_TRY(members.allGather(&proposed, sizeof proposed, all.data()));
  *id = *std::max_element(all.begin(), all.end());
  // Another thread's communicator may have moved it on meanwhile: never backwards.
  for (uint64_t seen = lastId.load(); seen < *id && !lastId.compare_exchange_weak(seen, *id);) {}
  return Status::ok();
}

}  // namespace

Status createCommunicator(std::unique_ptr<Bootstrap> members, const hetcclConfig_t* config, hetcclComm** out) {
  Settings settings;
  HETCCL_TRY(loadSettings(config, &settings));
  return createCommunicator(std::move(members), settings, out);
}

namespace {

// The collective part of creation, into `comm` (not yet live, or a pending creation's).
Status build(std::unique_ptr<Bootstrap> members, const Settings& settings, hetcclComm* comm) {
  ignoreBrokenPipeSignalsOnce();
  Device* device = nullptr;
  HETCCL_TRY(processDevice(&device));

  comm->settings = settings;
  comm->device = device;
  comm->members = std::move(members);
  Bootstrap& peers = *comm->members;
  if (!comm->creation) {  // a pending one's were set at its start (and queries read them)
    comm->rank = peers.rank();
    comm->nranks = peers.size();
  }
  HETCCL_TRY(agreeOnId(peers, &comm->id));

  // The stream comes after setUpPeers(): every rank must reach its collectives, and a failure
  // that only this rank sees must not leave the others waiting in them.
  Status status = setUpPeers(peers, settings, *device, &comm->setup);
  PeerSetup& c = comm->setup;
  // hetccl's own stream, for the executor's copies and reductions.  Where the host runs them
  // anyway (the host device), an inline stream: the executor already runs off the caller's
  // thread, on the progress thread, and handing each step's work on to a stream's worker cost a
  // wake-up per step, more than a 128 KiB copy takes (docs/PERFORMANCE.md, "No size slower than
  // MPI").  The strict host device keeps a worker, as it stands for a GPU.
  const bool inlineOwnStream = device->hasInlineStreams() && device->hostReadsMemory();
  if (status.isOk())
    status = inlineOwnStream ? device->createInlineStream(&comm->stream) : device->createStream(&comm->stream);
  if (!status.isOk()) {
    abandon(c);
    return status;
  }
  if (status.isOk()) status = startProgressEngine(settings, peers, *device, &comm->engine, &comm->progressDescription);
  if (status.isOk()) {
    comm->control = std::make_unique<ControlChannel>(peers.makeNoticeWire(), comm->id, comm->rank, comm->nranks);
    status = comm->control->start();
  }
  if (status.isOk() && device->hasInlineStreams() && settings.inlineBytes > 0)
    status = device->createInlineStream(&comm->inlineStream);
  if (status.isOk() && c.islandLibrary) status = device->createStream(&comm->islandStream);
  if (!status.isOk()) {
    comm->control.reset();
    if (comm->stream) (void)device->destroyStream(comm->stream);
    if (comm->inlineStream) (void)device->destroyStream(comm->inlineStream);
    abandon(c);
    return status;
  }
  comm->executor = std::make_unique<Executor>(*device, *c.transport, comm->stream);
  comm->executor->setIslandCollectives(c.islandLibrary.get(), comm->islandStream);
  comm->executor->setAbortFlag(&comm->engine->abortRequested());
  hetcclComm* self = comm;
  auto remoteFailure = [self] { return self->control->poll(self->runningCollective.load(std::memory_order_relaxed)); };
  comm->executor->setInterruptCheck(remoteFailure);
  const bool oversubscribed = c.links.ranksPerHardwareThread > 1;
  comm->executor->setYieldAtOnce(oversubscribed);
  comm->executor->setStreamRunsInline(inlineOwnStream);
  if (comm->inlineStream) {
    comm->inlineExecutor = std::make_unique<Executor>(*device, *c.transport, comm->inlineStream);
    comm->inlineExecutor->setAbortFlag(&comm->engine->abortRequested());
    comm->inlineExecutor->setInterruptCheck(remoteFailure);
    comm->inlineExecutor->setYieldAtOnce(oversubscribed);
    comm->inlineExecutor->setStreamRunsInline(true);
  }
  comm->scratch = std::make_unique<DeviceBuffer>(*device);
  HETCCL_INFO(
      "comm %p rank %d nranks %d: device %s, vendor %s, island %d of %d (%s), algorithm %s, "
      "chunk %zu B%s, pipeline depth %d, link parameters from %s, transport intra %s inter %s, "
      "island library %s, operations run by the %s, inline up to %zu B",
      static_cast<void*>(comm), comm->rank, comm->nranks, device->description().c_str(),
      c.topology.ranks[comm->rank].vendor, c.topology.view.islandOf[comm->rank], c.topology.view.islandCount(),
      c.topology.view.describe().c_str(), algorithmSettingName(settings).c_str(), settings.chunkBytes,
      settings.chunkBytesSet() ? "" : " (tuned)", settings.pipelineDepth, c.links.source.c_str(),
      c.transportName[kIntraIsland].c_str(), c.transportName[kInterIsland].c_str(),
      c.islandLibrary ? c.islandLibrary->describe().c_str() : "none", comm->progressDescription.c_str(),
      comm->inlineExecutor ? settings.inlineBytes : size_t{0});
  return Status::ok();
}

}  // namespace

Status createCommunicator(std::unique_ptr<Bootstrap> members, const Settings& settings, hetcclComm** out) {
  auto comm = std::make_unique<hetcclComm>();
  HETCCL_TRY(build(std::move(members), settings, comm.get()));
  registerCommunicator(comm.get());
  *out = comm.release();
  return Status::ok();
}

Status startCreation(ConnectMembers connect, const Settings& settings, int rank, int nranks, hetcclComm** out) {
  auto comm = std::make_unique<hetcclComm>();
  comm->rank = rank;
  comm->nranks = nranks;
  comm->creation = std::make_unique<PendingCreation>();
  PendingCreation& creation = *comm->creation;
  hetcclComm* self = comm.get();
  creation.worker = std::thread([self, &creation, connect = std::move(connect), settings] {
    std::unique_ptr<Bootstrap> members;
    Status outcome = connect([&creation] { return creation.stop.load(std::memory_order_acquire); }, &members);
    if (outcome.isOk()) outcome = build(std::move(members), settings, self);
    if (!outcome.isOk())
      HETCCL_WARN("comm %p: its non-blocking creation failed: %s", static_cast<void*>(self), outcome.message().c_str());
    creation.outcome = outcome;
    creation.finished.store(true, std::memory_order_release);
  });
  registerCommunicator(comm.get());
  *out = comm.release();
  return Status::ok();
}

Status creationState(const hetcclComm& comm) {
  if (!comm.creation) return Status::ok();
  if (!comm.creation->finished.load(std::memory_order_acquire))
    return Status(Code::InProgress, "the communicator is still being created (non-blocking creation)");
  // Asked by every call: a success is not copied (a string copy per call).
  return comm.creation->outcome.isOk() ? Status::ok() : comm.creation->outcome;
}

// A communicator whose thread is stuck in a call (in MPI, after a peer failed) may yet see that
// thread come back into everything it holds: nothing can be freed, nor MPI called to tell the
// peers (they time out on their own).  Left for the process's life, like retired remains.
namespace {

Status leaveAllocated(hetcclComm* comm) {
  comm->engine->abort();
  HETCCL_WARN(
      "comm %p: its progress thread is stuck in a call that has not returned; the communicator is left "
      "allocated, not freed",
      static_cast<void*>(comm));
  return Status::ok();
}

}  // namespace

Status destroyCommunicator(hetcclComm* comm, bool abort) {
  if (!unregisterCommunicator(comm))
    return HETCCL_STATUS(Code::InvalidArgument, "comm %p is not a live communicator", static_cast<void*>(comm));
  if (comm->creation) {
    // A destroy lets a non-blocking creation end; an abort stops one that still waits for
    // members (past the rendezvous the members are all there, and it ends soon).
    if (abort) comm->creation->stop.store(true, std::memory_order_release);
    if (comm->creation->worker.joinable()) comm->creation->worker.join();
    if (!comm->creation->outcome.isOk()) {
      waitUntilReleased(comm);  // only queries can hold it
      delete comm;
      return Status::ok();
    }
  }
  // Aborted in the middle of an operation (another thread inside a call, or work queued): the
  // peers waiting in it with this rank are told so below.
  if (comm->engine->stalled() && !comm->engine->stalledThreadReturned()) return leaveAllocated(comm);
  const bool midOperation = abort && (comm->holders.load(std::memory_order_acquire) > 0 || !comm->engine->idle());
  // An aborted operation stops at its next poll.  A thread that does not come back within a
  // second may wait for the island vendor library's kernels, which that library's abort ends;
  // one still not back after that is stuck in a call (MPI after a peer died) and given up, as
  // the watchdog does.
  PeerSetup& c = comm->setup;
  if (abort) comm->engine->abort();
  if (abort && !comm->engine->awaitAbortedThread(1.0)) {
    if (c.islandLibrary) c.islandLibrary->close(true);
    c.islandLibrary.reset();
    if (!comm->engine->awaitAbortedThread(1.0)) {
      comm->engine->giveUpThread(2.0);
      return leaveAllocated(comm);
    }
  }
  waitUntilReleased(comm);
  // The engine first: its thread uses everything below.  Destroying it lets queued operations
  // finish, unless aborted.
  comm->engine.reset();
  // Nothing runs any more: the peers waiting in an operation with this rank learn it now.
  if (midOperation)
    comm->control->announce(
        HETCCL_STATUS(Code::Aborted, "its communicator was aborted during an operation (hetcclCommAbort)"));
  else
    comm->control->tellWaitingPeers(comm->collectiveSequence,
                                    c.transport ? c.transport->peersWithUnreceivedMessages() : std::vector<int>{});
  if (c.islandLibrary) c.islandLibrary->close(abort);
  c.islandLibrary.reset();
  // Also after an abort: copies and reductions of the stopped operation may still be queued on
  // hetccl's stream, and they touch the scratch and staging memory freed below (the vendor
  // library, whose kernels could wait for peers, was aborted first).
  (void)comm->device->synchronizeStream(comm->stream);
  if (comm->islandStream) (void)comm->device->synchronizeStream(comm->islandStream);
  // Freed now, or kept for the process's life when late messages may still land (retirement.h).
  retire(CommunicatorRemains{std::move(comm->executor), std::move(comm->inlineExecutor), std::move(c.transport),
                             std::move(comm->scratch), std::move(comm->control), std::move(comm->members)});
  if (comm->stream) (void)comm->device->destroyStream(comm->stream);
  if (comm->inlineStream) (void)comm->device->destroyStream(comm->inlineStream);
  if (comm->islandStream) (void)comm->device->destroyStream(comm->islandStream);
  delete comm;
  return Status::ok();
}

Status communicatorFailure(hetcclComm& comm) {
  if (comm.isPoisoned.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> guard(comm.failureLock);
    return comm.poisoned;
  }
  return comm.engine ? comm.engine->asyncError() : Status::ok();
}

void poison(hetcclComm& comm, const Status& failure) {
  std::lock_guard<std::mutex> guard(comm.failureLock);
  if (comm.poisoned.isOk()) comm.poisoned = failure;
  comm.isPoisoned.store(true, std::memory_order_release);
}

}  // namespace hetccl
