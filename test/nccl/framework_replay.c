/*
 * framework_replay: what PyTorch's ProcessGroupNCCL and Megatron-LM do with NCCL, replayed as an
 * NCCL program against hetccl's drop-in, with every result checked exactly.
 *
 * Built against <nccl.h> only: no MPI in the program (the launcher's environment gives rank and
 * size, a file store as PyTorch's FileStore passes the unique ids).  Built with
 * -DREPLAY_USES_MPI=1 it also calls MPI itself, as a job that uses mpi4py or torch.distributed's
 * MPI backend next to NCCL does: MPI_Init_thread(MPI_THREAD_MULTIPLE) first and MPI_Finalize
 * last, a receive of its own (any source, any tag, MPI_COMM_WORLD) posted the whole time, which
 * only its own last message may match, and one group's id passed with MPI_Bcast over an MPI
 * communicator it split off MPI_COMM_WORLD.
 *
 * What it replays, on a world of W ranks (W a multiple of 4):
 *  1. the issue's example: pairs {2k,2k+1} ("a") and {4b+t,4b+t+2} ("b"); the first half of the
 *     ranks meets its "a" pair first, the second half its "b" pair first (W=4: {0,1},{2,3} and
 *     {0,2},{1,3}, ranks 0-1 meeting {0,1}/{0,1} first, ranks 2-3 {0,2}/{1,3} first);
 *  2. Megatron's groups, tensor-parallel size 2 (TP {0,1},{2,3},...), pipeline-parallel size 2
 *     (PP {r, r+W/2}, created non-blocking: config.blocking = 0), data-parallel the rest (DP: the
 *     ranks with the same TP rank and PP stage; that leaves one rank per DP group at W=4, where
 *     the DP groups are then the pairs with the same TP rank, {0,2},{1,3}: the PP groups'
 *     members, but communicators of their own, as ProcessGroupNCCL makes one per process group);
 *     all-reduce (float and int32 sum) on each, broadcast, all-gather and reduce-scatter on TP,
 *     ncclCommRegister/ncclCommDeregister of a buffer on TP;
 *  3. ProcessGroupNCCL's point-to-point communicators: the PP pairs again, communicators of their
 *     own made lazily by the pair, a ncclSend/ncclRecv exchange both ways in one group;
 *  4. a world communicator (id from rank 0; every rank gets here), ncclCommSplit of it
 *     (color = rank % 2, key = rank) with an all-reduce on the child, and a PreMulSum op (0.5,
 *     host immediate) on the world;
 *  5. ncclCommAbort of the DP communicators on all their members, by the watchdog thread
 *     (which takes them off its list first) while the main thread runs one more checked
 *     all-reduce on TP and PP;
 *  6. every communicator destroyed, even ranks in creation order, odd ranks in reverse.
 * Every group's communicator is made lazily, at its first collective, by its members only (with
 * ncclCommInitRankConfig and their rank in the group), from an id its lowest world rank makes with
 * ncclGetUniqueId when it first uses the group and writes to <store>/<group>.id (a temporary file
 * renamed into place); the others poll for the file every 1 ms, for at most 60 s.
 *
 * Why the order cannot deadlock.  A creation returns once all its members are in it, and blocks
 * until then; so does every collective after it, and each rank does all it does on one group in
 * a phase back to back.  Each rank's sequence of groups is then a chain of waits, and the job
 * cannot deadlock exactly when the precedences of all the ranks' sequences together have no cycle
 * (the groups can then be met in one global order).
 *  - Phase 1: every "a" and "b" group lies inside a block of 4 ranks {4b..4b+3}.  Inside a block
 *    wholly in one half, every rank takes the same order.  A block that straddles the halves
 *    (W = 12, 20, ...) has its "a" pairs inside a half and its "b" pairs across: the first-half
 *    ranks finish "a" with each other and then meet "b", which the second-half ranks are
 *    already waiting in, before those meet their own "a" pair.
 *  - Phase 2, W >= 8: TP and DP groups lie inside a half, PP groups span the halves; the first
 *    half meets TP, DP, PP and the second PP, DP, TP, and the global order "first half's TP and
 *    DP, PP, second half's DP and TP" fits both.
 *  - Phase 2, W = 4: the DP groups {0,2},{1,3} span the halves as the PP groups do, and "PP, DP,
 *    TP" on the second half against "TP, DP, PP" on the first is a cycle (rank 0 waits in DP
 *    {0,2} for rank 2, which waits in PP {0,2} for rank 0).  So at W = 4 the second half meets
 *    DP, PP, TP: still rank-dependent (TP first on one half, last on the other), and the global
 *    order "first half's TP, DP, PP, second half's TP" fits.
 *  - Phases 3-5: the pairs and the world are met by all their members at the same point; after
 *    the abort the first half meets TP then PP, the second PP then TP (TP inside a half, as in
 *    phase 2).  Destruction and abort wait for nobody in NCCL.
 * This was checked with a small model of every rank's sequence for W = 4, 8, 12, 16 (and the
 * order "PP, DP, TP" found to deadlock at W = 4).
 *
 * A watchdog thread, as ProcessGroupNCCL's, polls ncclCommGetAsyncError on every live
 * communicator every ~1 ms while the main thread works (ncclSuccess required; ncclInProgress
 * too while the non-blocking one is being made), and gives up the job, naming the step, when the
 * main thread has made no progress for HETCCL_REPLAY_STALL_S seconds (default 90).
 *
 * Memory: buffers come from ncclMemAlloc.  On hetccl's host device (HETCCL_DEVICE=host) that is
 * host memory, which the program writes and reads directly; each result is read right after the
 * call, which the drop-in allows there (every operation is complete when its call returns).
 * Under the strict host device (HETCCL_DEVICE=host-strict) the host may not touch it, and an NCCL
 * program has no cudaMemcpy: --staged moves inputs in and results out through a one-rank
 * communicator (ncclCommInitAll with one device), as an ncclBroadcast between host memory and the
 * buffer -- the drop-in's device copies reach host memory as a GPU's copy engine does.
 *
 * Options: --staged (above); --lockstep: every rank meets the groups in the first half's order
 * (all the drop-in could serve while ncclCommInitRank split MPI_COMM_WORLD, so that every process
 * took part in every creation, in one order), to check the rest of the replay on its own.
 * Environment: HETCCL_REPLAY_STORE (the file store's directory, empty at the start of the job;
 * required); rank and size from OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, else PMIX_RANK with
 * HETCCL_REPLAY_WORLD_SIZE (else SLURM_NTASKS), else SLURM_PROCID/SLURM_NTASKS, else
 * PMI_RANK/PMI_SIZE; HETCCL_REPLAY_STALL_S (above).
 * Inputs are small integers (also in float), so results are exact whatever the reduction order;
 * they are compared bit for bit with values computed here.  Each rank prints "rank R: N checks
 * passed" and each failure with its rank; it exits 0 only when all its checks passed, and the
 * launcher fails the job when any rank does not.
 */
