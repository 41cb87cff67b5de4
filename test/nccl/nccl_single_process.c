/*
 * An NCCL program that never calls MPI: the drop-in must initialise MPI itself on the first
 * communicator and finalise it at exit (under mpirun, a process that initialised MPI and exits
 * without MPI_Finalize fails the job, so this test's exit status checks that too).
 *
 * One process, two communicators of one rank (ncclCommInitAll with one device, and a unique id
 * with ncclCommInitRankConfig), plus the argument checks that must fail at once with a message.
 * Host device only (HETCCL_DEVICE=host): results are read straight from ncclMemAlloc memory.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int g_passed, g_failed;

static void check(int ok, const char* what) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    fprintf(stderr, "FAILED: %s (last error: %s)\n", what, ncclGetLastError(NULL));
  }
}

/* A one-rank all-reduce must hand back its input unchanged. */
static void check_allreduce(ncclComm_t comm, const char* what) {
  enum { N = 100 };
  int32_t* buffer = NULL;
  check(ncclMemAlloc((void**)&buffer, N * sizeof(int32_t)) == ncclSuccess, "ncclMemAlloc");
  if (!buffer) return;
  for (int i = 0; i < N; ++i) buffer[i] = i * 5 - 17;
  check(ncclAllReduce(buffer, buffer, N, ncclInt32, ncclMax, comm, NULL) == ncclSuccess, what);
  int same = 1;
  for (int i = 0; i < N; ++i) same = same && buffer[i] == i * 5 - 17;
  check(same, what);
  check(ncclMemFree(buffer) == ncclSuccess, "ncclMemFree");
}

int main(void) {
  ncclComm_t comm = NULL;
  check(ncclCommInitAll(&comm, 1, NULL) == ncclSuccess, "ncclCommInitAll(1)");
  int count = 0;
  check(ncclCommCount(comm, &count) == ncclSuccess && count == 1, "ncclCommInitAll comm has 1 rank");
  check_allreduce(comm, "allreduce on the ncclCommInitAll communicator");
  check(ncclCommDestroy(comm) == ncclSuccess, "ncclCommDestroy (InitAll)");

  ncclUniqueId id;
  check(ncclGetUniqueId(&id) == ncclSuccess, "ncclGetUniqueId");
  comm = NULL;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0; /* returns at once; the creation goes on in the background */
  ncclResult_t started = ncclCommInitRankConfig(&comm, 1, id, 0, &config);
  check((started == ncclInProgress || started == ncclSuccess) && comm != NULL,
        "ncclCommInitRankConfig(1 rank, non-blocking) returns the communicator at once");
  ncclResult_t state = ncclInProgress;
  for (int polls = 0; state == ncclInProgress && polls < 60000; ++polls) {
    if (ncclCommGetAsyncError(comm, &state) != ncclSuccess) break;
    if (state == ncclInProgress) {
      const struct timespec millisecond = {0, 1000000};
      nanosleep(&millisecond, NULL);
    }
  }
  check(state == ncclSuccess, "the non-blocking creation ends in ncclSuccess");
  check_allreduce(comm, "allreduce on the ncclCommInitRankConfig communicator");

  /* Refusals: at once, with a message, communicator untouched. */
  ncclUniqueId foreign;
  memset(&foreign, 0x5a, sizeof foreign);
  ncclComm_t other = NULL;
  check(ncclCommInitRank(&other, 1, foreign, 0) == ncclInvalidArgument && other == NULL,
        "an id not made by ncclGetUniqueId is refused");
  check(strstr(ncclGetLastError(NULL), "unique id") != NULL, "the refusal names the unique id");
  check(ncclCommInitRank(&other, 1, id, 3) == ncclInvalidArgument, "rank >= nranks is refused");
  /* More ranks than the MPI job has processes: what a torchrun worker (a job of its own) sees. */
  check(ncclCommInitRank(&other, 2, id, 0) == ncclInvalidUsage && other == NULL,
        "a communicator larger than the MPI job is refused");
  check(strstr(ncclGetLastError(NULL), "mpirun -np N") != NULL, "the refusal says how to start the job");
  ncclConfig_t unset;
  memset(&unset, 0, sizeof unset);
  check(ncclCommInitRankConfig(&other, 1, id, 0, &unset) == ncclInvalidArgument,
        "a config not from NCCL_CONFIG_INITIALIZER is refused");
  check(ncclAllReduce(NULL, NULL, 1, ncclFloat, (ncclRedOp_t)9, comm, NULL) == ncclInvalidArgument,
        "an unknown op is refused");
  check(ncclCommSplit(comm, 0, 0, &other, &unset) == ncclInvalidArgument && other == NULL,
        "ncclCommSplit with a config not from NCCL_CONFIG_INITIALIZER is refused");
  check(ncclCommSplit(comm, 0, 0, &other, NULL) == ncclSuccess && other != NULL, "ncclCommSplit of one rank");
  if (other != NULL) check(ncclCommDestroy(other) == ncclSuccess, "ncclCommDestroy (split)");
  ncclResult_t async = ncclInternalError;
  check(ncclCommGetAsyncError(comm, &async) == ncclSuccess && async == ncclSuccess,
        "no asynchronous error after the refusals");
  check(ncclCommFinalize(comm) == ncclSuccess, "ncclCommFinalize");
  check(ncclCommDestroy(comm) == ncclSuccess, "ncclCommDestroy (InitRank)");

  printf("nccl_single_process: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
