// What the executor needs to run a plan's island-collective ops (plan.h): the rank's island
// communicator of its vendor library (NCCL, RCCL), behind an interface so that the
// algorithms never see a vendor header.  core/island_library.h implements it.
#pragma once

#include "algorithms/plan.h"
#include "base/status.h"
#include "device/device.h"

namespace hetccl {

class IslandCollectives {
 public:
  virtual ~IslandCollectives() = default;
  // Enqueues `op` on `stream` with its regions resolved to addresses.  Every member of the
  // island calls this for the same ops in the same order (plans guarantee it).  An average
  // is summed here: the plan's Divide ops finish it.
  virtual Status enqueue(const Op& op, const void* src, void* dst, ElementType type, ReduceOp reduction,
                         StreamHandle stream) = 0;
};

}  // namespace hetccl
