#include "core/peer_setup.h"

#include <cstdlib>

#include "core/emulation.h"
#include "core/shared_memory_peers.h"
#include "transport/transport_stack.h"

namespace hetccl {

namespace {

// Device pointers go straight to MPI when it can read them (the GPUDirect RDMA path);
// otherwise through pinned host bounce buffers.  Host memory never needs them, except when
// the tests force staging to exercise the path.
bool stagesTransfers(const Settings& settings, bool hostMemory, bool gpuAware) {
  if (settings.staging == StagingMode::Force) return true;
  return settings.staging == StagingMode::Auto && !hostMemory && !gpuAware;
}

Status buildTransport(Bootstrap& members, const Settings& settings, Device& device, const EmulatedLinks& emulated,
                      PeerSetup* setup) {
  const JobTopology& topology = setup->topology;
  const int rank = members.rank();
  TransportStackOptions options;
  options.wireName = members.wireName();
  options.wireReadsDeviceMemory = settings.gpuAwareMpi == GpuAwareMpiOverride::Detect
                                      ? topology.ranks[rank].gpuAwareMpi != 0
                                      : settings.gpuAwareMpi == GpuAwareMpiOverride::Yes;
  options.hostMemory = device.hostReadsMemory();
  options.stage = stagesTransfers(settings, options.hostMemory, options.wireReadsDeviceMemory);
  options.stagingSlotBytes = settings.chunkBytes;
  options.stagingSlots = settings.stagingSlots;
  options.pacing.assign(kLinkClassCount, LinkPacing{});
  options.pacing[kIntraIsland] = emulated.intraIsland;
  options.pacing[kInterIsland] = emulated.interIsland;
  for (int peer = 0; peer < topology.view.nranks; ++peer)
    options.linkClassOfPeer.push_back(topology.view.islandOf[peer] == topology.view.islandOf[rank] ? kIntraIsland
                                                                                                   : kInterIsland);
  // Ranks of one host: small messages through shared memory, below staging and pacing (the
  // rings copy host memory; staging hands them host bounce buffers).  Not under a simulator,
  // whose ranks share one real host (HETCCL_NODE_NAME=mpi), nor where waits sleep in MPI.
  std::unique_ptr<Transport> wire = members.makeWire(settings.maxMessageBytes);
  SharedMemoryRequest shm;
  shm.maxBytes = settings.sharedMemoryMaxBytes;
  shm.eligible = shm.maxBytes > 0 && options.wireName == "mpi" && settings.wait != WaitMode::Block &&
                 settings.nodeName != NodeNameSource::Mpi && (options.hostMemory || options.stage);
  int shmPeers = 0;
  HETCCL_TRY(connectSharedMemoryPeers(members, shm, &wire, &shmPeers));
  if (shmPeers > 0) options.wireName = "shm+mpi";
  TransportStack stack;
  HETCCL_TRY(buildTransportStack(std::move(wire), device, options, &stack));
  setup->transport = std::move(stack.transport);
  setup->transportName = std::move(stack.nameOfClass);
  return Status::ok();
}

}  // namespace

Status setUpPeers(Bootstrap& members, const Settings& settings, Device& device, PeerSetup* setup) {
  PeerSetup c;
  // Local settings first: a typo must not cost a vendor communicator made and then aborted.
  EmulatedLinks emulated;
  HETCCL_TRY(emulatedLinksFromSettings(&emulated));
  // The strict host device stands for a GPU whose MPI is not GPU-aware: MPI cannot read its
  // memory, so claiming otherwise would only turn every transfer into a fault.
  if (device.kind() == DeviceKind::Host && !device.hostReadsMemory() &&
      settings.gpuAwareMpi == GpuAwareMpiOverride::Yes)
    return HETCCL_STATUS(Code::InvalidArgument,
                         "HETCCL_GPU_AWARE_MPI=1 with HETCCL_DEVICE=host-strict: MPI cannot read this device's memory "
                         "(it stands for a GPU without GPU-aware MPI); leave HETCCL_GPU_AWARE_MPI unset or 0");
  RankDescriptor mine;
  HETCCL_TRY(describeThisRank(members, deviceKindName(device.kind()), device.description(), &mine));
  HETCCL_TRY(discoverTopology(members, mine, &c.topology));

  IslandLibraryParticipants who;
  who.members = &members;
  who.topology = &c.topology;
  who.device = &device;
  IslandLibraryDecision decision;
  HETCCL_TRY(IslandLibrary::connect(who, settings, &decision));
  c.topology.view.islandLibrary = decision.islandHasLibrary;
  c.islandLibrary = std::move(decision.library);

  // From here on a failure must abort the island's vendor communicator (destroying it would
  // wait for peers that may have failed too).
  auto closeOnFailure = [&](Status status) {
    if (!status.isOk()) abandon(c);
    return status;
  };
  HETCCL_TRY(closeOnFailure(chooseLinkParameters(members, c.topology, emulated, &c.links)));
  c.tuner = Tuner(c.topology.view, c.links.costs, tunerSettings(settings));
  HETCCL_TRY(closeOnFailure(c.tuner.validate()));
  HETCCL_TRY(closeOnFailure(buildTransport(members, settings, device, emulated, &c)));
  *setup = std::move(c);
  return Status::ok();
}

void abandon(PeerSetup& setup) {
  if (setup.islandLibrary) setup.islandLibrary->close(true);
  setup.islandLibrary.reset();
  setup.transport.reset();
}

}  // namespace hetccl
