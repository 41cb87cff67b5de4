/*
 * An ordinary NCCL program, as a user of NCCL would write it: <nccl.h> and <mpi.h> only, the
 * unique id made on rank 0 and broadcast over MPI.  Built and run against hetccl's NCCL
 * drop-in (linked directly, through LD_PRELOAD, or as libnccl.so.2 on LD_LIBRARY_PATH).
 *
 * It runs on hetccl's host device (the tests set HETCCL_DEVICE=host), where ncclMemAlloc
 * returns host memory that the checks read directly; on GPUs the program would cudaMemcpy.
 * It reads each result right after the call: on a GPU it would first cudaStreamSynchronize,
 * but an NCCL program has no call that waits for a host device's stream, so there the drop-in
 * completes every operation before returning (docs/NCCL-DROPIN.md) -- which this checks.
 * Inputs are small integers (also in float), so every result is exact whatever the reduction
 * order, and it is compared bit for bit.  Exit status 0 only when every check on every rank
 * passed.
 */
#include <mpi.h>
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 1031 /* odd, so no collective splits evenly into chunks */
#define ALLTOALL_COUNT 257

static int g_rank, g_nranks, g_passed, g_failed;

static void check(int ok, const char* what) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    fprintf(stderr, "rank %d: FAILED: %s\n", g_rank, what);
  }
}

/* A call that must succeed; counted as a check. */
#define NCCL_MUST(call)                                                                                 \
  do {                                                                                                  \
    ncclResult_t must_result_ = (call);                                                                 \
    if (must_result_ != ncclSuccess)                                                                    \
      fprintf(stderr, "rank %d: %s returned %s: %s\n", g_rank, #call, ncclGetErrorString(must_result_), \
              ncclGetLastError(NULL));                                                                  \
    check(must_result_ == ncclSuccess, #call);                                                          \
  } while (0)

static int same(const void* actual, const void* expected, size_t bytes) { return memcmp(actual, expected, bytes) == 0; }

static void test_allreduce(ncclComm_t comm, void* send, void* recv, void* expected) {
  const int n = g_nranks;
  float* fs = send;
  float* fr = recv;
  float* fe = expected;
  for (size_t i = 0; i < COUNT; ++i) {
    fs[i] = (float)(g_rank + 1 + (int)(i % 7));
    fe[i] = (float)(n * (n + 1) / 2 + n * (int)(i % 7));
  }
  NCCL_MUST(ncclAllReduce(send, recv, COUNT, ncclFloat, ncclSum, comm, NULL));
  check(same(fr, fe, COUNT * sizeof(float)), "allreduce float sum (out of place)");

  int32_t* is = send;
  int32_t* ie = expected;
  for (size_t i = 0; i < COUNT; ++i) {
    is[i] = g_rank * 1000 + (int32_t)i;
    ie[i] = 1000 * (n * (n - 1) / 2) + n * (int32_t)i;
  }
  NCCL_MUST(ncclAllReduce(send, send, COUNT, ncclInt32, ncclSum, comm, NULL));
  check(same(is, ie, COUNT * sizeof(int32_t)), "allreduce int32 sum (in place)");
}

static void test_broadcast_and_reduce(ncclComm_t comm, void* send, void* recv, void* expected) {
  const int n = g_nranks, last = n - 1;
  float* fs = send;
  float* fr = recv;
  float* fe = expected;
  for (size_t i = 0; i < COUNT; ++i) {
    fs[i] = g_rank == last ? (float)i * 0.5f : -1.0f;
    fr[i] = -2.0f;
    fe[i] = (float)i * 0.5f;
  }
  NCCL_MUST(ncclBroadcast(send, recv, COUNT, ncclFloat, last, comm, NULL));
  check(same(fr, fe, COUNT * sizeof(float)), "broadcast float from the last rank");

  int64_t* ls = send;
  int64_t* le = expected;
  for (size_t i = 0; i < COUNT; ++i) {
    ls[i] = g_rank == 0 ? (int64_t)i * 3 + 7 : -1;
    le[i] = (int64_t)i * 3 + 7;
  }
  NCCL_MUST(ncclBcast(send, COUNT, ncclInt64, 0, comm, NULL));
  check(same(ls, le, COUNT * sizeof(int64_t)), "bcast int64 from rank 0 (in place)");

  const int root = n > 1 ? 1 : 0;
  int32_t* is = send;
  int32_t* ir = recv;
  int32_t* ie = expected;
  for (size_t i = 0; i < COUNT; ++i) {
    is[i] = (g_rank + 1) * (int32_t)(i % 11);
    ie[i] = (n * (n + 1) / 2) * (int32_t)(i % 11);
  }
  NCCL_MUST(ncclReduce(send, recv, COUNT, ncclInt32, ncclSum, root, comm, NULL));
  if (g_rank == root) check(same(ir, ie, COUNT * sizeof(int32_t)), "reduce int32 sum to rank 1");
}

static void test_allgather_and_reducescatter(ncclComm_t comm, void* send, void* recv, void* expected) {
  const int n = g_nranks;
  int32_t* is = send;
  int32_t* ir = recv;
  int32_t* ie = expected;
  for (size_t i = 0; i < COUNT; ++i) is[i] = g_rank * 100000 + (int32_t)i;
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < COUNT; ++i) ie[(size_t)r * COUNT + i] = r * 100000 + (int32_t)i;
  NCCL_MUST(ncclAllGather(send, recv, COUNT, ncclInt32, comm, NULL));
  check(same(ir, ie, (size_t)n * COUNT * sizeof(int32_t)), "allgather int32");

  float* fs = send;
  float* fr = recv;
  float* fe = expected;
  for (size_t j = 0; j < (size_t)n * COUNT; ++j) fs[j] = (float)((g_rank + 1) * (int)(j % 5));
  for (size_t i = 0; i < COUNT; ++i) fe[i] = (float)((n * (n + 1) / 2) * (int)(((size_t)g_rank * COUNT + i) % 5));
  NCCL_MUST(ncclReduceScatter(send, recv, COUNT, ncclFloat, ncclSum, comm, NULL));
  check(same(fr, fe, COUNT * sizeof(float)), "reducescatter float sum");
}

