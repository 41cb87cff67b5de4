// The MPI baseline: the same collective done by the MPI library itself (MPI_Allreduce,
// MPI_Allgather, MPI_Reduce_scatter_block, MPI_Bcast, MPI_Reduce, MPI_Alltoall, an
// MPI_Sendrecv ring), timed exactly as hetccl is, so "is hetccl worth it here?" has a number.
// MPI runs on host buffers of the same size: an MPI that is not GPU-aware cannot take device
// pointers, and on the host device the two are the same kind of memory anyway.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "perf/collective_shape.h"
#include "perf/expected_values.h"
#include "perf/report.h"

namespace hetccl_perf {

class MpiBaseline {
 public:
  // Collective over `comm`; buffers of `capacityBytes` each.
  MpiBaseline(MPI_Comm comm, size_t capacityBytes);
  ~MpiBaseline();
  MpiBaseline(const MpiBaseline&) = delete;
  MpiBaseline& operator=(const MpiBaseline&) = delete;

  // Out of place only.  Not measured when a count does not fit MPI's int.
  BaselineMeasurement measure(const PatternSpec& spec, const CollectiveShape& shape, int warmupIters, int iters);

 private:
  MPI_Datatype mpiType(DataType type) const;
  MPI_Op mpiOp(DataType type, RedOp op) const;
  int run(const PatternSpec& spec, const CollectiveShape& shape);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int nranks_ = 1;
  // MPI has no 16-bit floating-point type: a 2-byte contiguous type with the app's own ops.
  MPI_Datatype twoBytes_ = MPI_DATATYPE_NULL;
  MPI_Op halfOps_[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  MPI_Op bfloat16Ops_[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  std::vector<unsigned char> send_;
  std::vector<unsigned char> recv_;
};

}  // namespace hetccl_perf
