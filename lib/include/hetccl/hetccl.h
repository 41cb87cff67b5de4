/*
 * hetccl — collectives across GPU vendors, with an NCCL-shaped C API.
 *
 * This header is C99-clean and usable from C and C++. Every name follows NCCL's with the
 * `hetccl` prefix, and the enum values are NCCL's, so a program written for NCCL ports by
 * renaming.  The MPI communicator handed to hetcclCommInitMPI is the only MPI type here; the
 * header includes <mpi.h> for it.
 */
#ifndef HETCCL_HETCCL_H
#define HETCCL_HETCCL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HETCCL_MAJOR 0
#define HETCCL_MINOR 1
#define HETCCL_PATCH 0
#define HETCCL_VERSION(X, Y, Z) ((X)*10000 + (Y)*100 + (Z))
#define HETCCL_VERSION_CODE HETCCL_VERSION(HETCCL_MAJOR, HETCCL_MINOR, HETCCL_PATCH)

/* Opaque communicator handle. */
typedef struct hetcclComm* hetcclComm_t;
#define HETCCL_COMM_NULL NULL

/* A stream of the rank's device: a cudaStream_t, a hipStream_t, or a host-device stream made
 * with hetcclStreamCreate.  NULL means the device's default stream. */
typedef void* hetcclStream_t;

/* Result codes: the values are NCCL's (ncclResult_t), plus a timeout code. */
typedef enum {
  hetcclSuccess = 0,
  hetcclUnhandledDeviceError = 1, /* a CUDA/HIP/host-device call failed */
  hetcclSystemError = 2,          /* the OS or MPI failed */
  hetcclInternalError = 3,        /* a bug in hetccl */
  hetcclInvalidArgument = 4,      /* bad pointer, type, op, root, peer or communicator */
  hetcclInvalidUsage = 5,         /* a call in the wrong state (e.g. unbalanced group calls) */
  hetcclRemoteError = 6,          /* another rank failed, or aborted mid-operation (control channel) */
  hetcclInProgress = 7,           /* a non-blocking operation has not finished */
  hetcclTimeout = 8,              /* an operation made no progress for HETCCL_TIMEOUT seconds */
  hetcclNumResults = 9
} hetcclResult_t;

/* Reduction operations: NCCL's values. */
typedef enum {
  hetcclSum = 0,
  hetcclProd = 1,
  hetcclMax = 2, /* NaN-propagating, +0 > -0 (IEEE 754-2019 maximum) */
  hetcclMin = 3, /* NaN-propagating, -0 < +0 (IEEE 754-2019 minimum) */
  hetcclAvg = 4, /* sum, then divided once by the rank count */
  hetcclNumOps = 5,
  /* Ops made by hetcclRedOpCreatePreMulSum lie from hetcclNumOps up to this (as NCCL's). */
  hetcclMaxRedOp = 0x7fffffff
} hetcclRedOp_t;

/* Element types: NCCL's values. */
typedef enum {
  hetcclInt8 = 0,
  hetcclChar = 0,
  hetcclUint8 = 1,
  hetcclInt32 = 2,
  hetcclInt = 2,
  hetcclUint32 = 3,
  hetcclInt64 = 4,
  hetcclUint64 = 5,
  hetcclFloat16 = 6,
  hetcclHalf = 6,
  hetcclFloat32 = 7,
  hetcclFloat = 7,
  hetcclFloat64 = 8,
  hetcclDouble = 8,
  hetcclBfloat16 = 9,
  hetcclNumTypes = 10
} hetcclDataType_t;

/* A reduction op of one communicator (NCCL's ncclRedOpCreatePreMulSum): each rank's input is
 * multiplied by its own scalar (of `datatype`; read now from host memory, or at each use from
 * device memory), then summed, in all-reduce, reduce and reduce-scatter.  Bit-exact rule: each
 * product is rounded once to the type (half and bfloat16 computed in float; integers wrap),
 * and the products are summed as by hetcclSum.  Runs through host memory (a copy of the input
 * is scaled there), so the call waits for its stream; not inside a group.  The op's value is
 * hetcclNumOps or more. */
typedef enum { hetcclScalarDevice = 0, hetcclScalarHostImmediate = 1 } hetcclScalarResidence_t;
hetcclResult_t hetcclRedOpCreatePreMulSum(hetcclRedOp_t* op, void* scalar, hetcclDataType_t datatype,
                                          hetcclScalarResidence_t residence, hetcclComm_t comm);
