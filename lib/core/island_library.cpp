#include "core/island_library.h"

#include "core/caller_is_hetccl.h"

#include "base/log.h"
#include "core/communicator.h"
#include "core/settings.h"
#include "core/topology.h"

namespace hetccl {

namespace {

// What this rank can open, or why it opens nothing (*worthWarning: a library was expected).
std::unique_ptr<VendorLibrary> openForThisRank(const Settings& settings, const Device& device, std::string* why,
                                               bool* worthWarning) {
  *worthWarning = false;
  const IslandLibraryChoice& setting = settings.islandLibrary;
  if (insideVendorLibraryCall()) {
    *why = "the communicator is being made by a vendor library call (hetccl's NCCL drop-in standing in for it)";
    return nullptr;
  }
  if (setting.mode == IslandLibraryChoice::Mode::Off) {
    *why = "HETCCL_ISLAND_LIBRARY=off";
    return nullptr;
  }
  const bool automatic = setting.mode == IslandLibraryChoice::Mode::Auto;
  const char* name = automatic ? device.vendorLibraryName() : setting.name.c_str();
  if (!name) {
    *why = std::string("the ") + deviceKindName(device.kind()) + " device has no vendor library";
    return nullptr;
  }
  std::unique_ptr<VendorLibrary> library;
  Status opened = VendorLibrary::open(name, &library);
  *worthWarning = true;
  if (!opened.isOk()) {
    *why = opened.message();
    return nullptr;
  }
  // Found by name, hetccl's drop-in (installed as libnccl.so.2) would only hand the work back.
  if (automatic && library->isHetcclDropIn()) {
    *why = library->describe() + " is hetccl's own NCCL drop-in, not the vendor's library";
    return nullptr;
  }
  return library;
}

}  // namespace

IslandLibrary::IslandLibrary(std::unique_ptr<VendorLibrary> library, Device& device, int islandRank, int islandSize)
    : library_(std::move(library)), device_(device), islandRank_(islandRank), islandSize_(islandSize) {}

IslandLibrary::~IslandLibrary() { close(false); }

void IslandLibrary::close(bool abort) {
  if (!vendorComm_) return;
  Status closed = library_->destroy(vendorComm_, abort);
  if (!closed.isOk())
    HETCCL_WARN("closing the island's %s communicator: %s", library_->shortName().c_str(), closed.message().c_str());
  vendorComm_ = nullptr;
}

Status IslandLibrary::connect(const IslandLibraryParticipants& who, const Settings& settings,
                              IslandLibraryDecision* decision) {
  const TopologyView& view = who.topology->view;
  Bootstrap& members = *who.members;
  const int island = view.islandOf[members.rank()];
  const std::string& islandName = who.topology->islandNames[island];
  std::string why;
  bool worthWarning = false;
  std::unique_ptr<VendorLibrary> library = openForThisRank(settings, *who.device, &why, &worthWarning);

  // An island uses its library only if every member opened it and joined its communicator:
  // the members' plans must agree.  Failures fall back to hetccl's own island algorithms (a
  // vendor refusing, e.g. NCCL with two ranks on one GPU, is no reason to fail the job).
  std::unique_ptr<Bootstrap> islandMembers;
  HETCCL_TRY(members.split(island, members.rank(), &islandMembers));
  bool everyOpened = false;
  HETCCL_TRY(allTrue(*islandMembers, library != nullptr, &everyOpened));
  int islandUsable = everyOpened ? 1 : 0;
  std::unique_ptr<IslandLibrary> created;
  if (!islandUsable) {
    if (library)
      HETCCL_WARN("island %s: %s opened here but not on every member; the island runs hetccl's own island algorithms",
                  islandName.c_str(), library->describe().c_str());
    else if (worthWarning)
      HETCCL_WARN("island %s: no vendor library (%s); the island runs hetccl's own island algorithms",
                  islandName.c_str(), why.c_str());
    else
      HETCCL_INFO("island %s: no vendor library (%s)", islandName.c_str(), why.c_str());
  } else {
    Status status = createVendorCommunicator(*who.device, *islandMembers, std::move(library), &created);
    bool joined = false;
    HETCCL_TRY(allTrue(*islandMembers, status.isOk(), &joined));
    if (!joined) {
      if (created) created->close(true);  // others failed: do not wait for them
      created.reset();
      islandUsable = 0;
      HETCCL_WARN(
          "island %s: the vendor library could not make the island's communicator (%s); the island runs "
          "hetccl's own island algorithms",
          islandName.c_str(), status.isOk() ? "it failed on another member" : status.message().c_str());
    } else {
      HETCCL_INFO("island %s: collectives inside the island by %s, rank %d of %d", islandName.c_str(),
                  created->describe().c_str(), created->islandRank_, created->islandSize_);
    }
  }
  islandMembers.reset();
  // Every rank's plans depend on every island's cut: all learn which islands use a library.
  std::vector<int> usableByRank(static_cast<size_t>(members.size()));
  HETCCL_TRY(members.allGather(&islandUsable, sizeof islandUsable, usableByRank.data()));
  decision->islandHasLibrary.assign(view.islandCount(), false);
  for (int i = 0; i < view.islandCount(); ++i) decision->islandHasLibrary[i] = usableByRank[view.members[i][0]] != 0;
  decision->library = std::move(created);
  return Status::ok();
}

Status IslandLibrary::createVendorCommunicator(Device& device, Bootstrap& island,
                                               std::unique_ptr<VendorLibrary> library,
                                               std::unique_ptr<IslandLibrary>* created) {
  const int islandRank = island.rank(), islandSize = island.size();
  VendorUniqueId id{};
  Status status = islandRank == 0 ? library->uniqueId(&id) : Status::ok();
  // Everything that can fail alone happens before the vendor's initialisation, which waits
  // for every member: a member that failed would leave the others waiting there forever.
  if (status.isOk()) status = device.activate();
  HETCCL_TRY(agree(island, status, "preparing the island's vendor communicator"));
  HETCCL_TRY(island.broadcast(&id, sizeof id, 0));
  created->reset(new IslandLibrary(std::move(library), device, islandRank, islandSize));
  return (*created)->library_->initRank(&(*created)->vendorComm_, islandSize, id, islandRank);
}

Status IslandLibrary::enqueue(const Op& op, const void* src, void* dst, ElementType type, ReduceOp reduction,
                              StreamHandle stream) {
  const ReduceOp sum = reduction == ReduceOp::Avg ? ReduceOp::Sum : reduction;
  switch (op.kind) {
    case OpKind::IslandReduceScatter:
      return library_->reduceScatter(src, dst, op.dst.count, type, sum, vendorComm_, stream);
    case OpKind::IslandReduce: return library_->reduce(src, dst, op.src.count, type, sum, op.peer, vendorComm_, stream);
    case OpKind::IslandAllGather: return library_->allGather(src, dst, op.src.count, type, vendorComm_, stream);
    case OpKind::IslandBroadcast:
      return library_->broadcast(src, dst, op.src.count, type, op.peer, vendorComm_, stream);
    default: return HETCCL_STATUS(Code::InternalError, "%s is not an island collective", opKindName(op.kind));
  }
}

bool IslandLibrary::takesWhole(const CollectiveCall& call, bool inPlace) const {
  const bool reduces = call.collective == Collective::AllReduce || call.collective == Collective::ReduceScatter ||
                       call.collective == Collective::Reduce;
  if (reduces && !vendorReducesAsHetccl(call.type, call.op)) return false;
  switch (call.collective) {
    case Collective::AllReduce:
    case Collective::ReduceScatter:
    case Collective::AllGather:
    case Collective::Broadcast:
    case Collective::Reduce: return true;
    case Collective::AlltoAll: return !inPlace;  // sends and receives of one group must not overlap
    default: return false;
  }
}

// hetccl's average is the sum divided once by the rank count (NCCL's pre-scales floats,
// which rounds differently): the vendor sums, and hetccl's divide kernel follows on the
// same stream, still without waiting for anything.
Status IslandLibrary::runWhole(const CollectiveCall& call) {
  HETCCL_TRY(device_.activate());
  const void* send = call.sendbuff;
  void* recv = call.recvbuff;
  const bool average = call.op == ReduceOp::Avg;
  const ReduceOp op = average ? ReduceOp::Sum : call.op;
  auto divide = [&](Status summed, bool holdsResult) {
    if (!summed.isOk() || !average || !holdsResult) return summed;
    return device_.divideAsync(recv, call.count, call.type, static_cast<uint64_t>(islandSize_), call.stream);
  };
  switch (call.collective) {
    case Collective::AllReduce:
      return divide(library_->allReduce(send, recv, call.count, call.type, op, vendorComm_, call.stream), true);
    case Collective::ReduceScatter:
      return divide(library_->reduceScatter(send, recv, call.count, call.type, op, vendorComm_, call.stream), true);
    case Collective::AllGather: return library_->allGather(send, recv, call.count, call.type, vendorComm_, call.stream);
    case Collective::Broadcast:
      return library_->broadcast(send, recv, call.count, call.type, call.root, vendorComm_, call.stream);
    case Collective::Reduce:
      return divide(library_->reduce(send, recv, call.count, call.type, op, call.root, vendorComm_, call.stream),
                    islandRank_ == call.root);
    case Collective::AlltoAll: {
      // One send and one receive per peer in one group: the vendor's point-to-point all-to-all.
      const size_t bytes = call.count * elementSize(call.type);
      std::vector<PointToPointCall> calls;
      for (int peer = 0; peer < islandSize_; ++peer) {
        calls.push_back(PointToPointCall{true, const_cast<char*>(static_cast<const char*>(send)) + peer * bytes, bytes,
                                         peer, call.stream});
        calls.push_back(PointToPointCall{false, static_cast<char*>(recv) + peer * bytes, bytes, peer, call.stream});
      }
      return runPointToPoint(calls);
    }
    default:
      return HETCCL_STATUS(Code::InternalError, "%s is not taken by the vendor library",
                           collectiveName(call.collective));
  }
}

Status IslandLibrary::runPointToPoint(const std::vector<PointToPointCall>& calls) {
  HETCCL_TRY(device_.activate());
  HETCCL_TRY(library_->groupStart());
  Status status;
  for (const PointToPointCall& call : calls) {
    status = call.isSend ? library_->send(call.buffer, call.bytes, call.peer, vendorComm_, call.stream)
                         : library_->recv(call.buffer, call.bytes, call.peer, vendorComm_, call.stream);
    if (!status.isOk()) break;
  }
  // The group is closed even after a failure, so that the library is not left inside one.
  Status ended = library_->groupEnd();
  return status.isOk() ? ended : status;
}

}  // namespace hetccl

int hetcclInternalCallerIsHetccl(void) { return hetccl::insideVendorLibraryCall() ? 1 : 0; }
