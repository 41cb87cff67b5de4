// Emulation settings, so that one CPU machine can stand in for a mixed cluster:
//   HETCCL_EMULATE_VENDORS=nvidia:2,amd:2   vendors of the job's ranks, in rank order
//   HETCCL_EMULATE_NODES=n0:2,n1:2          node names of the job's ranks, in rank order
//   HETCCL_EMULATE_LINKS=intra:8GB/s:2us,inter:1GB/s:20us
//                                           pace transfers within / across islands
// Lists are comma-separated `name[:count]` entries (base/rank_list.h) expanded in the rank
// order of MPI_COMM_WORLD (vendors belong to processes, whatever communicator they later
// join), and must cover exactly the job's ranks.
#pragma once

#include <string>

#include "base/status.h"
#include "transport/link_pacing.h"

namespace hetccl {

struct EmulatedLinks {
  LinkPacing intraIsland, interIsland;
  bool any() const { return intraIsland.paced || interIsland.paced; }
};

// Parses "intra:8GB/s:2us,inter:1GB/s:20us" (units: B/s KB/s MB/s GB/s, Gb/s Mb/s; s ms us ns).
Status parseEmulatedLinks(const std::string& text, EmulatedLinks* links);
// HETCCL_EMULATE_LINKS, parsed (none set when the variable is unset).
Status emulatedLinksFromSettings(EmulatedLinks* links);

}  // namespace hetccl