hetcclResult_t hetcclRedOpDestroy(hetcclRedOp_t op, hetcclComm_t comm);

/* Per-communicator settings.  Initialise with HETCCL_CONFIG_INITIALIZER; a field left at its
 * "undefined" value takes the environment's setting (HETCCL_*), then the built-in default.
 * A NULL config pointer means all defaults.  Fields are only ever added at the end: the
 * library reads the fields that fit in `size`, so a program built against an older header
 * keeps working, and refuses a config larger than it knows (a newer header's). */
#define HETCCL_CONFIG_UNDEF_INT INT32_MIN
typedef struct {
  size_t size;           /* sizeof(hetcclConfig_t), for ABI evolution */
  unsigned int magic;    /* HETCCL_CONFIG_MAGIC */
  int version;           /* HETCCL_VERSION_CODE of the header the caller compiled against */
  int chunkBytes;        /* pipeline chunk size in bytes (HETCCL_CHUNK_BYTES) */
  int pipelineDepth;     /* chunks in flight per operation (HETCCL_PIPELINE_DEPTH) */
  const char* algorithm; /* "auto", "ring", ... (HETCCL_ALGO); NULL = undefined */
  /* Added later: a config of the first, shorter size leaves them undefined. */
  int timeoutSeconds;     /* an operation without progress this long fails; 0 = never (HETCCL_TIMEOUT) */
  int checkCalls;         /* 1: ranks compare each collective call before it runs (HETCCL_CHECK_CALLS) */
  int blocking;           /* 0: hetcclCommInitRank returns at once, see there; undefined or 1: blocks */
  const char* accumulate; /* "native" or "float32": half-precision sums (HETCCL_ACCUMULATE); NULL = undefined */
} hetcclConfig_t;
#define HETCCL_CONFIG_MAGIC 0x48435431u
#define HETCCL_CONFIG_INITIALIZER                                                                                      \
  {                                                                                                                    \
    sizeof(hetcclConfig_t), HETCCL_CONFIG_MAGIC, HETCCL_VERSION_CODE, HETCCL_CONFIG_UNDEF_INT,                         \
        HETCCL_CONFIG_UNDEF_INT, NULL, HETCCL_CONFIG_UNDEF_INT, HETCCL_CONFIG_UNDEF_INT, HETCCL_CONFIG_UNDEF_INT, NULL \
  }

/* Library version as HETCCL_VERSION_CODE. */
hetcclResult_t hetcclGetVersion(int* version);
/* A static, human-readable name for a result code. */
const char* hetcclGetErrorString(hetcclResult_t result);
/* The message of the last error on this communicator (or, for comm == NULL, of the last call
 * on this thread that had no usable communicator).  Never NULL. */
const char* hetcclGetLastError(hetcclComm_t comm);

/* Creates a communicator over every rank of an MPI communicator (collective over mpiComm).
 * MPI must be initialised; with MPI_Init_thread(MPI_THREAD_MULTIPLE) the communicator gets a
 * progress thread and calls return once enqueued, with less they complete on the calling
 * thread (HETCCL_PROGRESS).  hetccl duplicates mpiComm, so the caller's traffic never mixes
 * with hetccl's. */
hetcclResult_t hetcclCommInitMPI(hetcclComm_t* comm, MPI_Comm mpiComm, const hetcclConfig_t* config);
/* Communicators made by their members only, as NCCL's ncclGetUniqueId + ncclCommInitRank:
 * one member makes an id and hands it to the others out of band (a file, a framework's
 * store); every member then calls hetcclCommInitRank with it, its rank and the member count.
 * No other process takes part, so groups may be made in any order, by different threads,
 * overlapping or not.  MPI carries the traffic, so every process must be a rank of one MPI
 * job (mpirun, srun) and MPI must be initialised.  The id's maker must be one of the
 * members (frameworks make it on the group's first rank). */
#define HETCCL_UNIQUE_ID_BYTES 128
typedef struct {
  char internal[HETCCL_UNIQUE_ID_BYTES];
} hetcclUniqueId;
/* Readies this process for communicators made from ids: collective over MPI_COMM_WORLD, once
 * per process, right after MPI_Init (hetccl keeps a duplicate of MPI_COMM_WORLD of its own for
 * the members' rendezvous, so that none of its messages can match the program's own).  Later
 * calls do nothing; a hetcclCommInitMPI over every process of the job does it too.  A program
 * that does neither gets it from its first hetcclCommInitRank, which every process must then
 * reach. */
