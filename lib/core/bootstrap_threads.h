// The bootstrap between members that are threads of one process: no MPI at all.  Collectives
// meet in a shared rendezvous, the plans' messages travel over a loopback fabric
// (transport/loopback_transport.h), and notices through per-member in-boxes.  With it, the
// whole of core -- creation, dispatch, groups, the inline path, the call check, abort, peers'
// failures and split -- runs in a thread-per-rank test, also under ThreadSanitizer (as UCC's
// test job and MSCCL++'s bootstrap run their cores without a launcher).
#pragma once

#include <memory>
#include <vector>

#include "core/bootstrap.h"

namespace hetccl {

// The bootstraps of a job of `nranks` threads, member r at index r: hand each to its own
// thread.  A collective whose members do not all arrive within `timeoutSeconds` fails with
// Code::Timeout rather than hanging the test.
std::vector<std::unique_ptr<Bootstrap>> makeThreadBootstraps(int nranks, double timeoutSeconds = 120);

}  // namespace hetccl