#define _POSIX_C_SOURCE 200809L

#include <nccl.h>

#ifndef REPLAY_USES_MPI
#define REPLAY_USES_MPI 0
#endif
#if REPLAY_USES_MPI
#include <mpi.h>
#endif

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define COUNT 1031   /* odd, so no collective splits evenly into chunks */
#define MAX_RANKS 64 /* world size limit (group member arrays are fixed) */
#define MAX_COMMS 16 /* communicators one rank makes */
#define WAIT_S 60.0  /* polls for an id or a non-blocking result give up after this */
#define MPI_REPLAY_TAG 7321
#define MPI_REPLAY_MAGIC 0x7265706c

#ifdef __GNUC__
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

static int g_rank = -1, g_size = 0, g_passed, g_failed;
static int g_staged, g_lockstep;
static const char* g_store;
static ncclComm_t g_self; /* --staged: the one-rank communicator that moves data in and out */
#if REPLAY_USES_MPI
static MPI_Comm g_mpi_tp = MPI_COMM_NULL; /* the TP group as an MPI communicator */
static MPI_Request g_own_recv = MPI_REQUEST_NULL;
static int g_own_message[4];
static int g_own_recv_done;
#endif

/* ------------------------------------------------------------------ checks and helpers */

static void vreport(const char* fmt, va_list args) {
  char text[512];
  vsnprintf(text, sizeof text, fmt, args);
  fprintf(stderr, "rank %d: FAILED: %s\n", g_rank, text);
}

static int check(int ok, const char* fmt, ...) PRINTF_LIKE(2, 3);
static int check(int ok, const char* fmt, ...) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    va_list args;
    va_start(args, fmt);
    vreport(fmt, args);
    va_end(args);
  }
  return ok;
}

/* A call that must return ncclSuccess; counted as a check. */
static int check_result(ncclResult_t result, ncclComm_t comm, const char* fmt, ...) PRINTF_LIKE(3, 4);
static int check_result(ncclResult_t result, ncclComm_t comm, const char* fmt, ...) {
  if (result == ncclSuccess) {
    ++g_passed;
    return 1;
  }
  char what[256];
  va_list args;
  va_start(args, fmt);
  vsnprintf(what, sizeof what, fmt, args);
  va_end(args);
  check(0, "%s returned %s: %s", what, ncclGetErrorString(result), ncclGetLastError(comm));
  return 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

/* ------------------------------------------------------------------ the watchdog */

typedef struct {
  ncclComm_t comm;
  const char* name;
  int initializing; /* a non-blocking creation not yet seen complete: ncclInProgress is fine */
} Watched;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* guards everything below */
static Watched g_watched[MAX_COMMS];
static int g_nwatched, g_watch_stop;
static long g_watch_polls, g_watch_bad;
static char g_step[192] = "starting";
static double g_step_since, g_stall_s = 90.0;

static void step(const char* fmt, ...) PRINTF_LIKE(1, 2);
static void step(const char* fmt, ...) {
  pthread_mutex_lock(&g_lock);
  va_list args;
  va_start(args, fmt);
  vsnprintf(g_step, sizeof g_step, fmt, args);
  va_end(args);
  g_step_since = now_s();
  pthread_mutex_unlock(&g_lock);
}

static void watch_add(ncclComm_t comm, const char* name, int initializing) {
  pthread_mutex_lock(&g_lock);
  if (g_nwatched < MAX_COMMS) g_watched[g_nwatched++] = (Watched){comm, name, initializing};
  pthread_mutex_unlock(&g_lock);
}

static void watch_ready(ncclComm_t comm) {
  pthread_mutex_lock(&g_lock);
  for (int i = 0; i < g_nwatched; ++i)
    if (g_watched[i].comm == comm) g_watched[i].initializing = 0;
  pthread_mutex_unlock(&g_lock);
}

/* Before a communicator is aborted or destroyed: the watchdog never sees it again. */
static void watch_remove(ncclComm_t comm) {
  pthread_mutex_lock(&g_lock);
  for (int i = 0; i < g_nwatched; ++i)
    if (g_watched[i].comm == comm) {
      g_watched[i] = g_watched[--g_nwatched];
      break;
    }
  pthread_mutex_unlock(&g_lock);
}

/* An abort asked of the watchdog, as ProcessGroupNCCL's watchdog aborts a timed-out group
 * while the training thread goes on with the others: 0 none, 1 asked, 2 done (its result in
 * g_abort_result). */
static ncclComm_t g_abort_comm;
static int g_abort_state;
static ncclResult_t g_abort_result;

static void abort_from_watchdog(ncclComm_t comm) {
  pthread_mutex_lock(&g_lock);
  g_abort_comm = comm;
  g_abort_state = 1;
  pthread_mutex_unlock(&g_lock);
}

/* Waits (at most WAIT_S) for the watchdog's abort; its result, or ncclInternalError. */
static ncclResult_t abort_result(void) {
  const double deadline = now_s() + WAIT_S;
  for (;;) {
    pthread_mutex_lock(&g_lock);
    const int state = g_abort_state;
    const ncclResult_t result = g_abort_result;
    pthread_mutex_unlock(&g_lock);
    if (state == 2) return result;
    if (now_s() > deadline) return ncclInternalError;
    sleep_ms(1);
  }
}

static void* watchdog(void* unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&g_lock);
    if (g_watch_stop) {
      pthread_mutex_unlock(&g_lock);
      return NULL;
    }
    if (g_abort_state == 1) {
      ncclComm_t doomed = g_abort_comm;
      for (int i = 0; i < g_nwatched; ++i)
        if (g_watched[i].comm == doomed) {
          g_watched[i] = g_watched[--g_nwatched];
          break;
        }
      pthread_mutex_unlock(&g_lock); /* the main thread goes on meanwhile */
      const ncclResult_t result = ncclCommAbort(doomed);
      pthread_mutex_lock(&g_lock);
      g_abort_result = result;
      g_abort_state = 2;
    }
    for (int i = 0; i < g_nwatched; ++i) {
      ncclResult_t async = ncclInternalError;
      ncclResult_t result = ncclCommGetAsyncError(g_watched[i].comm, &async);
      ++g_watch_polls;
      int fine =
          result == ncclSuccess && (async == ncclSuccess || (async == ncclInProgress && g_watched[i].initializing));
      if (!fine && ++g_watch_bad <= 5)
        fprintf(stderr, "rank %d: FAILED: watchdog: ncclCommGetAsyncError(%s) returned %s, async error %s: %s\n",
                g_rank, g_watched[i].name, ncclGetErrorString(result), ncclGetErrorString(async),
                ncclGetLastError(g_watched[i].comm));
    }
    const double stalled = now_s() - g_step_since;
    if (stalled > g_stall_s) {
      fprintf(stderr,
              "rank %d: FAILED: watchdog: no progress for %.0f s (HETCCL_REPLAY_STALL_S) in: %s; "
              "giving up the job\n",
              g_rank, stalled, g_step);
      fflush(stderr);
      _exit(1);
    }
    pthread_mutex_unlock(&g_lock);
    sleep_ms(1);
  }
}

