#include "core/communicator_description.h"

#include "core/communicator.h"
#include "core/live_communicators.h"

namespace hetccl {

Status describeCommunicator(hetcclComm_t comm, CommunicatorDescription* description) {
  CommunicatorHold hold;
  HETCCL_TRY(hold.acquire(comm, false));
  const PeerSetup& c = comm->setup;
  const TopologyView& view = c.topology.view;
  CommunicatorDescription d;
  d.rank = comm->rank;
  d.nranks = comm->nranks;
  d.deviceKind = deviceKindName(comm->device->kind());
  d.deviceDescription = comm->device->description();
  d.topology = c.topology;
  bool intraPresent = false;
  for (int island = 0; island < view.islandCount(); ++island) intraPresent |= view.islandSize(island) > 1;
  const bool present[kLinkClassCount] = {intraPresent, view.islandCount() > 1};
  const char* names[kLinkClassCount] = {"intra-island", "inter-island"};
  const LinkCost costs[kLinkClassCount] = {c.links.costs.intraIsland, c.links.costs.interIsland};
  for (int link = 0; link < kLinkClassCount; ++link)
    d.links.push_back(LinkClassDescription{names[link], present[link], c.transportName[link], costs[link]});
  d.linkSource = c.links.source;
  d.ranksPerHardwareThread = c.links.ranksPerHardwareThread;
  d.costs = c.links.costs;
  d.islandLibrary = c.islandLibrary ? c.islandLibrary->describe() : "none";
  d.progress = comm->progressDescription;
  d.inlineBytes = comm->inlineExecutor ? comm->settings.inlineBytes : 0;
  d.settings = comm->settings;
  *description = std::move(d);
  return Status::ok();
}

}  // namespace hetccl
