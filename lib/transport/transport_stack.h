// Assembles the transport a communicator moves bytes with, from the bottom up:
//   wire       the transport that reaches the other ranks (MPI; the loopback in tests);
//   staging    host bounce buffers on top, when device memory must not be handed to the wire
//              (an MPI that is not GPU-aware);
//   pacing     the link-pacing decorator on top, when links are emulated.
// The caller decides the policy (whether to stage, which links are paced); this file only
// builds, and names what it built per link class for logs and hetccl-info.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "device/device.h"
#include "transport/link_pacing.h"
#include "transport/transport.h"

namespace hetccl {

struct TransportStackOptions {
  std::string wireName = "mpi";
  bool wireReadsDeviceMemory = false;  // a GPU-aware MPI: device pointers go to it directly
  bool hostMemory = true;              // the device's memory is the host's (host device)
  bool stage = false;
  size_t stagingSlotBytes = size_t{1} << 20;
  int stagingSlots = 8;
  // Per link class, its pacing; when any class is paced, linkClassOfPeer must give every peer's
  // class (an index into `pacing`).  No class paced: no pacing decorator at all.
  std::vector<LinkPacing> pacing;
  std::vector<int> linkClassOfPeer;
};

struct TransportStack {
  std::unique_ptr<Transport> transport;
  std::vector<std::string> nameOfClass;  // per link class: "mpi-staged+paced(1 GB/s, 20 us)"
};

Status buildTransportStack(std::unique_ptr<Transport> wire, Device& device, const TransportStackOptions& options,
                           TransportStack* stack);

}  // namespace hetccl
