/*
 * How long an NCCL communicator takes to make through the drop-in: ncclGetUniqueId on rank 0,
 * the id broadcast over MPI, ncclCommInitRank on every rank of MPI_COMM_WORLD, timed from a
 * barrier to the slowest rank's return; `--repeats` creations (each destroyed before the
 * next), median, minimum and maximum.  With `--existing K`, K communicators are made first
 * and kept while the timed ones are made (what a creation costs in a job that already has
 * many).  An NCCL program (nccl.h, mpi.h), so it runs against any version of the drop-in:
 *
 *   mpirun -np 4 hetccl-bench-comm-creation --repeats 20 --existing 50
 */
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* A communicator of every rank; the seconds from the barrier until the slowest rank has it. */
static double create(ncclComm_t* comm, int rank, int nranks) {
  ncclUniqueId id;
  if (rank == 0 && ncclGetUniqueId(&id) != ncclSuccess) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (ncclCommInitRank(comm, nranks, id, rank) != ncclSuccess) {
    fprintf(stderr, "rank %d: ncclCommInitRank failed: %s\n", rank, ncclGetLastError(NULL));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double mine = MPI_Wtime() - start, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0, nranks = 1, repeats = 20, existing = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--repeats") == 0) repeats = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--existing") == 0) existing = atoi(argv[i + 1]);
  }
  if (repeats < 1 || existing < 0) {
    if (rank == 0) fprintf(stderr, "usage: %s [--repeats N >= 1] [--existing K >= 0]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  ncclComm_t* kept = calloc((size_t)existing + 1, sizeof *kept);
  double* seconds = calloc((size_t)repeats, sizeof *seconds);
  for (int k = 0; k < existing; ++k) (void)create(&kept[k], rank, nranks);
  ncclComm_t warm;
  (void)create(&warm, rank, nranks); /* the first creation also starts devices and threads */
  ncclCommDestroy(warm);
  for (int r = 0; r < repeats; ++r) {
    ncclComm_t comm;
    seconds[r] = create(&comm, rank, nranks);
    ncclCommDestroy(comm);
  }
  qsort(seconds, (size_t)repeats, sizeof *seconds, compare);
  if (rank == 0)
    printf("ranks %d existing %d repeats %d: median %.3f ms, min %.3f ms, max %.3f ms\n", nranks, existing, repeats,
           1e3 * seconds[repeats / 2], 1e3 * seconds[0], 1e3 * seconds[repeats - 1]);
  for (int k = 0; k < existing; ++k) ncclCommDestroy(kept[k]);
  free(kept);
  free(seconds);
  MPI_Finalize();
  return 0;
}
