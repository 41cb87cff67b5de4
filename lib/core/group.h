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
// Runs the queue when the outermost group ends.  On failure *failedComm names the
// communicator that failed (nullptr for usage errors).
Status groupEnd(hetcclComm** failedComm);

}  // namespace hetccl