static void test_alltoall_gather_scatter(ncclComm_t comm, void* send, void* recv, void* expected) {
  const int n = g_nranks;
  int32_t* is = send;
  int32_t* ir = recv;
  int32_t* ie = expected;
  for (int p = 0; p < n; ++p)
    for (size_t i = 0; i < ALLTOALL_COUNT; ++i) {
      is[(size_t)p * ALLTOALL_COUNT + i] = g_rank * 1000000 + p * 1000 + (int32_t)i;
      ie[(size_t)p * ALLTOALL_COUNT + i] = p * 1000000 + g_rank * 1000 + (int32_t)i;
    }
  NCCL_MUST(ncclAlltoAll(send, recv, ALLTOALL_COUNT, ncclInt32, comm, NULL));
  check(same(ir, ie, (size_t)n * ALLTOALL_COUNT * sizeof(int32_t)), "alltoall int32");

  for (size_t i = 0; i < COUNT; ++i) is[i] = g_rank * 100000 + (int32_t)i;
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < COUNT; ++i) ie[(size_t)r * COUNT + i] = r * 100000 + (int32_t)i;
  NCCL_MUST(ncclGather(send, recv, COUNT, ncclInt32, 0, comm, NULL));
  if (g_rank == 0) check(same(ir, ie, (size_t)n * COUNT * sizeof(int32_t)), "gather int32 to rank 0");

  const int root = n - 1;
  for (size_t j = 0; j < (size_t)n * COUNT; ++j) is[j] = g_rank == root ? (int32_t)j * 3 : -1;
  for (size_t i = 0; i < COUNT; ++i) ie[i] = (int32_t)((size_t)g_rank * COUNT + i) * 3;
  NCCL_MUST(ncclScatter(send, recv, COUNT, ncclInt32, root, comm, NULL));
  check(same(ir, ie, COUNT * sizeof(int32_t)), "scatter int32 from the last rank");
}