/* Polls until the communicator's state is no longer ncclInProgress (at most WAIT_S). */
static ncclResult_t wait_in_progress(ncclComm_t comm, const char* what) {
  const double deadline = now_s() + WAIT_S;
  for (;;) {
    ncclResult_t async = ncclInternalError;
    ncclResult_t result = ncclCommGetAsyncError(comm, &async);
    if (result != ncclSuccess) return result;
    if (async != ncclInProgress) return async;
    if (now_s() > deadline) {
      check(0, "%s still ncclInProgress after %.0f s", what, WAIT_S);
      return ncclInProgress;
    }
    sleep_ms(1);
  }
}

/* ------------------------------------------------------------------ the file store */

static void store_path(char* path, size_t size, const char* name) { snprintf(path, size, "%s/%s.id", g_store, name); }

static int store_put(const char* name, const ncclUniqueId* id) {
  char path[4096], temp[4096];
  store_path(path, sizeof path, name);
  snprintf(temp, sizeof temp, "%s/.%s.id.%d.tmp", g_store, name, g_rank);
  FILE* file = fopen(temp, "wb");
  int ok = file != NULL && fwrite(id, 1, sizeof *id, file) == sizeof *id;
  if (file != NULL && fclose(file) != 0) ok = 0;
  if (ok && rename(temp, path) != 0) ok = 0;
  return check(ok, "file store: cannot write %s (through %s): %s", path, temp, strerror(errno));
}

static int store_get(const char* name, int maker, ncclUniqueId* id) {
  char path[4096];
  store_path(path, sizeof path, name);
  const double deadline = now_s() + WAIT_S;
  for (;;) {
    FILE* file = fopen(path, "rb");
    if (file != NULL) {
      const size_t got = fread(id, 1, sizeof *id, file);
      fclose(file);
      if (got == sizeof *id) return check(1, "store");
      return check(0, "file store: %s holds %zu bytes, not an id of %zu", path, got, sizeof *id);
    }
    if (errno != ENOENT) return check(0, "file store: cannot read %s: %s", path, strerror(errno));
    if (now_s() > deadline)
      return check(0,
                   "file store: gave up after %.0f s waiting for %s (the id of group %s, which world rank %d "
                   "makes when it first uses the group)",
                   WAIT_S, path, name, maker);
    sleep_ms(1);
  }
}

/* ------------------------------------------------------------------ groups */

enum { UNMADE, LIVE, ABORTED, DESTROYED };

typedef struct {
  char name[48];
  int n, members[MAX_RANKS]; /* world ranks, ascending */
  int me;                    /* this rank's rank in the group */
  int nonblocking;           /* made with config.blocking = 0 */
  int id_over_mpi;           /* REPLAY_USES_MPI: id by MPI_Bcast over g_mpi_tp */
  int state;
  ncclComm_t comm;
} Group;

static Group* g_made[MAX_COMMS]; /* in creation order */
static int g_nmade;

/* ncclCommCuDevice: NCCL answers the CUDA device the communicator uses.  The drop-in chooses
 * hetccl's device itself and today refuses the call (ncclInvalidUsage); either is accepted, as
 * long as every communicator of a rank answers alike (one process drives one device). */
static int g_cudev_asked, g_cudev_device = -1;
static ncclResult_t g_cudev_result;

static void group_set(Group* g, const char* name, int n, const int* members) {
  memset(g, 0, sizeof *g);
  snprintf(g->name, sizeof g->name, "%s", name);
  g->n = n;
  g->me = -1;
  for (int i = 0; i < n; ++i) {
    g->members[i] = members[i];
    if (members[i] == g_rank) g->me = i;
  }
}

static void fatal_exit(void);

