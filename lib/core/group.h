// Group calls (hetcclGroupStart/End), as NCCL's: operations issued inside a group are
// validated at once and queued; the outermost GroupEnd runs them.  Per communicator (in the
// order of their creation, which every rank agrees on) the collectives run in issue order,
// then all point-to-point operations of the group run together as one plan.  Every operation
// is ordered on every stream the group uses (NCCL joins a group's streams the same way).  Group
// state is per thread, like NCCL's.
#pragma once

#include "core/communicator.h"

namespace hetccl {

bool insideGroup();
void queueCollective(hetcclComm* comm, const CollectiveCall& call);
void queuePointToPoint(hetcclComm* comm, const PointToPointCall& call);
Status groupStart();
// Launches the queue when the outermost group ends; a communicator whose operations fail to
// launch is poisoned (usage errors aside).  Returns the first failure.
Status groupEnd();

}  // namespace hetccl
