#include "perf/mpi_baseline.h"

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "perf/small_floats.h"

namespace hetccl_perf {

namespace {

// The user MPI_Op for one 16-bit float format and one op: widen to float, combine, round
// back to nearest even.  Sum, prod, max, min in the order of RedOp's values.
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float), int OpIndex>
void smallFloatReduce(void* in, void* inout, int* len, MPI_Datatype*) {
  const unsigned char* a = static_cast<const unsigned char*>(in);
  unsigned char* b = static_cast<unsigned char*>(inout);
  for (int i = 0; i < *len; ++i) {
    uint16_t x, y;
    std::memcpy(&x, a + 2 * i, 2);
    std::memcpy(&y, b + 2 * i, 2);
    const float fx = Widen(x), fy = Widen(y);
    float r = 0;
    switch (OpIndex) {
      case 0: r = fx + fy; break;
      case 1: r = fx * fy; break;
      case 2: r = fx > fy ? fx : fy; break;
      default: r = fx < fy ? fx : fy; break;
    }
    const uint16_t out = Narrow(r);
    std::memcpy(b + 2 * i, &out, 2);
  }
}

template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
void createSmallFloatOps(MPI_Op ops[4]) {
  MPI_Op_create(&smallFloatReduce<Widen, Narrow, 0>, 1, &ops[0]);
  MPI_Op_create(&smallFloatReduce<Widen, Narrow, 1>, 1, &ops[1]);
  MPI_Op_create(&smallFloatReduce<Widen, Narrow, 2>, 1, &ops[2]);
  MPI_Op_create(&smallFloatReduce<Widen, Narrow, 3>, 1, &ops[3]);
}

bool fitsInt(size_t count) { return count <= static_cast<size_t>(INT_MAX); }

}  // namespace

MpiBaseline::MpiBaseline(MPI_Comm comm, size_t capacityBytes) : send_(capacityBytes), recv_(capacityBytes) {
  // A private communicator keeps the baseline's messages apart from everything else.
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &nranks_);
  MPI_Type_contiguous(2, MPI_BYTE, &twoBytes_);
  MPI_Type_commit(&twoBytes_);
  createSmallFloatOps<halfBitsToFloat, floatToHalfBits>(halfOps_);
  createSmallFloatOps<bfloat16BitsToFloat, floatToBfloat16Bits>(bfloat16Ops_);
}

MpiBaseline::~MpiBaseline() {
  for (MPI_Op& op : halfOps_) MPI_Op_free(&op);
  for (MPI_Op& op : bfloat16Ops_) MPI_Op_free(&op);
  MPI_Type_free(&twoBytes_);
  MPI_Comm_free(&comm_);
}

MPI_Datatype MpiBaseline::mpiType(DataType type) const {
  switch (type) {
    case DataType::Int8: return MPI_INT8_T;
    case DataType::Uint8: return MPI_UINT8_T;
    case DataType::Int32: return MPI_INT32_T;
    case DataType::Uint32: return MPI_UINT32_T;
    case DataType::Int64: return MPI_INT64_T;
    case DataType::Uint64: return MPI_UINT64_T;
    case DataType::Float32: return MPI_FLOAT;
    case DataType::Float64: return MPI_DOUBLE;
    case DataType::Float16:
    case DataType::Bfloat16: return twoBytes_;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op MpiBaseline::mpiOp(DataType type, RedOp op) const {
  // MPI has no average: the baseline times the sum, which is the same communication.
  const int index = op == RedOp::Avg ? 0 : static_cast<int>(op);
  if (type == DataType::Float16) return halfOps_[index];
  if (type == DataType::Bfloat16) return bfloat16Ops_[index];
  switch (index) {
    case 0: return MPI_SUM;
    case 1: return MPI_PROD;
    case 2: return MPI_MAX;
    default: return MPI_MIN;
  }
}

int MpiBaseline::run(const PatternSpec& spec, const CollectiveShape& shape) {
  const MPI_Datatype t = mpiType(spec.type);
  const int count = static_cast<int>(shape.count);
  void* send = send_.data();
  void* recv = recv_.data();
  switch (spec.collective) {
    case Collective::AllReduce: return MPI_Allreduce(send, recv, count, t, mpiOp(spec.type, spec.op), comm_);
    case Collective::AllGather: return MPI_Allgather(send, count, t, recv, count, t, comm_);
    case Collective::ReduceScatter:
      return MPI_Reduce_scatter_block(send, recv, count, t, mpiOp(spec.type, spec.op), comm_);
    case Collective::Broadcast:
      // MPI's broadcast has one buffer: the root sends from it, the others receive into it.
      return MPI_Bcast(rank_ == spec.root ? send : recv, count, t, spec.root, comm_);
    case Collective::Reduce: return MPI_Reduce(send, recv, count, t, mpiOp(spec.type, spec.op), spec.root, comm_);
    case Collective::AlltoAll: return MPI_Alltoall(send, count, t, recv, count, t, comm_);
    case Collective::SendRecv: {
      const int next = (rank_ + 1) % nranks_;
      const int prev = (rank_ - 1 + nranks_) % nranks_;
      return MPI_Sendrecv(send, count, t, next, 0, recv, count, t, prev, 0, comm_, MPI_STATUS_IGNORE);
    }
  }
  return MPI_ERR_ARG;
}

BaselineMeasurement MpiBaseline::measure(const PatternSpec& spec, const CollectiveShape& shape, int warmupIters,
                                         int iters) {
  BaselineMeasurement m;
  // The whole-buffer counts of allgather/alltoall are count x nranks; check those too.
  if (!fitsInt(shape.sendElements) || !fitsInt(shape.recvElements)) return m;
  // The same values as hetccl gets, so data-dependent arithmetic costs the same.
  fillInput(spec, rank_, shape.sendElements, send_.data());

  int rc = MPI_SUCCESS;
  MPI_Barrier(comm_);
  for (int i = 0; i < warmupIters && rc == MPI_SUCCESS; ++i) rc = run(spec, shape);
  MPI_Barrier(comm_);
  const double start = MPI_Wtime();
  for (int i = 0; i < iters && rc == MPI_SUCCESS; ++i) rc = run(spec, shape);
  const double localUs = (MPI_Wtime() - start) / iters * 1.0e6;
  if (rc != MPI_SUCCESS) {
    // Open MPI's default handler aborts first; this is for MPIs set to return errors.
    std::fprintf(stderr, "hetccl-perf: rank %d: MPI baseline call failed (%d)\n", rank_, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double maxUs = 0;
  MPI_Allreduce(&localUs, &maxUs, 1, MPI_DOUBLE, MPI_MAX, comm_);
  m.measured = true;
  m.timeUs = maxUs;
  m.busbw = makeMeasurement(maxUs, shape.bytes, busBandwidthFactor(spec.collective, nranks_), -1).busbw;
  return m;
}

}  // namespace hetccl_perf