static void after_creation(Group* g) {
  int count = -1, rank = -1;
  check_result(ncclCommCount(g->comm, &count), g->comm, "ncclCommCount(%s)", g->name);
  check_result(ncclCommUserRank(g->comm, &rank), g->comm, "ncclCommUserRank(%s)", g->name);
  check(count == g->n && rank == g->me, "%s: ncclCommCount %d and ncclCommUserRank %d, expected %d and %d", g->name,
        count, rank, g->n, g->me);
  int device = -1;
  const ncclResult_t result = ncclCommCuDevice(g->comm, &device);
  if (!g_cudev_asked) {
    g_cudev_asked = 1;
    g_cudev_result = result;
    g_cudev_device = device;
    if (g_rank == 0) {
      if (result == ncclSuccess)
        printf("rank 0: ncclCommCuDevice(%s) reports device %d\n", g->name, device);
      else
        printf("rank 0: ncclCommCuDevice(%s) returned %s: %s\n", g->name, ncclGetErrorString(result),
               ncclGetLastError(g->comm));
    }
  }
  check(result == g_cudev_result && (result != ncclSuccess || device == g_cudev_device),
        "ncclCommCuDevice(%s) returned %s (device %d), the first communicator %s (device %d)", g->name,
        ncclGetErrorString(result), device, ncclGetErrorString(g_cudev_result), g_cudev_device);
  if (g_nmade < MAX_COMMS) g_made[g_nmade++] = g;
}

static int group_id(Group* g, ncclUniqueId* id) {
#if REPLAY_USES_MPI
  if (g->id_over_mpi) {
    int size = -1, rank = -1;
    MPI_Comm_size(g_mpi_tp, &size);
    MPI_Comm_rank(g_mpi_tp, &rank);
    if (!check(size == g->n && rank == g->me, "%s: the MPI communicator has rank %d of %d, the group %d of %d", g->name,
               rank, size, g->me, g->n))
      return 0;
    if (g->me == 0 && !check_result(ncclGetUniqueId(id), NULL, "ncclGetUniqueId(%s)", g->name)) return 0;
    return check(MPI_Bcast(id, (int)sizeof *id, MPI_BYTE, 0, g_mpi_tp) == MPI_SUCCESS, "MPI_Bcast of %s's id", g->name);
  }
#endif
  if (g->members[0] == g_rank)
    return check_result(ncclGetUniqueId(id), NULL, "ncclGetUniqueId(%s)", g->name) && store_put(g->name, id);
  return store_get(g->name, g->members[0], id);
}

/* The group's communicator, made at its first use.  A creation that fails ends the replay: the
 * order of the rest means nothing without it. */
static ncclComm_t group_comm(Group* g) {
  if (g->state == LIVE) return g->comm;
  if (g->state != UNMADE) {
    check(0, "%s used after its communicator was aborted or destroyed", g->name);
    return NULL;
  }
  ncclUniqueId id;
  step("getting the id of %s", g->name);
  if (!group_id(g, &id)) fatal_exit();
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  if (g->nonblocking) config.blocking = 0;
  step("creating %s (rank %d of %d, world rank %d first)", g->name, g->me, g->n, g->members[0]);
  ncclResult_t result = ncclCommInitRankConfig(&g->comm, g->n, id, g->me, &config);
  if (g->nonblocking && g_rank == 0)
    printf("rank 0: ncclCommInitRankConfig(%s, non-blocking) returned %s\n", g->name, ncclGetErrorString(result));
  if (g->nonblocking && (result == ncclSuccess || result == ncclInProgress) && g->comm != NULL) {
    watch_add(g->comm, g->name, 1);
    if (result == ncclInProgress) result = wait_in_progress(g->comm, g->name);
    if (result == ncclSuccess) watch_ready(g->comm);
  } else if (result == ncclSuccess && g->comm != NULL) {
    watch_add(g->comm, g->name, 0);
  }
  if (!check_result(result, g->comm, "ncclCommInitRankConfig(%s, %s)", g->name,
                    g->nonblocking ? "non-blocking" : "blocking") ||
      !check(g->comm != NULL, "ncclCommInitRankConfig(%s) gave no communicator", g->name))
    fatal_exit();
  g->state = LIVE;
  after_creation(g);
  return g->comm;
}

/* What a call on g returned, after waiting out ncclInProgress on a non-blocking communicator. */
static int finish(Group* g, ncclResult_t result, const char* what) {
  if (result == ncclInProgress && g->nonblocking) result = wait_in_progress(g->comm, what);
  return check_result(result, g->comm, "%s on %s", what, g->name);
}

/* ------------------------------------------------------------------ buffers */

static size_t g_bytes;
static void *g_dsend, *g_drecv;       /* ncclMemAlloc */
static void *g_hin, *g_hout, *g_hexp; /* host */

static void to_device(void* device, const void* host, size_t bytes) {
  if (!g_staged) {
    memcpy(device, host, bytes);
    return;
  }
  ncclResult_t result = ncclBroadcast(host, device, bytes, ncclUint8, 0, g_self, NULL);
  if (result != ncclSuccess) check_result(result, g_self, "--staged: ncclBroadcast into ncclMemAlloc memory");
}

static void from_device(void* host, const void* device, size_t bytes) {
  if (!g_staged) {
    memcpy(host, device, bytes);
    return;
  }
  ncclResult_t result = ncclBroadcast(device, host, bytes, ncclUint8, 0, g_self, NULL);
  if (result != ncclSuccess) check_result(result, g_self, "--staged: ncclBroadcast out of ncclMemAlloc memory");
}

static void poison(void* device, size_t bytes) {
  memset(g_hout, 0xa5, bytes);
  to_device(device, g_hout, bytes);
}

/* Reads `count` results from `device` and compares them bit for bit with g_hexp. */
static void check_result_data(const void* device, size_t count, int is_float, const char* what, const Group* g) {
  const size_t bytes = count * 4;
  from_device(g_hout, device, bytes);
  if (memcmp(g_hout, g_hexp, bytes) == 0) {
    check(1, "data");
    return;
  }
  size_t i = 0;
  while (memcmp((char*)g_hout + 4 * i, (char*)g_hexp + 4 * i, 4) == 0) ++i;
  if (is_float)
    check(0, "%s on %s: element %zu is %.9g, expected %.9g", what, g->name, i, (double)((float*)g_hout)[i],
          (double)((float*)g_hexp)[i]);
  else
    check(0, "%s on %s: element %zu is %d, expected %d", what, g->name, i, (int)((int32_t*)g_hout)[i],
          (int)((int32_t*)g_hexp)[i]);
}