/* Each rank sends to the next and receives from the previous, in one group. */
static void test_send_recv_ring(ncclComm_t comm, void* send, void* recv, void* expected) {
  const int n = g_nranks, next = (g_rank + 1) % n, prev = (g_rank + n - 1) % n;
  double* ds = send;
  double* dr = recv;
  double* de = expected;
  for (size_t i = 0; i < COUNT; ++i) {
    ds[i] = (double)(g_rank * 7) + (double)i;
    de[i] = (double)(prev * 7) + (double)i;
  }
  NCCL_MUST(ncclGroupStart());
  NCCL_MUST(ncclSend(send, COUNT, ncclDouble, next, comm, NULL));
  NCCL_MUST(ncclRecv(recv, COUNT, ncclDouble, prev, comm, NULL));
  NCCL_MUST(ncclGroupEnd());
  check(same(dr, de, COUNT * sizeof(double)), "send/recv ring of doubles in a group");
}

/* What the drop-in refuses must be refused with a message, leaving the communicator usable. */
/* Parity parts in reverse order, as tensor- and data-parallel groups are made; then every rank
 * but the last in one part, the last taking part with NCCL_SPLIT_NOCOLOR. */
static void test_split(ncclComm_t comm, void* send) {
  ncclComm_t part = NULL;
  NCCL_MUST(ncclCommSplit(comm, g_rank % 2, -g_rank, &part, NULL));
  int members = 0, parity_rank = -1, count = -1, rank = -1;
  for (int r = 0; r < g_nranks; ++r) members += r % 2 == g_rank % 2;
  for (int r = g_nranks - 1; r >= 0; --r) parity_rank += r % 2 == g_rank % 2 && r >= g_rank;
  if (part != NULL) {
    NCCL_MUST(ncclCommCount(part, &count));
    NCCL_MUST(ncclCommUserRank(part, &rank));
  }
  check(count == members && rank == parity_rank, "ncclCommSplit: size and reversed rank order");
  int32_t* values = send;
  int32_t expected = 0;
  for (int r = g_rank % 2; r < g_nranks; r += 2) expected += r + 1;
  for (size_t i = 0; i < COUNT; ++i) values[i] = g_rank + 1;
  if (part != NULL) NCCL_MUST(ncclAllReduce(send, send, COUNT, ncclInt32, ncclSum, part, NULL));
  int right = 1;
  for (size_t i = 0; i < COUNT; ++i) right &= values[i] == expected;
  check(right, "allreduce on a part of ncclCommSplit");
  if (part != NULL) NCCL_MUST(ncclCommDestroy(part));

  const int last = g_rank == g_nranks - 1;
  ncclComm_t rest = NULL;
  NCCL_MUST(ncclCommSplit(comm, last ? NCCL_SPLIT_NOCOLOR : 0, 0, &rest, NULL));
  check(last ? rest == NULL : rest != NULL, "NCCL_SPLIT_NOCOLOR leaves the rank out");
  if (rest != NULL) NCCL_MUST(ncclCommDestroy(rest));
}

/* ncclRedOpCreatePreMulSum: each rank's input times its own scalar, then summed.  int32 with
 * the scalar rank + 1 in host memory; float with 0.5 in device memory, in a reduce-scatter. */
static void test_premul_sum(ncclComm_t comm, void* send, void* recv) {
  const int n = g_nranks;
  int32_t* is = send;
  int32_t* ir = recv;
  for (size_t i = 0; i < COUNT; ++i) is[i] = 1 + (int32_t)(i % 5);
  int32_t factor = g_rank + 1;
  ncclRedOp_t op;
  NCCL_MUST(ncclRedOpCreatePreMulSum(&op, &factor, ncclInt32, ncclScalarHostImmediate, comm));
  NCCL_MUST(ncclAllReduce(send, recv, COUNT, ncclInt32, op, comm, NULL));
  int right = 1;
  for (size_t i = 0; i < COUNT; ++i) right &= ir[i] == (n * (n + 1) / 2) * (1 + (int32_t)(i % 5));
  check(right, "PreMulSum all-reduce, int32, scalar rank + 1 in host memory");
  NCCL_MUST(ncclRedOpDestroy(op, comm));

  float* half_scalar = NULL;
  NCCL_MUST(ncclMemAlloc((void**)&half_scalar, sizeof(float)));
  *half_scalar = 0.5f;
  float* fs = send;
  float* fr = recv;
  const size_t block = 37;
  for (size_t i = 0; i < block * (size_t)n; ++i) fs[i] = (float)(2 * (g_rank + (int)(i % 3)));
  NCCL_MUST(ncclRedOpCreatePreMulSum(&op, half_scalar, ncclFloat, ncclScalarDevice, comm));
  NCCL_MUST(ncclReduceScatter(send, recv, block, ncclFloat, op, comm, NULL));
  right = 1;
  for (size_t i = 0; i < block; ++i) {
    const size_t at = (size_t)g_rank * block + i;
    right &= fr[i] == (float)(n * (n - 1) / 2 + n * (int)(at % 3));
  }
  check(right, "PreMulSum reduce-scatter, float, scalar 0.5 in device memory");
  NCCL_MUST(ncclRedOpDestroy(op, comm));
  NCCL_MUST(ncclMemFree(half_scalar));
}

