// The modes that settings select, as enums: parsed once from the variable's text by the
// settings table (settings_table.h), compared as values everywhere else.  The log level is
// log.h's LogLevel; the algorithm is core/settings.h's mapping onto algorithms' Algorithm.
#pragma once

namespace hetccl {

// HETCCL_STAGING: host-staged transfers when the device's memory is not the host's and MPI is
// not GPU-aware (Auto), always, also on host devices (Force: tests use it), or never (Off).
enum class StagingMode : int { Auto, Force, Off };

// HETCCL_ISLAND_SCOPE: islands are ranks of one vendor on one node, or on any node.
enum class IslandScope : int { Node, Job };

// HETCCL_DEVICE: the first GPU backend that loads, else the host (Auto); or one by name.
// HostStrict: the host device with memory the host cannot read (device/host/strict_memory.h).
enum class DeviceRequest : int { Auto, Host, Cuda, Hip, HostStrict };

// HETCCL_GPU_AWARE_MPI: ask MPI (Detect), or override its answer.
enum class GpuAwareMpiOverride : int { Detect, No, Yes };

// HETCCL_PROGRESS: who runs a communicator's operations.  Thread: a progress thread, and calls
// return once the operation is enqueued; Caller: the calling thread, and calls return when it
// has completed; Auto: Thread when MPI gives MPI_THREAD_MULTIPLE and the device's streams can
// wait for the host, else Caller.
enum class ProgressMode : int { Auto, Thread, Caller };

// HETCCL_WAIT: how an operation waits for its transfers when nothing moved.  Poll: test them
// with a back-off (runtime/backoff.h); Block: sleep inside the transport until one completes
// (MPI_Waitany), for a simulator that charges every test (SimGrid's SMPI) and for ranks that
// outnumber cores.  A blocked wait cannot time out or be aborted.
enum class WaitMode : int { Poll, Block };

// HETCCL_HOST_STREAMS: the host device's streams run their tasks on a worker thread each, as a
// GPU stream runs beside the host (Worker), or on the thread that enqueues them (Inline: no
// threads, for a simulator whose ranks are threads it schedules itself).
enum class HostStreamMode : int { Worker, Inline };

// HETCCL_NODE_NAME: what names a rank's node: the host name (Host), or MPI_Get_processor_name
// (Mpi: a simulator's hosts, or an MPI that names nodes differently from the kernel).
enum class NodeNameSource : int { Host, Mpi };

// HETCCL_ACCUMULATE: how float16 and bfloat16 sums and averages accumulate.  Native: in the
// type itself, rounded at every hop (NCCL's behaviour); Float32: partial sums travel and are
// reduced in float32 and rounded once (core/accumulation.h).
enum class AccumulateMode : int { Native, Float32 };

}  // namespace hetccl