/* ------------------------------------------------------------------ collectives */

static float float_value(int world_rank, size_t i, int salt) {
  return (float)((world_rank + 1) * (int)(1 + (i + (size_t)salt) % 7) + (int)(i % 13));
}
static int32_t int_value(int world_rank, size_t i, int salt) {
  return (int32_t)(world_rank * 100003 - (int)i * 7 + salt * 11);
}

/* Float sum out of place and int32 sum in place, as gradients and loss counters are. */
static void do_allreduce(Group* g, int salt) {
  ncclComm_t comm = group_comm(g);
  if (comm == NULL) return;
  float* in = g_hin;
  float* expected = g_hexp;
  for (size_t i = 0; i < COUNT; ++i) {
    in[i] = float_value(g_rank, i, salt);
    expected[i] = 0.0f;
    for (int m = 0; m < g->n; ++m) expected[i] += float_value(g->members[m], i, salt);
  }
  to_device(g_dsend, in, COUNT * sizeof(float));
  poison(g_drecv, COUNT * sizeof(float));
  step("float all-reduce on %s", g->name);
  if (finish(g, ncclAllReduce(g_dsend, g_drecv, COUNT, ncclFloat, ncclSum, comm, NULL), "ncclAllReduce(float sum)"))
    check_result_data(g_drecv, COUNT, 1, "all-reduce float sum", g);

  int32_t* iin = g_hin;
  int32_t* iexpected = g_hexp;
  for (size_t i = 0; i < COUNT; ++i) {
    iin[i] = int_value(g_rank, i, salt);
    iexpected[i] = 0;
    for (int m = 0; m < g->n; ++m) iexpected[i] += int_value(g->members[m], i, salt);
  }
  to_device(g_dsend, iin, COUNT * sizeof(int32_t));
  step("int32 all-reduce on %s", g->name);
  if (finish(g, ncclAllReduce(g_dsend, g_dsend, COUNT, ncclInt32, ncclSum, comm, NULL),
             "ncclAllReduce(int32 sum, in place)"))
    check_result_data(g_dsend, COUNT, 0, "all-reduce int32 sum in place", g);
}

/* Broadcast (parameters from the group's last rank), all-gather, reduce-scatter (ZeRO, sequence
 * parallelism). */
static void do_broadcast_gather_scatter(Group* g) {
  ncclComm_t comm = group_comm(g);
  if (comm == NULL) return;
  const int root = g->n - 1;
  float* in = g_hin;
  float* expected = g_hexp;
  for (size_t i = 0; i < COUNT; ++i) {
    in[i] = g->me == root ? (float)(g_rank * 4096 + (int)i) : -1.0f;
    expected[i] = (float)(g->members[root] * 4096 + (int)i);
  }
  to_device(g_dsend, in, COUNT * sizeof(float));
  poison(g_drecv, COUNT * sizeof(float));
  step("broadcast on %s", g->name);
  if (finish(g, ncclBroadcast(g_dsend, g_drecv, COUNT, ncclFloat, root, comm, NULL), "ncclBroadcast(float)"))
    check_result_data(g_drecv, COUNT, 1, "broadcast from the last rank", g);

  int32_t* iin = g_hin;
  int32_t* iexpected = g_hexp;
  for (size_t i = 0; i < COUNT; ++i) iin[i] = g_rank * 100000 + (int32_t)i;
  for (int m = 0; m < g->n; ++m)
    for (size_t i = 0; i < COUNT; ++i) iexpected[(size_t)m * COUNT + i] = g->members[m] * 100000 + (int32_t)i;
  to_device(g_dsend, iin, COUNT * sizeof(int32_t));
  poison(g_drecv, (size_t)g->n * COUNT * sizeof(int32_t));
  step("all-gather on %s", g->name);
  if (finish(g, ncclAllGather(g_dsend, g_drecv, COUNT, ncclInt32, comm, NULL), "ncclAllGather(int32)"))
    check_result_data(g_drecv, (size_t)g->n * COUNT, 0, "all-gather int32", g);

  for (size_t j = 0; j < (size_t)g->n * COUNT; ++j) in[j] = (float)((g_rank + 1) * (int)(j % 5) + (int)(j % 3));
  for (size_t i = 0; i < COUNT; ++i) {
    const size_t j = (size_t)g->me * COUNT + i;
    expected[i] = 0.0f;
    for (int m = 0; m < g->n; ++m) expected[i] += (float)((g->members[m] + 1) * (int)(j % 5) + (int)(j % 3));
  }
  to_device(g_dsend, in, (size_t)g->n * COUNT * sizeof(float));
  poison(g_drecv, COUNT * sizeof(float));
  step("reduce-scatter on %s", g->name);
  if (finish(g, ncclReduceScatter(g_dsend, g_drecv, COUNT, ncclFloat, ncclSum, comm, NULL),
             "ncclReduceScatter(float sum)"))
    check_result_data(g_drecv, COUNT, 1, "reduce-scatter float sum", g);
}

/* ncclCommRegister of the send buffer, a collective from it, ncclCommDeregister. */
static void do_registered_allreduce(Group* g, int salt) {
  ncclComm_t comm = group_comm(g);
  if (comm == NULL) return;
  void* handle = NULL;
  if (!check_result(ncclCommRegister(comm, g_dsend, g_bytes, &handle), comm, "ncclCommRegister(%s)", g->name)) return;
  check(handle != NULL, "ncclCommRegister(%s) gave no handle", g->name);
  do_allreduce(g, salt);
  check_result(ncclCommDeregister(comm, handle), comm, "ncclCommDeregister(%s)", g->name);
}