hetcclResult_t hetcclJobInit(void);
/* A fresh id, made on this process (which will be the members' meeting point). */
hetcclResult_t hetcclGetUniqueId(hetcclUniqueId* uniqueId);
/* Creates this member's communicator of nranks members, ranked 0..nranks-1, from the id.
 * Blocks until every member has called, unless config->blocking is 0: then it returns
 * hetcclInProgress at once with *comm set, creation goes on in the background, and
 * hetcclCommGetAsyncError(*comm) answers hetcclInProgress until it answers hetcclSuccess or
 * the failure; operations and splits on the communicator are refused with hetcclInvalidUsage
 * meanwhile; hetcclCommAbort frees it (a creation waiting for members is stopped),
 * hetcclCommDestroy waits for the creation to end first.  Inconsistent arguments (different
 * nranks, a rank given twice) fail every member that arrived, with the same message. */
hetcclResult_t hetcclCommInitRank(hetcclComm_t* comm, int nranks, hetcclUniqueId uniqueId, int rank,
                                  const hetcclConfig_t* config);
/* Splits comm into disjoint communicators, one per color (collective over comm, as NCCL's
 * ncclCommSplit): ranks that pass the same color form one, ordered by key and then by their
 * rank in comm; a rank passing HETCCL_SPLIT_NOCOLOR joins none and gets *newcomm = NULL.
 * Islands, link costs, tuner and island vendor libraries are formed anew for each part.
 * With config NULL the new communicator inherits comm's settings (config fields and
 * environment as read when comm was created); with a config, it is read as at creation.
 * Operations queued on comm finish first.  A rank whose arguments are invalid takes part as
 * HETCCL_SPLIT_NOCOLOR (so that the others do not wait for it) and returns
 * hetcclInvalidArgument. */
#define HETCCL_SPLIT_NOCOLOR (-1)
hetcclResult_t hetcclCommSplit(hetcclComm_t comm, int color, int key, hetcclComm_t* newcomm,
                               const hetcclConfig_t* config);
/* Lets queued operations finish, then frees the communicator (collective, like NCCL's).
 * Streams that waited for those operations are released as they finish. */
hetcclResult_t hetcclCommDestroy(hetcclComm_t comm);
/* Frees the communicator without waiting for peers: queued operations are skipped, the one
 * running gives up at its next poll, and streams waiting for them are released (their
 * results are undefined).  Safe from any thread, also while another thread is inside a call
 * on comm (a watchdog's abort): that call returns, and the communicator is freed after it.
 * A communicator is used by one thread at a time; a second thread's operation meanwhile
 * returns hetcclInvalidUsage. */
hetcclResult_t hetcclCommAbort(hetcclComm_t comm);
hetcclResult_t hetcclCommCount(const hetcclComm_t comm, int* count);
hetcclResult_t hetcclCommUserRank(const hetcclComm_t comm, int* rank);
/* The error that poisoned the communicator (a failed call, or a queued operation that failed
 * after its call had returned), or hetcclSuccess; hetcclGetLastError(comm) on the same thread
 * then gives its message. */
hetcclResult_t hetcclCommGetAsyncError(hetcclComm_t comm, hetcclResult_t* asyncError);

/* hetccl extension: the algorithm ("ring", "hier", "torus", "hier-rhd", "hier-tree",
 * "hier-dbtree", "small", "native", "chain", "direct", "p2p") of the last operation this
 * communicator ran ("none" before any).  When an island vendor library took part it is named:
 * "native:nccl" (the whole operation went to it), "hier+nccl" (it ran the island steps).  The
 * string stays valid until the next operation or the communicator's destruction. */
hetcclResult_t hetcclCommGetAlgorithm(hetcclComm_t comm, const char** algorithm);
/* hetccl extension: the cost model's predicted time, in seconds, of the last operation's plan
 * (what the tuner ranked it by, from the link parameters the communicator was created with:
 * HETCCL_EMULATE_LINKS, HETCCL_LINK_PROBE=1's measurement, or defaults).  0 when hetccl
 * planned no collective for it (point-to-point, an operation the vendor library took whole). */
hetcclResult_t hetcclCommGetPredictedTime(hetcclComm_t comm, double* seconds);

