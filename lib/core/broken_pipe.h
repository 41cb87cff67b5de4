// A peer that dies leaves its TCP connections reset; the next write to one raises SIGPIPE in
// the writer, whose default action ends the process.  Open MPI's TCP BTL writes with writev()
// and does not guard against it: on the test cluster a survivor of a killed peer died of
// SIGPIPE in about one run in five, before it could report hetcclTimeout.  hetccl therefore
// ignores SIGPIPE where the process has left it at its default (a handler or disposition the
// application chose stays), as gRPC and other networking libraries do; writes then fail with
// EPIPE, which MPI reports.
#pragma once

namespace hetccl {

// Once per process, at the first communicator; says so at HETCCL_DEBUG=INFO.
void ignoreBrokenPipeSignalsOnce();

}  // namespace hetccl