/* A pipeline stage hands activations forward and gradients back: both ways in one group. */
static void do_pair_exchange(Group* g) {
  ncclComm_t comm = group_comm(g);
  if (comm == NULL) return;
  const int peer = 1 - g->me;
  int32_t* in = g_hin;
  int32_t* expected = g_hexp;
  for (size_t i = 0; i < COUNT; ++i) {
    in[i] = g_rank * 1000000 + (int32_t)i * 3;
    expected[i] = g->members[peer] * 1000000 + (int32_t)i * 3;
  }
  to_device(g_dsend, in, COUNT * sizeof(int32_t));
  poison(g_drecv, COUNT * sizeof(int32_t));
  step("send/recv on %s", g->name);
  ncclResult_t result = ncclGroupStart();
  if (result == ncclSuccess) result = ncclSend(g_dsend, COUNT, ncclInt32, peer, comm, NULL);
  if (result == ncclSuccess) result = ncclRecv(g_drecv, COUNT, ncclInt32, peer, comm, NULL);
  ncclResult_t ended = ncclGroupEnd();
  if (result == ncclSuccess) result = ended;
  if (finish(g, result, "ncclGroupStart/ncclSend/ncclRecv/ncclGroupEnd"))
    check_result_data(g_drecv, COUNT, 0, "send/recv both ways", g);
}

/* Gradient averaging as a pre-multiplied sum: 0.5 * x summed, on even integers (exact). */
static void do_premulsum(Group* g) {
  ncclComm_t comm = group_comm(g);
  if (comm == NULL) return;
  ncclRedOp_t op;
  float scalar = 0.5f;
  if (!check_result(ncclRedOpCreatePreMulSum(&op, &scalar, ncclFloat, ncclScalarHostImmediate, comm), comm,
                    "ncclRedOpCreatePreMulSum(0.5, float, host immediate) on %s", g->name))
    return;
  float* in = g_hin;
  float* expected = g_hexp;
  for (size_t i = 0; i < COUNT; ++i) {
    in[i] = (float)(2 * (g_rank + 1 + (int)(i % 5)));
    expected[i] = 0.0f;
    for (int m = 0; m < g->n; ++m) expected[i] += (float)(g->members[m] + 1 + (int)(i % 5));
  }
  scalar = -7.0f; /* host immediate: the value was taken at creation */
  to_device(g_dsend, in, COUNT * sizeof(float));
  poison(g_drecv, COUNT * sizeof(float));
  step("PreMulSum all-reduce on %s", g->name);
  if (finish(g, ncclAllReduce(g_dsend, g_drecv, COUNT, ncclFloat, op, comm, NULL), "ncclAllReduce(PreMulSum 0.5)"))
    check_result_data(g_drecv, COUNT, 1, "all-reduce PreMulSum 0.5", g);
  check_result(ncclRedOpDestroy(op, comm), comm, "ncclRedOpDestroy on %s", g->name);
}

/* ------------------------------------------------------------------ start and end */

static pthread_t g_watchdog;
static int g_watchdog_running;

static void stop_watchdog(void) {
  if (!g_watchdog_running) return;
  pthread_mutex_lock(&g_lock);
  g_watch_stop = 1;
  pthread_mutex_unlock(&g_lock);
  pthread_join(g_watchdog, NULL);
  g_watchdog_running = 0;
}

static int summary(void) {
  if (g_failed == 0)
    printf("rank %d: %d checks passed\n", g_rank, g_passed);
  else
    printf("rank %d: %d checks passed, %d FAILED\n", g_rank, g_passed, g_failed);
  fflush(stdout);
  return g_failed == 0 ? 0 : 1;
}

/* The replay cannot go on (a group without a communicator): stop here, failing the job. */
static void fatal_exit(void) {
  stop_watchdog();
  fprintf(stderr, "rank %d: FAILED: giving up the replay at: %s\n", g_rank, g_step);
  summary();
  fflush(stderr);
#if REPLAY_USES_MPI
  MPI_Abort(MPI_COMM_WORLD, 1);
#endif
  _exit(1);
}

static int env_int(const char* name, int* value) {
  const char* text = getenv(name);
  if (text == NULL || *text == '\0') return 0;
  char* end = NULL;
  errno = 0;
  long parsed = strtol(text, &end, 10);
  if (*end != '\0' || errno != 0 || parsed < 0 || parsed > INT_MAX) {
    fprintf(stderr, "framework_replay: %s=%s is not a count\n", name, text);
    exit(2);
  }
  *value = (int)parsed;
  return 1;
}

static void launcher_rank_and_size(void) {
  int rank = -1, size = -1;
  const char* from = NULL;
  if (env_int("OMPI_COMM_WORLD_RANK", &rank) && env_int("OMPI_COMM_WORLD_SIZE", &size)) {
    from = "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE";
  } else if (env_int("PMIX_RANK", &rank)) {
    from = "PMIX_RANK";
    if (!env_int("HETCCL_REPLAY_WORLD_SIZE", &size) && !env_int("SLURM_NTASKS", &size)) {
      fprintf(stderr,
              "framework_replay: PMIX_RANK=%d but no world size: PMIx puts none in the environment; set "
              "HETCCL_REPLAY_WORLD_SIZE (or run under Slurm, which sets SLURM_NTASKS)\n",
              rank);
      exit(2);
    }
  } else if (env_int("SLURM_PROCID", &rank) && env_int("SLURM_NTASKS", &size)) {
    from = "SLURM_PROCID/SLURM_NTASKS";
  } else if (env_int("PMI_RANK", &rank) && env_int("PMI_SIZE", &size)) {
    from = "PMI_RANK/PMI_SIZE";
  } else {
    fprintf(stderr,
            "framework_replay: no rank and size from a launcher: start it with mpirun (OMPI_COMM_WORLD_RANK/"
            "OMPI_COMM_WORLD_SIZE), a PMIx launcher (PMIX_RANK, with HETCCL_REPLAY_WORLD_SIZE or SLURM_NTASKS), "
            "srun (SLURM_PROCID/SLURM_NTASKS) or a PMI launcher (PMI_RANK/PMI_SIZE)\n");
    exit(2);
  }
  if (size < 4 || size % 4 != 0 || size > MAX_RANKS || rank >= size) {
    fprintf(stderr, "framework_replay: rank %d of %d (from %s): the world must be 4..%d ranks, a multiple of 4\n", rank,
            size, from, MAX_RANKS);
    exit(2);
  }
  g_rank = rank;
  g_size = size;
}