/* The kind of this process's device (selected by HETCCL_DEVICE): "cuda", "hip", "host", or
 * "host-strict" (host memory the host cannot read, for tests).  A static string. */
hetcclResult_t hetcclGetDeviceKind(const char** kind);
/* Which of its vendor's visible devices this process drives (what cudaSetDevice or
 * hipSetDevice takes: HETCCL_DEVICE_ID, else the node-local rank modulo the devices); 0 on
 * the host device. */
hetcclResult_t hetcclGetDeviceIndex(int* index);
/* Device memory of this process's device (selected by HETCCL_DEVICE). */
hetcclResult_t hetcclMemAlloc(void** ptr, size_t size);
hetcclResult_t hetcclMemFree(void* ptr);
/* Copies between host memory and device memory of this process's device (blocking). */
hetcclResult_t hetcclMemcpyToDevice(void* dst, const void* src, size_t bytes);
hetcclResult_t hetcclMemcpyFromDevice(void* dst, const void* src, size_t bytes);
/* Streams of this process's device, for programs that do not use CUDA or HIP directly. */
hetcclResult_t hetcclStreamCreate(hetcclStream_t* stream);
hetcclResult_t hetcclStreamDestroy(hetcclStream_t stream);
hetcclResult_t hetcclStreamSynchronize(hetcclStream_t stream);

/* Collectives: arguments, per-rank counts and in-place rules as NCCL's.
 *   in-place all-reduce/broadcast/reduce: sendbuff == recvbuff
 *   in-place reduce-scatter: recvbuff == sendbuff + rank * recvcount
 *   in-place all-gather:     sendbuff == recvbuff + rank * sendcount
 *   in-place all-to-all:     sendbuff == recvbuff
 * Each call is ordered on `stream`, as NCCL's: the operation starts after the work enqueued
 * there before the call, and work enqueued there after the call waits until it has finished;
 * hetcclStreamSynchronize (or cudaStreamSynchronize / hipStreamSynchronize) then sees the
 * result.  The call validates its arguments (an invalid one returns at once, does nothing,
 * and leaves the communicator usable), queues the operation for the communicator's progress
 * thread and returns without waiting for it; a failure met later is reported by
 * hetcclCommGetAsyncError and by the next call.  Two cases complete before returning, which
 * the contract allows: a small collective (HETCCL_INLINE_BYTES) on an idle stream with
 * nothing queued, run on the calling thread; and every operation when there is no progress
 * thread (MPI below MPI_THREAD_MULTIPLE, or HETCCL_PROGRESS=caller).  On the native path
 * (a single-island communicator whose NCCL or RCCL takes the whole operation) the vendor
 * library enqueues it on `stream` itself.  See README, "Stream semantics". */
hetcclResult_t hetcclAllReduce(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t datatype,
                               hetcclRedOp_t op, hetcclComm_t comm, hetcclStream_t stream);
hetcclResult_t hetcclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, hetcclDataType_t datatype,
                                   hetcclRedOp_t op, hetcclComm_t comm, hetcclStream_t stream);
hetcclResult_t hetcclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, hetcclDataType_t datatype,
                               hetcclComm_t comm, hetcclStream_t stream);
hetcclResult_t hetcclBroadcast(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t datatype, int root,
                               hetcclComm_t comm, hetcclStream_t stream);
hetcclResult_t hetcclReduce(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t datatype,
                            hetcclRedOp_t op, int root, hetcclComm_t comm, hetcclStream_t stream);
hetcclResult_t hetcclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t datatype,
                              hetcclComm_t comm, hetcclStream_t stream);
hetcclResult_t hetcclSend(const void* sendbuff, size_t count, hetcclDataType_t datatype, int peer, hetcclComm_t comm,
                          hetcclStream_t stream);
hetcclResult_t hetcclRecv(void* recvbuff, size_t count, hetcclDataType_t datatype, int peer, hetcclComm_t comm,
                          hetcclStream_t stream);

/* Group calls: operations issued between GroupStart and GroupEnd are validated at once and
 * launched together at GroupEnd (all point-to-point operations of a communicator as one
 * operation, so they run concurrently), as NCCL's groups, each ordered on its stream as
 * above.  Groups nest; the outermost GroupEnd launches them. */
hetcclResult_t hetcclGroupStart(void);
hetcclResult_t hetcclGroupEnd(void);

#ifdef __cplusplus
}
#endif

#endif /* HETCCL_HETCCL_H */
