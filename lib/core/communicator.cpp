#include "core/communicator.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

#include "algorithms/algorithm.h"
#include "base/log.h"
#include "core/process_device.h"

namespace hetccl {

namespace {

// Live communicators of this process, so that a destroyed handle is reported as an invalid
// argument instead of being dereferenced.  Process-wide by nature: handles are.
std::mutex registryLock;
std::unordered_set<const hetcclComm*>& registry() {
  static std::unordered_set<const hetcclComm*> live;
  return live;
}

// Tags 1..kMaxPipelineDepth carry point-to-point groups, which only the ranks involved run
// (so they cannot share the collectives' sequence); collectives cycle through the rest.
int pointToPointTagBase() { return 1; }
int collectiveTagBase(const hetcclComm& comm, uint32_t sequence) {
  int blocks = std::max(1, comm.connection.transport->maxTag() / kMaxPipelineDepth - 1);
  return 1 + kMaxPipelineDepth * (1 + static_cast<int>(sequence % static_cast<uint32_t>(blocks)));
}

ExecutionSettings executionSettings(const hetcclComm& comm) {
  return ExecutionSettings{comm.settings.chunkBytes, comm.settings.pipelineDepth};
}

bool isInPlace(const CollectiveCall& call, int rank, size_t elementBytes) {
  const char* send = static_cast<const char*>(call.sendbuff);
  const char* recv = static_cast<const char*>(call.recvbuff);
  switch (call.collective) {
    case Collective::ReduceScatter: return recv == send + rank * call.count * elementBytes;
    case Collective::AllGather: return send == recv + rank * call.count * elementBytes;
    default: return send == recv;
  }
}

}  // namespace

Status createCommunicator(MPI_Comm userComm, const hetcclConfig_t* config, hetcclComm** out) {
  Settings settings;
  HETCCL_TRY(loadSettings(config, &settings));
  Device* device = nullptr;
  HETCCL_TRY(processDevice(&device));

  auto comm = std::make_unique<hetcclComm>();
  comm->settings = settings;
  comm->device = device;
  if (MPI_Comm_dup(userComm, &comm->mpiComm) != MPI_SUCCESS)
    return HETCCL_STATUS(Code::SystemError, "MPI_Comm_dup failed");
  // Errors must come back to us as codes, not abort the job.
  MPI_Comm_set_errhandler(comm->mpiComm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm->mpiComm, &comm->rank);
  MPI_Comm_size(comm->mpiComm, &comm->nranks);

  static std::atomic<uint64_t> lastId{0};
  uint64_t proposed = lastId.load() + 1, agreed = 0;
  MPI_Allreduce(&proposed, &agreed, 1, MPI_UINT64_T, MPI_MAX, comm->mpiComm);
  comm->id = agreed;
  lastId = agreed;

  // The stream comes after connect(): every rank must reach connect's collectives, and a
  // failure that only this rank sees must not leave the others waiting in them.
  Status status = connect(comm->mpiComm, settings, *device, &comm->connection);
  Connection& c = comm->connection;
  if (status.isOk()) status = device->createStream(&comm->stream);
  if (!status.isOk()) {
    abandon(c);
    MPI_Comm_free(&comm->mpiComm);
    return status;
  }
  comm->executor = std::make_unique<Executor>(*device, *c.transport, comm->stream);
  comm->executor->setIslandCollectives(c.islandLibrary.get());
  comm->scratch = std::make_unique<DeviceBuffer>(*device);
  HETCCL_INFO(
      "comm %p rank %d nranks %d: device %s, vendor %s, island %d of %d (%s), algorithm %s, "
      "chunk %zu B%s, pipeline depth %d, link parameters from %s, transport intra %s inter %s, "
      "island library %s",
      static_cast<void*>(comm.get()), comm->rank, comm->nranks, device->description().c_str(),
      c.topology.ranks[comm->rank].vendor, c.topology.view.islandOf[comm->rank], c.topology.view.islandCount(),
      c.topology.view.describe().c_str(), algorithmSettingName(settings).c_str(), settings.chunkBytes,
      settings.chunkBytesSet() ? "" : " (tuned)", settings.pipelineDepth, c.links.source.c_str(),
      c.transportName[kIntraIsland].c_str(), c.transportName[kInterIsland].c_str(),
      c.islandLibrary ? c.islandLibrary->describe().c_str() : "none");
  {
    std::lock_guard<std::mutex> guard(registryLock);
    registry().insert(comm.get());
  }
  *out = comm.release();
  return Status::ok();
}

void destroyCommunicator(hetcclComm* comm, bool abort) {
  {
    std::lock_guard<std::mutex> guard(registryLock);
    registry().erase(comm);
  }
  if (!abort) (void)comm->device->synchronizeStream(comm->stream);
  Connection& c = comm->connection;
  if (c.islandLibrary) c.islandLibrary->close(abort);
  c.islandLibrary.reset();
  comm->executor.reset();
  c.transport.reset();
  comm->scratch.reset();
  if (comm->stream) (void)comm->device->destroyStream(comm->stream);
  if (comm->mpiComm != MPI_COMM_NULL) MPI_Comm_free(&comm->mpiComm);
  delete comm;
}

bool isLiveCommunicator(const hetcclComm* comm) {
  std::lock_guard<std::mutex> guard(registryLock);
  return registry().count(comm) != 0;
}

// Whether a communicator that is one island with a vendor library hands its calls to it:
// unless the user forced one of hetccl's own algorithms.
bool takesNativePath(const hetcclComm& comm) {
  return comm.connection.islandLibrary && comm.connection.topology.view.islandCount() == 1 &&
         (!comm.settings.algorithm || *comm.settings.algorithm == Algorithm::Native);
}

bool hasIslandSteps(const RankPlan& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(), [](const Step& step) { return isIslandStep(step); });
}