#if REPLAY_USES_MPI
/* What the program's own receive got must be its own last message, from the previous rank. */
static void check_own_message(const MPI_Status* status, const char* when) {
  const int previous = (g_rank + g_size - 1) % g_size;
  int count = -1;
  MPI_Get_count(status, MPI_INT, &count);
  check(status->MPI_SOURCE == previous && status->MPI_TAG == MPI_REPLAY_TAG && count == 4 &&
            g_own_message[0] == MPI_REPLAY_MAGIC && g_own_message[1] == previous && g_own_message[2] == g_size &&
            g_own_message[3] == MPI_REPLAY_TAG,
        "%s: the program's MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD) got %d ints from rank %d with tag "
        "%d ({%#x, %d, %d, %d}): not the program's own message (from rank %d, tag %d)",
        when, count, status->MPI_SOURCE, status->MPI_TAG, (unsigned)g_own_message[0], g_own_message[1],
        g_own_message[2], g_own_message[3], previous, MPI_REPLAY_TAG);
}

/* The program's own receive may have completed only with its own message (the previous rank
 * sends it when it has finished, which may be before this rank has). */
static void mpi_guard(const char* where) {
  if (g_own_recv_done) return;
  int done = 0;
  MPI_Status status;
  MPI_Test(&g_own_recv, &done, &status);
  if (done) {
    g_own_recv_done = 1;
    check_own_message(&status, where);
  } else {
    check(1, "guard");
  }
}
#else
static void mpi_guard(const char* where) { (void)where; }
#endif

/* ------------------------------------------------------------------ the replay */

int main(int argc, char** argv) {
#if REPLAY_USES_MPI
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#endif
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--staged") == 0) {
      g_staged = 1;
    } else if (strcmp(argv[i], "--lockstep") == 0) {
      g_lockstep = 1;
    } else {
      fprintf(stderr, "usage: %s [--staged] [--lockstep]  (see the comment at the top of framework_replay.c)\n",
              argv[0]);
      return 2;
    }
  }
  launcher_rank_and_size();
  g_store = getenv("HETCCL_REPLAY_STORE");
  if (g_store == NULL || *g_store == '\0') {
    fprintf(stderr, "rank %d: HETCCL_REPLAY_STORE (the file store's directory, empty at the start) is not set\n",
            g_rank);
    return 2;
  }
  int stall = 0;
  if (env_int("HETCCL_REPLAY_STALL_S", &stall) && stall > 0) g_stall_s = stall;

  const int W = g_size, half = W / 2, first_half = g_rank < half;
  const int in_order = first_half || g_lockstep; /* the first half's order */
  if (g_rank == 0)
    printf("framework_replay: %d ranks, store %s, %s order, buffers %s%s\n", W, g_store,
           g_lockstep ? "lockstep" : "rank-dependent",
           g_staged ? "staged through a one-rank communicator" : "read directly",
           REPLAY_USES_MPI ? ", the program using MPI too" : "");