static void test_refusals(ncclComm_t comm, void* send, void* recv) {
  ncclResult_t result = ncclAllReduce(send, recv, COUNT, (ncclDataType_t)10, ncclSum, comm, NULL);
  check(result == ncclInvalidArgument, "fp8 allreduce returns ncclInvalidArgument");
  check(strstr(ncclGetLastError(comm), "fp8") != NULL, "ncclGetLastError explains fp8");

  ncclRedOp_t op;
  float scalar = 2.0f;
  NCCL_MUST(ncclRedOpCreatePreMulSum(&op, &scalar, ncclFloat, ncclScalarHostImmediate, comm));
  result = ncclAllReduce(send, recv, COUNT, ncclInt32, op, comm, NULL);
  check(result == ncclInvalidArgument, "a PreMulSum op made for float is refused for int32");
  NCCL_MUST(ncclRedOpDestroy(op, comm));
  result = ncclAllReduce(send, recv, COUNT, ncclFloat, op, comm, NULL);
  check(result == ncclInvalidArgument, "a destroyed PreMulSum op is refused");

  ncclComm_t several[2];
  check(ncclCommInitAll(several, 2, NULL) == ncclInvalidUsage, "ncclCommInitAll(2) is refused");

  ncclResult_t async = ncclInternalError;
  NCCL_MUST(ncclCommGetAsyncError(comm, &async));
  check(async == ncclSuccess, "communicator has no error after refused calls");
}

int main(int argc, char** argv) {
  /* As a PyTorch or Megatron job does: the library's progress threads call MPI too. */
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_nranks);

  int version = 0;
  NCCL_MUST(ncclGetVersion(&version));
  check(version == NCCL_VERSION_CODE, "ncclGetVersion reports the header's version");

  ncclUniqueId id;
  if (g_rank == 0) NCCL_MUST(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm = NULL;
  NCCL_MUST(ncclCommInitRank(&comm, g_nranks, id, g_rank));
  if (comm == NULL) {
    fprintf(stderr, "rank %d: no communicator, giving up\n", g_rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int count = -1, rank = -1;
  NCCL_MUST(ncclCommCount(comm, &count));
  NCCL_MUST(ncclCommUserRank(comm, &rank));
  check(count == g_nranks && rank == g_rank, "communicator size and rank match MPI's");

  const size_t bytes = (size_t)g_nranks * COUNT * sizeof(double);
  void* send = NULL;
  void* recv = NULL;
  void* expected = malloc(bytes);
  NCCL_MUST(ncclMemAlloc(&send, bytes));
  NCCL_MUST(ncclMemAlloc(&recv, bytes));
  if (!send || !recv || !expected) MPI_Abort(MPI_COMM_WORLD, 1);

  test_premul_sum(comm, send, recv);
  test_refusals(comm, send, recv);
  test_allreduce(comm, send, recv, expected);
  test_broadcast_and_reduce(comm, send, recv, expected);
  test_allgather_and_reducescatter(comm, send, recv, expected);
  test_alltoall_gather_scatter(comm, send, recv, expected);
  test_send_recv_ring(comm, send, recv, expected);
  test_split(comm, send);

  NCCL_MUST(ncclMemFree(send));
  NCCL_MUST(ncclMemFree(recv));
  free(expected);
  NCCL_MUST(ncclCommFinalize(comm));
  NCCL_MUST(ncclCommDestroy(comm));

  int totals[2] = {g_passed, g_failed};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("nccl_program on %d ranks: %d passed, %d failed\n", g_nranks, totals[0], totals[1]);
  MPI_Finalize();
  return totals[1] == 0 ? 0 : 1;
}
