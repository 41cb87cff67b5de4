/* An out-of-tree C99 program using the installed hetccl: all-reduce of rank-dependent
 * integers, checked against the closed-form sum.  Exit status 0 only if every rank agrees. */
#include <hetccl/hetccl.h>
#include <mpi.h>
#include <stdio.h>

#define COUNT 1000

int main(int argc, char** argv) {
  int rank = 0, size = 1, version = 0, wrong = 0, totalWrong = 0, i;
  hetcclComm_t comm = NULL;
  int host[COUNT];
  void* send = NULL;
  void* recv = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (hetcclGetVersion(&version) != hetcclSuccess || hetcclCommInitMPI(&comm, MPI_COMM_WORLD, NULL) != hetcclSuccess ||
      hetcclMemAlloc(&send, sizeof host) != hetcclSuccess || hetcclMemAlloc(&recv, sizeof host) != hetcclSuccess) {
    fprintf(stderr, "rank %d: set-up failed: %s\n", rank, hetcclGetLastError(comm));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (i = 0; i < COUNT; ++i) host[i] = rank + i;
  hetcclMemcpyToDevice(send, host, sizeof host);
  if (hetcclAllReduce(send, recv, COUNT, hetcclInt32, hetcclSum, comm, NULL) != hetcclSuccess) {
    fprintf(stderr, "rank %d: all-reduce failed: %s\n", rank, hetcclGetLastError(comm));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  hetcclMemcpyFromDevice(host, recv, sizeof host);
  for (i = 0; i < COUNT; ++i)
    if (host[i] != size * i + size * (size - 1) / 2) ++wrong;
  MPI_Allreduce(&wrong, &totalWrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("hetccl %d: all-reduce on %d ranks, %d wrong\n", version, size, totalWrong);
  hetcclMemFree(send);
  hetcclMemFree(recv);
  hetcclCommDestroy(comm);
  MPI_Finalize();
  return totalWrong == 0 ? 0 : 1;
}
