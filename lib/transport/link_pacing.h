// How fast an emulated link is: what HETCCL_EMULATE_LINKS asks for and what the pacing
// transport (paced_transport.h) enforces, per link class.
#pragma once

#include <string>

namespace hetccl {

struct LinkPacing {
  bool paced = false;  // false: the link runs at the machine's own speed
  double bytesPerSecond = 0;
  double latencySeconds = 0;
};

// "8 GB/s, 2 us", for logs and hetccl-info.
std::string describeLinkPacing(const LinkPacing& pacing);

}  // namespace hetccl