#if REPLAY_USES_MPI
  check(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d, not MPI_THREAD_MULTIPLE", provided);
  int mpi_rank = -1, mpi_size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  check(mpi_rank == g_rank && mpi_size == g_size, "MPI says rank %d of %d, the launcher rank %d of %d", mpi_rank,
        mpi_size, g_rank, g_size);
  check(MPI_Comm_split(MPI_COMM_WORLD, g_rank / 2, g_rank, &g_mpi_tp) == MPI_SUCCESS, "MPI_Comm_split");
  MPI_Irecv(g_own_message, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &g_own_recv);
#endif

  int version = 0;
  check_result(ncclGetVersion(&version), NULL, "ncclGetVersion");
  check(version == NCCL_VERSION_CODE, "ncclGetVersion reports %d, the header %d", version, NCCL_VERSION_CODE);

  g_step_since = now_s();
  if (pthread_create(&g_watchdog, NULL, watchdog, NULL) != 0) {
    fprintf(stderr, "rank %d: cannot start the watchdog thread\n", g_rank);
    return 1;
  }
  g_watchdog_running = 1;

  if (g_staged &&
      (!check_result(ncclCommInitAll(&g_self, 1, NULL), NULL, "--staged: ncclCommInitAll(1 device)") || !g_self))
    fatal_exit();
  g_bytes = (size_t)W * COUNT * sizeof(double);
  g_hin = malloc(g_bytes);
  g_hout = malloc(g_bytes);
  g_hexp = malloc(g_bytes);
  check_result(ncclMemAlloc(&g_dsend, g_bytes), NULL, "ncclMemAlloc");
  check_result(ncclMemAlloc(&g_drecv, g_bytes), NULL, "ncclMemAlloc");
  if (!g_hin || !g_hout || !g_hexp || !g_dsend || !g_drecv) fatal_exit();

  /* The groups this rank belongs to. */
  int m[MAX_RANKS];
  char name[48];
  Group issue_a, issue_b, tp, dp, pp, pair, world, split;
  m[0] = g_rank & ~1;
  m[1] = m[0] + 1;
  snprintf(name, sizeof name, "issue-a-%d", g_rank / 2);
  group_set(&issue_a, name, 2, m);
  m[0] = (g_rank / 4) * 4 + g_rank % 2;
  m[1] = m[0] + 2;
  snprintf(name, sizeof name, "issue-b-%d-%d", g_rank / 4, g_rank % 2);
  group_set(&issue_b, name, 2, m);

  m[0] = g_rank & ~1;
  m[1] = m[0] + 1;
  snprintf(name, sizeof name, "tp-%d", g_rank / 2);
  group_set(&tp, name, 2, m);
  tp.id_over_mpi = REPLAY_USES_MPI;
  m[0] = g_rank % half;
  m[1] = m[0] + half;
  snprintf(name, sizeof name, "pp-%d", g_rank % half);
  group_set(&pp, name, 2, m);
  pp.nonblocking = 1;
  snprintf(name, sizeof name, "pp-pair-%d", g_rank % half);
  group_set(&pair, name, 2, m);
  if (W == 4) { /* one rank per DP group by Megatron's rule: the pairs with the same TP rank */
    m[0] = g_rank % 2;
    m[1] = m[0] + 2;
    snprintf(name, sizeof name, "dp-%d", g_rank % 2);
    group_set(&dp, name, 2, m);
  } else {
    const int stage = g_rank / half;
    for (int k = 0; k < W / 4; ++k) m[k] = stage * half + g_rank % 2 + 2 * k;
    snprintf(name, sizeof name, "dp-%d-%d", stage, g_rank % 2);
    group_set(&dp, name, W / 4, m);
  }
  for (int r = 0; r < W; ++r) m[r] = r;
  group_set(&world, "world", W, m);

  /* 1. The issue's example. */
  if (in_order) {
    do_allreduce(&issue_a, 1);
    do_allreduce(&issue_b, 2);
  } else {
    do_allreduce(&issue_b, 2);
    do_allreduce(&issue_a, 1);
  }
  mpi_guard("after the issue's pairs");

  /* 2. Megatron's groups (order: see the comment at the top). */
  Group* order[3];
  if (in_order) {
    order[0] = &tp, order[1] = &dp, order[2] = &pp;
  } else if (W == 4) {
    order[0] = &dp, order[1] = &pp, order[2] = &tp;
  } else {
    order[0] = &pp, order[1] = &dp, order[2] = &tp;
  }
  for (int k = 0; k < 3; ++k) {
    Group* g = order[k];
    do_allreduce(g, g == &tp ? 10 : g == &dp ? 11 : 12); /* the salt by group: every member alike */
    if (g == &tp) {
      do_broadcast_gather_scatter(g);
      do_registered_allreduce(g, 20);
    }
  }
  mpi_guard("after the Megatron groups");

  /* 3. Point-to-point pair communicators. */
  do_pair_exchange(&pair);
  mpi_guard("after the point-to-point pairs");

  /* 4. The world, a split of it, a PreMulSum op on it. */
  do_allreduce(&world, 30);
  ncclComm_t world_comm = group_comm(&world);
  for (int r = 0, n = 0; r < W; ++r)
    if (r % 2 == g_rank % 2) m[n++] = r;
  snprintf(name, sizeof name, "world-split-%d", g_rank % 2);
  group_set(&split, name, W / 2, m);
  step("ncclCommSplit(world, color %d, key %d)", g_rank % 2, g_rank);
  if (check_result(ncclCommSplit(world_comm, g_rank % 2, g_rank, &split.comm, NULL), world_comm,
                   "ncclCommSplit(world, color %d, key %d)", g_rank % 2, g_rank) &&
      check(split.comm != NULL, "ncclCommSplit gave no communicator")) {
    split.state = LIVE;
    watch_add(split.comm, split.name, 0);
    after_creation(&split);
    do_allreduce(&split, 31);
  }
  do_premulsum(&world);
  mpi_guard("after the world and its split");

  /* 5. The watchdog thread aborts DP everywhere while the main thread goes on with TP and PP. */
  step("ncclCommAbort(%s) from the watchdog thread", dp.name);
  const int aborting = dp.state == LIVE;
  if (aborting) {
    abort_from_watchdog(dp.comm);
    dp.state = ABORTED;
  }
  if (in_order) {
    do_allreduce(&tp, 40);
    do_allreduce(&pp, 41);
  } else {
    do_allreduce(&pp, 41);
    do_allreduce(&tp, 40);
  }
  if (aborting) check_result(abort_result(), NULL, "ncclCommAbort(%s) on the watchdog thread", dp.name);
  mpi_guard("after the abort");

  /* 6. Destroy: even ranks in creation order, odd ranks in reverse. */
  for (int k = 0; k < g_nmade; ++k) {
    Group* g = g_made[g_rank % 2 == 0 ? k : g_nmade - 1 - k];
    if (g->state != LIVE) continue;
    watch_remove(g->comm);
    step("destroying %s", g->name);
    if (g->nonblocking) { /* as ProcessGroupNCCL: finalize, wait, destroy */
      ncclResult_t result = ncclCommFinalize(g->comm);
      if (result == ncclInProgress) result = wait_in_progress(g->comm, "ncclCommFinalize");
      check_result(result, g->comm, "ncclCommFinalize(%s)", g->name);
    }
    check_result(ncclCommDestroy(g->comm), NULL, "ncclCommDestroy(%s)", g->name);
    g->state = DESTROYED;
  }
  mpi_guard("after the destroys");

  stop_watchdog();
  check(g_watch_polls > 0 && g_watch_bad == 0, "watchdog: %ld of %ld polls of ncclCommGetAsyncError were not fine",
        g_watch_bad, g_watch_polls);

  check_result(ncclMemFree(g_dsend), NULL, "ncclMemFree");
  check_result(ncclMemFree(g_drecv), NULL, "ncclMemFree");
  if (g_self) check_result(ncclCommDestroy(g_self), NULL, "ncclCommDestroy(the --staged one-rank communicator)");
  free(g_hin);
  free(g_hout);
  free(g_hexp);

#if REPLAY_USES_MPI
  /* The program's own message, last: the only one its receive may match. */
  int message[4] = {MPI_REPLAY_MAGIC, g_rank, g_size, MPI_REPLAY_TAG};
  const int next = (g_rank + 1) % g_size;
  MPI_Request sent;
  MPI_Isend(message, 4, MPI_INT, next, MPI_REPLAY_TAG, MPI_COMM_WORLD, &sent);
  MPI_Wait(&sent, MPI_STATUS_IGNORE);
  if (!g_own_recv_done) {
    MPI_Status status;
    MPI_Wait(&g_own_recv, &status);
    check_own_message(&status, "at the end");
  }
  MPI_Comm_free(&g_mpi_tp);
  MPI_Finalize();
#endif
  return summary();
}
