#include "transport/transport_stack.h"

#include <algorithm>

#include "transport/paced_transport.h"
#include "transport/staged_transport.h"

namespace hetccl {

namespace {

std::string wireDescription(const TransportStackOptions& options) {
  if (options.stage) return options.wireName + "-staged";
  if (options.hostMemory) return options.wireName + "-direct";
  return options.wireName + "-direct(gpu-aware)";
}

}  // namespace

Status buildTransportStack(std::unique_ptr<Transport> wire, Device& device, const TransportStackOptions& options,
                           TransportStack* stack) {
  std::unique_ptr<Transport> transport = std::move(wire);
  if (options.stage) {
    auto staged =
        std::make_unique<StagedTransport>(std::move(transport), device, options.stagingSlotBytes, options.stagingSlots);
    HETCCL_TRY(staged->initialize());
    transport = std::move(staged);
  }
  const size_t classes = std::max<size_t>(1, options.pacing.size());
  std::vector<std::string> names(classes, wireDescription(options));
  const bool anyPaced =
      std::any_of(options.pacing.begin(), options.pacing.end(), [](const LinkPacing& pacing) { return pacing.paced; });
  if (anyPaced) {
    if (static_cast<int>(options.linkClassOfPeer.size()) != transport->size())
      return HETCCL_STATUS(Code::InternalError, "link pacing needs the link class of all %d peers, got %zu",
                           transport->size(), options.linkClassOfPeer.size());
    for (int linkClass : options.linkClassOfPeer)
      if (linkClass < 0 || static_cast<size_t>(linkClass) >= options.pacing.size())
        return HETCCL_STATUS(Code::InternalError, "link class %d has no pacing (%zu classes)", linkClass,
                             options.pacing.size());
    for (size_t c = 0; c < options.pacing.size(); ++c)
      if (options.pacing[c].paced) names[c] += "+paced(" + describeLinkPacing(options.pacing[c]) + ")";
    transport = std::make_unique<PacedTransport>(std::move(transport), options.linkClassOfPeer, options.pacing);
  }
  stack->transport = std::move(transport);
  stack->nameOfClass = std::move(names);
  return Status::ok();
}

}  // namespace hetccl