// Calls block the host until the operation has completed: the transport's progress is
// driven by this thread (MPI has no progress thread we could rely on), so the caller's
// stream is drained first (work enqueued before the call is seen) and the result is in place
// when the call returns (work enqueued after it sees the result).  The native path is the
// exception: the vendor library enqueues on the caller's stream and returns, as NCCL does.
Status runCollective(hetcclComm& comm, const CollectiveCall& call) {
  const size_t elementBytes = elementSize(call.type);
  const bool inPlace = isInPlace(call, comm.rank, elementBytes);
  IslandLibrary* island = comm.connection.islandLibrary.get();
  if (takesNativePath(comm) && island->takesWhole(call, inPlace)) {
    comm.lastAlgorithm = "native:" + island->shortName();
    HETCCL_TRACE("%s count %zu %s %s root %d: native, by %s", collectiveName(call.collective), call.count,
                 elementTypeName(call.type), reduceOpName(call.op), call.root, island->describe().c_str());
    return island->runWhole(call);
  }
  HETCCL_TRY(comm.device->synchronizeStream(call.stream));
  PlanRequest request;
  request.collective = call.collective;
  request.count = call.count;
  request.nranks = comm.nranks;
  request.root = call.root;
  request.inPlace = inPlace;
  request.average = call.op == ReduceOp::Avg;
  request.topology = &comm.connection.topology.view;
  request.vendorIslandSteps = vendorReducesAsHetccl(call.type, call.op);
  TuningChoice choice = comm.connection.tuner.choose(request, elementBytes);
  RankPlan plan = buildPlan(choice.algorithm, request, comm.rank);
  comm.lastAlgorithm = plan.algorithm;
  if (hasIslandSteps(plan)) comm.lastAlgorithm += "+" + island->shortName();
  HETCCL_TRACE("%s count %zu %s %s root %d: %s, chunk %zu, predicted %.1f us: %s", collectiveName(call.collective),
               call.count, elementTypeName(call.type), reduceOpName(call.op), call.root,
               algorithmName(choice.algorithm), choice.chunkBytes, choice.predictedSeconds * 1e6,
               describePlan(plan).c_str());
  HETCCL_TRY(comm.scratch->ensure(plan.scratchCount * elementBytes));
  PlanBuffers buffers{const_cast<char*>(static_cast<const char*>(call.sendbuff)), static_cast<char*>(call.recvbuff),
                      comm.scratch->data()};
  const int tagBase = collectiveTagBase(comm, comm.collectiveSequence++);
  ExecutionSettings execution = executionSettings(comm);
  execution.chunkBytes = choice.chunkBytes;
  return comm.executor->run(plan, buffers, call.type, call.op, tagBase, execution);
}

Status runPointToPoint(hetcclComm& comm, const std::vector<PointToPointCall>& calls) {
  if (takesNativePath(comm)) {
    IslandLibrary& island = *comm.connection.islandLibrary;
    comm.lastAlgorithm = "native:" + island.shortName();
    return island.runPointToPoint(calls);
  }
  std::vector<PointToPoint> operations;
  PlanBuffers buffers(kFirstUserBuffer, nullptr);
  auto overlaps = [](const PointToPointCall& a, const PointToPointCall& b) {
    const char* x = static_cast<const char*>(a.buffer);
    const char* y = static_cast<const char*>(b.buffer);
    return a.bytes > 0 && b.bytes > 0 && x < y + b.bytes && y < x + a.bytes;
  };
  for (const PointToPointCall& call : calls) {
    HETCCL_TRY(comm.device->synchronizeStream(call.stream));
    bool stage = false;
    if (call.isSend)
      for (const PointToPointCall& other : calls)
        if (!other.isSend && overlaps(call, other)) stage = true;
    operations.push_back(PointToPoint{call.isSend, call.peer, call.bytes, stage});
    buffers.push_back(static_cast<char*>(call.buffer));
  }
  RankPlan plan = buildPointToPointPlan(operations, comm.rank, comm.nranks);
  HETCCL_TRY(comm.scratch->ensure(plan.scratchCount));
  buffers[kScratchBuffer] = comm.scratch->data();
  comm.lastAlgorithm = plan.algorithm;
  HETCCL_TRACE("point-to-point group: %s", describePlan(plan).c_str());
  return comm.executor->run(plan, buffers, ElementType::Uint8, ReduceOp::Sum, pointToPointTagBase(),
                            executionSettings(comm));
}

}  // namespace hetccl
