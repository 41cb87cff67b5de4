/* A small stand-in for a vendor collectives library, for tests on machines without a GPU:
 * NCCL's C ABI (as hetccl opens it at run time) over MPI on host memory.  Unlike hetccl's own
 * NCCL drop-in it is independent of hetccl (a bug in hetccl's plans cannot cancel out here)
 * and needs only the members of a communicator to create it, so an island with this library
 * can sit next to islands without one.
 *
 * Limits, fine for what the tests give it: host memory, blocking calls (the stream is
 * ignored), types MPI has (no float16/bfloat16), ops sum/prod/max/min (no avg), and the
 * process that made the unique id must be the communicator's rank 0 (hetccl's island code
 * does exactly that).  STUB_NCCL_REFUSE_INIT=1 makes ncclCommInitRank fail. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  char internal[128];
} ncclUniqueId;

typedef struct stubComm {
  MPI_Comm comm;
  int rank, nranks;
} * ncclComm_t;

enum { ok = 0, systemError = 2, invalidArgument = 4, invalidUsage = 5 };

/* The id: a marker, the maker's rank in MPI_COMM_WORLD and a tag for the rendezvous. */
typedef struct {
  char marker[8];
  int makerWorldRank;
  int tag;
} IdLayout;

static const char kMarker[8] = "stubnccl";
static MPI_Datatype typeOf(int type) {
  switch (type) {
    case 0: return MPI_INT8_T;
    case 1: return MPI_UINT8_T;
    case 2: return MPI_INT32_T;
    case 3: return MPI_UINT32_T;
    case 4: return MPI_INT64_T;
    case 5: return MPI_UINT64_T;
    case 7: return MPI_FLOAT;
    case 8: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}
static MPI_Op opOf(int op) {
  switch (op) {
    case 0: return MPI_SUM;
    case 1: return MPI_PROD;
    case 2: return MPI_MAX;
    case 3: return MPI_MIN;
    default: return MPI_OP_NULL;
  }
}
static int size(int type) {
  int bytes = 0;
  MPI_Type_size(typeOf(type), &bytes);
  return bytes;
}
#define CHECK_TYPE_OP(type, op) \
  if (typeOf(type) == MPI_DATATYPE_NULL || opOf(op) == MPI_OP_NULL) return invalidArgument
#define MPI_OK(call) \
  if ((call) != MPI_SUCCESS) return systemError

int ncclGetVersion(int* version) {
  *version = 1;
  return ok;
}
const char* ncclGetErrorString(int result) {
  return result == ok                ? "no error"
         : result == invalidArgument ? "invalid argument (the stub takes no float16, bfloat16 or avg)"
                                     : "stub failure";
}

int ncclGetUniqueId(ncclUniqueId* id) {
  static int counter = 0;
  IdLayout layout;
  memset(id, 0, sizeof *id);
  memcpy(layout.marker, kMarker, sizeof kMarker);
  MPI_Comm_rank(MPI_COMM_WORLD, &layout.makerWorldRank);
  layout.tag = 20000 + (int)(((unsigned)getpid() * 31u + (unsigned)time(NULL) + (unsigned)counter++) % 10000u);
  memcpy(id->internal, &layout, sizeof layout);
  return ok;
}

/* Members tell the maker (rank 0) their world ranks; it answers with the list, in rank order;
 * then the members alone create their MPI communicator. */
int ncclCommInitRank(ncclComm_t* out, int nranks, ncclUniqueId id, int rank) {
  /* A library that refuses (NCCL with two ranks on one GPU does): set on every member. */
  const char* refuse = getenv("STUB_NCCL_REFUSE_INIT");
  if (refuse && *refuse == '1') return systemError;
  IdLayout layout;
  memcpy(&layout, id.internal, sizeof layout);
  if (memcmp(layout.marker, kMarker, sizeof kMarker) != 0 || rank < 0 || rank >= nranks) return invalidArgument;
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if ((rank == 0) != (me == layout.makerWorldRank)) return invalidUsage;
  int* worldRanks = calloc((size_t)nranks, sizeof(int));
  worldRanks[0] = me;
  if (rank == 0) {
    for (int i = 1; i < nranks; ++i) {
      int joined[2];
      MPI_Recv(joined, 2, MPI_INT, MPI_ANY_SOURCE, layout.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (joined[0] > 0 && joined[0] < nranks) worldRanks[joined[0]] = joined[1];
    }
    for (int i = 1; i < nranks; ++i) MPI_Send(worldRanks, nranks, MPI_INT, worldRanks[i], layout.tag, MPI_COMM_WORLD);
  } else {
    int joined[2] = {rank, me};
    MPI_Send(joined, 2, MPI_INT, layout.makerWorldRank, layout.tag, MPI_COMM_WORLD);
    MPI_Recv(worldRanks, nranks, MPI_INT, layout.makerWorldRank, layout.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Group world, members;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, nranks, worldRanks, &members);
  struct stubComm* comm = calloc(1, sizeof *comm);
  int code = MPI_Comm_create_group(MPI_COMM_WORLD, members, layout.tag, &comm->comm);
  MPI_Group_free(&members);
  MPI_Group_free(&world);
  free(worldRanks);
  if (code != MPI_SUCCESS) {
    free(comm);
    return systemError;
  }
  comm->rank = rank;
  comm->nranks = nranks;
  *out = comm;
  return ok;
}

int ncclCommDestroy(ncclComm_t comm) {
  if (comm) {
    MPI_Comm_free(&comm->comm);
    free(comm);
  }
  return ok;
}
int ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }
int ncclCommGetAsyncError(ncclComm_t comm, int* error) {
  (void)comm;
  *error = ok;
  return ok;
}

int ncclAllReduce(const void* send, void* recv, size_t count, int type, int op, ncclComm_t comm, void* stream) {
  (void)stream;
  CHECK_TYPE_OP(type, op);
  MPI_OK(MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, (int)count, typeOf(type), opOf(op), comm->comm));
  return ok;
}

int ncclReduceScatter(const void* send, void* recv, size_t recvcount, int type, int op, ncclComm_t comm, void* stream) {
  (void)stream;
  CHECK_TYPE_OP(type, op);
  /* NCCL's in-place form (recv inside send) has no MPI equivalent: reduce a copy. */
  size_t bytes = recvcount * (size_t)comm->nranks * (size_t)size(type);
  void* copy = malloc(bytes ? bytes : 1);
  memcpy(copy, send, bytes);
  int code = MPI_Reduce_scatter_block(copy, recv, (int)recvcount, typeOf(type), opOf(op), comm->comm);
  free(copy);
  return code == MPI_SUCCESS ? ok : systemError;
}

int ncclAllGather(const void* send, void* recv, size_t sendcount, int type, ncclComm_t comm, void* stream) {
  (void)stream;
  CHECK_TYPE_OP(type, 0);
  const char* mine = (const char*)recv + (size_t)comm->rank * sendcount * (size_t)size(type);
  MPI_OK(MPI_Allgather(send == mine ? MPI_IN_PLACE : send, (int)sendcount, typeOf(type), recv, (int)sendcount,
                       typeOf(type), comm->comm));
  return ok;
}

int ncclBroadcast(const void* send, void* recv, size_t count, int type, int root, ncclComm_t comm, void* stream) {
  (void)stream;
  CHECK_TYPE_OP(type, 0);
  if (comm->rank == root && send != recv) memcpy(recv, send, count * (size_t)size(type));
  MPI_OK(MPI_Bcast(recv, (int)count, typeOf(type), root, comm->comm));
  return ok;
}

int ncclReduce(const void* send, void* recv, size_t count, int type, int op, int root, ncclComm_t comm, void* stream) {
  (void)stream;
  CHECK_TYPE_OP(type, op);
  const void* from = comm->rank == root && send == recv ? MPI_IN_PLACE : send;
  MPI_OK(MPI_Reduce(from, recv, (int)count, typeOf(type), opOf(op), root, comm->comm));
  return ok;
}

/* Point-to-point: posted at once, completed at the end of the group (or at once outside). */
static MPI_Request pending[1024];
static int pendingCount = 0, groupDepth = 0;

static int finishPending(void) {
  int code = MPI_Waitall(pendingCount, pending, MPI_STATUSES_IGNORE);
  pendingCount = 0;
  return code == MPI_SUCCESS ? ok : systemError;
}
int ncclGroupStart(void) {
  ++groupDepth;
  return ok;
}
int ncclGroupEnd(void) {
  if (groupDepth == 0) return invalidUsage;
  return --groupDepth == 0 ? finishPending() : ok;
}
static int post(int isSend, void* buffer, size_t count, int type, int peer, ncclComm_t comm) {
  CHECK_TYPE_OP(type, 0);
  if (pendingCount == (int)(sizeof pending / sizeof pending[0])) return invalidUsage;
  MPI_Request* request = &pending[pendingCount++];
  int code = isSend ? MPI_Isend(buffer, (int)count, typeOf(type), peer, 1, comm->comm, request)
                    : MPI_Irecv(buffer, (int)count, typeOf(type), peer, 1, comm->comm, request);
  if (code != MPI_SUCCESS) return systemError;
  return groupDepth == 0 ? finishPending() : ok;
}
int ncclSend(const void* send, size_t count, int type, int peer, ncclComm_t comm, void* stream) {
  (void)stream;
  return post(1, (void*)send, count, type, peer, comm);
}
int ncclRecv(void* recv, size_t count, int type, int peer, ncclComm_t comm, void* stream) {
  (void)stream;
  return post(0, recv, count, type, peer, comm);
}
