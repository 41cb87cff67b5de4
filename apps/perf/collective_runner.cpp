#include "perf/collective_runner.h"

namespace hetccl_perf {

// The app's enums mirror the API's so conversion is a cast; these keep that true.
static_assert(static_cast<int>(DataType::Int8) == hetcclInt8, "type values");
static_assert(static_cast<int>(DataType::Uint8) == hetcclUint8, "type values");
static_assert(static_cast<int>(DataType::Int32) == hetcclInt32, "type values");
static_assert(static_cast<int>(DataType::Uint32) == hetcclUint32, "type values");
static_assert(static_cast<int>(DataType::Int64) == hetcclInt64, "type values");
static_assert(static_cast<int>(DataType::Uint64) == hetcclUint64, "type values");
static_assert(static_cast<int>(DataType::Float16) == hetcclFloat16, "type values");
static_assert(static_cast<int>(DataType::Float32) == hetcclFloat32, "type values");
static_assert(static_cast<int>(DataType::Float64) == hetcclFloat64, "type values");
static_assert(static_cast<int>(DataType::Bfloat16) == hetcclBfloat16, "type values");
static_assert(static_cast<int>(RedOp::Sum) == hetcclSum, "op values");
static_assert(static_cast<int>(RedOp::Prod) == hetcclProd, "op values");
static_assert(static_cast<int>(RedOp::Max) == hetcclMax, "op values");
static_assert(static_cast<int>(RedOp::Min) == hetcclMin, "op values");
static_assert(static_cast<int>(RedOp::Avg) == hetcclAvg, "op values");

hetcclDataType_t toHetcclType(DataType type) { return static_cast<hetcclDataType_t>(type); }
hetcclRedOp_t toHetcclOp(RedOp op) { return static_cast<hetcclRedOp_t>(op); }

namespace {

hetcclResult_t runSendRecvRing(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t type,
                               const CallContext& ctx) {
  const int next = (ctx.rank + 1) % ctx.nranks;
  const int prev = (ctx.rank - 1 + ctx.nranks) % ctx.nranks;
  hetcclResult_t result = hetcclGroupStart();
  if (result != hetcclSuccess) return result;
  // A group must be closed even when a call inside it failed, or later calls would be
  // swallowed by the still-open group; the first error is the one reported.
  result = hetcclSend(sendbuff, count, type, next, ctx.comm, ctx.stream);
  if (result == hetcclSuccess) result = hetcclRecv(recvbuff, count, type, prev, ctx.comm, ctx.stream);
  hetcclResult_t endResult = hetcclGroupEnd();
  return result != hetcclSuccess ? result : endResult;
}

}  // namespace

hetcclResult_t runCollective(Collective collective, const void* sendbuff, void* recvbuff, size_t count, DataType type,
                             RedOp op, int root, const CallContext& ctx) {
  const hetcclDataType_t t = toHetcclType(type);
  const hetcclRedOp_t o = toHetcclOp(op);
  switch (collective) {
    case Collective::AllReduce: return hetcclAllReduce(sendbuff, recvbuff, count, t, o, ctx.comm, ctx.stream);
    case Collective::AllGather: return hetcclAllGather(sendbuff, recvbuff, count, t, ctx.comm, ctx.stream);
    case Collective::ReduceScatter: return hetcclReduceScatter(sendbuff, recvbuff, count, t, o, ctx.comm, ctx.stream);
    case Collective::Broadcast: return hetcclBroadcast(sendbuff, recvbuff, count, t, root, ctx.comm, ctx.stream);
    case Collective::Reduce: return hetcclReduce(sendbuff, recvbuff, count, t, o, root, ctx.comm, ctx.stream);
    case Collective::AlltoAll: return hetcclAlltoAll(sendbuff, recvbuff, count, t, ctx.comm, ctx.stream);
    case Collective::SendRecv: return runSendRecvRing(sendbuff, recvbuff, count, t, ctx);
  }
  return hetcclInvalidArgument;
}

}  // namespace hetccl_perf
