// The collective and point-to-point entry points: validate everything at once (an invalid
// argument returns before anything is queued or sent, so the communicator stays usable),
// then run the operation, or queue it when inside a group.
#include <cstdint>

#include "core/api_support.h"
#include "core/dispatch.h"
#include "core/group.h"
#include "core/premul_sum.h"

namespace hetccl {
namespace {

// Failures past validation leave peers mid-operation: the communicator cannot be trusted
// any more (NCCL's contract), except for the usage errors that are reported before any
// traffic.
void poisonOnFailure(hetcclComm& comm, const Status& status) {
  if (status.isOk()) return;
  if (status.code() == Code::InvalidArgument || status.code() == Code::InvalidUsage) return;
  poison(comm, status);
}

// A call's first step: hold the communicator for the call (another thread inside it, or its
// destruction, is an error here rather than a race later).  Failures are reported on the
// calling thread, not on a communicator that another thread may be using.
hetcclResult_t holdForOperation(hetcclComm* comm, CommunicatorHold* hold) {
  return report(nullptr, hold->acquire(comm, true), comm);
}

Status checkType(int type) {
  if (!isValidElementType(type))
    return HETCCL_STATUS(Code::InvalidArgument, "invalid datatype %d (valid: 0..%d)", type, kElementTypeCount - 1);
  return Status::ok();
}

Status checkOp(int op) {
  if (!isValidReduceOp(op) && !isScaledSumOp(op))
    return HETCCL_STATUS(Code::InvalidArgument,
                         "invalid reduction op %d (valid: 0..%d, or one made by hetcclRedOpCreatePreMulSum)", op,
                         kReduceOpCount - 1);
  return Status::ok();
}

Status checkRank(int value, int nranks, const char* what) {
  if (value < 0 || value >= nranks)
    return HETCCL_STATUS(Code::InvalidArgument, "%s %d out of range (communicator has %d ranks)", what, value, nranks);
  return Status::ok();
}

Status checkBuffer(const void* buffer, size_t count, const char* name, const char* call) {
  if (count > 0 && !buffer)
    return HETCCL_STATUS(Code::InvalidArgument, "%s: %s is NULL with count %zu", call, name, count);
  return Status::ok();
}

// The largest buffer a call touches is count * nranks elements: it must fit in size_t.
// (A multiplication checked for overflow: two 64-bit divisions were a visible part of a
// small call's cost.)
Status checkSize(size_t count, int type, int nranks, const char* call) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, elementSize(static_cast<ElementType>(type)), &bytes) ||
      __builtin_mul_overflow(bytes, static_cast<size_t>(nranks), &bytes))
    return HETCCL_STATUS(Code::InvalidArgument, "%s: count %zu is too large for %d ranks", call, count, nranks);
  return Status::ok();
}

Status validate(hetcclComm* comm, const CollectiveCall& call, int type, int op, bool reduces, const char* name) {
  HETCCL_TRY(checkUsable(*comm));
  HETCCL_TRY(checkType(type));
  if (reduces) HETCCL_TRY(checkOp(op));
  if (call.collective == Collective::Broadcast || call.collective == Collective::Reduce)
    HETCCL_TRY(checkRank(call.root, comm->nranks, "root"));
  HETCCL_TRY(checkSize(call.count, type, comm->nranks, name));
  // Broadcast reads sendbuff only on the root; reduce writes recvbuff only on the root.
  bool readsSend = call.collective != Collective::Broadcast || comm->rank == call.root;
  bool writesRecv = call.collective != Collective::Reduce || comm->rank == call.root;
  if (readsSend) HETCCL_TRY(checkBuffer(call.sendbuff, call.count, "sendbuff", name));
  if (writesRecv) HETCCL_TRY(checkBuffer(call.recvbuff, call.count, "recvbuff", name));
  return Status::ok();
}

// `call` is the entry point's own, completed here (type and op, once checked): taken by
// reference, as copying a call just built showed in a small call's profile (its fields were
// still in the store buffer when the copy read them whole).
hetcclResult_t submitCollective(hetcclComm* comm, CollectiveCall& call, int type, int op, bool reduces,
                                const char* name) {
  CommunicatorHold hold;
  if (const hetcclResult_t held = holdForOperation(comm, &hold); held != hetcclSuccess) return held;
  Status status = validate(comm, call, type, op, reduces, name);
  if (!status.isOk()) return report(comm, status);
  call.type = static_cast<ElementType>(type);
  const bool scaledSum = reduces && isScaledSumOp(op);
  call.op = reduces && !scaledSum ? static_cast<ReduceOp>(op) : ReduceOp::Sum;
  if (scaledSum && insideGroup())
    return report(comm, HETCCL_STATUS(Code::InvalidUsage,
                                      "%s: an op of RedOpCreatePreMulSum inside a group (it runs through a copy of "
                                      "the input that cannot outlive the call: call it outside the group)",
                                      name));
  if (insideGroup()) {
    queueCollective(comm, call);
    return hetcclSuccess;
  }
  if (scaledSum)
    status = runScaledSum(*comm, call, op, [comm](const CollectiveCall& sum) {
      return runCollective(*comm, sum, StreamList(sum.stream));
    });
  else
    status = runCollective(*comm, call, StreamList(call.stream));
  poisonOnFailure(*comm, status);
  return report(comm, status);
}

hetcclResult_t submitPointToPoint(hetcclComm* comm, PointToPointCall call, size_t count, int type, const char* name) {
  CommunicatorHold hold;
  if (const hetcclResult_t held = holdForOperation(comm, &hold); held != hetcclSuccess) return held;
  Status status = checkUsable(*comm);
  if (status.isOk()) status = checkType(type);
  if (status.isOk()) status = checkRank(call.peer, comm->nranks, "peer");
  if (status.isOk()) status = checkSize(count, type, 1, name);
  if (status.isOk()) status = checkBuffer(call.buffer, count, call.isSend ? "sendbuff" : "recvbuff", name);
  if (!status.isOk()) return report(comm, status);
  call.bytes = count * elementSize(static_cast<ElementType>(type));
  if (insideGroup()) {
    queuePointToPoint(comm, call);
    return hetcclSuccess;
  }
  status = runPointToPoint(*comm, {call}, StreamList(call.stream));
  poisonOnFailure(*comm, status);
  return report(comm, status);
}

}  // namespace
}  // namespace hetccl

using hetccl::Collective;
using hetccl::CollectiveCall;

extern "C" {

hetcclResult_t hetcclRedOpCreatePreMulSum(hetcclRedOp_t* op, void* scalar, hetcclDataType_t datatype,
                                          hetcclScalarResidence_t residence, hetcclComm_t comm) {
  const int type = datatype, where = residence;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::CommunicatorHold hold;
    if (hetccl::Status held = hold.acquire(comm, false); !held.isOk()) return hetccl::report(nullptr, held, comm);
    hetccl::Status status;
    if (!op)
      status = HETCCL_STATUS(hetccl::Code::InvalidArgument, "op (the output pointer) is NULL");
    else if (!scalar)
      status = HETCCL_STATUS(hetccl::Code::InvalidArgument, "scalar is NULL");
    else if (where != hetcclScalarDevice && where != hetcclScalarHostImmediate)
      status = HETCCL_STATUS(hetccl::Code::InvalidArgument,
                             "residence %d is neither hetcclScalarDevice nor hetcclScalarHostImmediate", where);
    else
      status = hetccl::checkType(type);
    int made = 0;
    if (status.isOk()) status = hetccl::createScaledSumOp(*comm, scalar, type, where == hetcclScalarDevice, &made);
    if (status.isOk()) *op = static_cast<hetcclRedOp_t>(made);
    return hetccl::report(comm, status);
  });
}

hetcclResult_t hetcclRedOpDestroy(hetcclRedOp_t op, hetcclComm_t comm) {
  const int value = op;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::CommunicatorHold hold;
    if (hetccl::Status held = hold.acquire(comm, false); !held.isOk()) return hetccl::report(nullptr, held, comm);
    if (!hetccl::isScaledSumOp(value))
      return hetccl::report(comm, HETCCL_STATUS(hetccl::Code::InvalidArgument,
                                                "op %d is a built-in op, which cannot be destroyed", value));
    return hetccl::report(comm, hetccl::destroyScaledSumOp(*comm, value));
  });
}

// Each entry point reads its enum arguments as ints before anything else: a C caller may pass
// any int (the checks refuse it with hetcclInvalidArgument), while C++ code that loads a value
// outside an enum's range as that enum has undefined behaviour (caught by UBSan once the
// lambdas below captured the parameters by reference).

hetcclResult_t hetcclAllReduce(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t datatype,
                               hetcclRedOp_t op, hetcclComm_t comm, hetcclStream_t stream) {
  const int type = datatype, reduction = op;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    CollectiveCall call{Collective::AllReduce, sendbuff, recvbuff, count, {}, {}, 0, stream};
    return hetccl::submitCollective(comm, call, type, reduction, true, "hetcclAllReduce");
  });
}

hetcclResult_t hetcclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, hetcclDataType_t datatype,
                                   hetcclRedOp_t op, hetcclComm_t comm, hetcclStream_t stream) {
  const int type = datatype, reduction = op;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    CollectiveCall call{Collective::ReduceScatter, sendbuff, recvbuff, recvcount, {}, {}, 0, stream};
    return hetccl::submitCollective(comm, call, type, reduction, true, "hetcclReduceScatter");
  });
}

hetcclResult_t hetcclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, hetcclDataType_t datatype,
                               hetcclComm_t comm, hetcclStream_t stream) {
  const int type = datatype;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    CollectiveCall call{Collective::AllGather, sendbuff, recvbuff, sendcount, {}, {}, 0, stream};
    return hetccl::submitCollective(comm, call, type, 0, false, "hetcclAllGather");
  });
}

hetcclResult_t hetcclBroadcast(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t datatype, int root,
                               hetcclComm_t comm, hetcclStream_t stream) {
  const int type = datatype;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    CollectiveCall call{Collective::Broadcast, sendbuff, recvbuff, count, {}, {}, root, stream};
    return hetccl::submitCollective(comm, call, type, 0, false, "hetcclBroadcast");
  });
}

hetcclResult_t hetcclReduce(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t datatype,
                            hetcclRedOp_t op, int root, hetcclComm_t comm, hetcclStream_t stream) {
  const int type = datatype, reduction = op;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    CollectiveCall call{Collective::Reduce, sendbuff, recvbuff, count, {}, {}, root, stream};
    return hetccl::submitCollective(comm, call, type, reduction, true, "hetcclReduce");
  });
}

hetcclResult_t hetcclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, hetcclDataType_t datatype,
                              hetcclComm_t comm, hetcclStream_t stream) {
  const int type = datatype;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    CollectiveCall call{Collective::AlltoAll, sendbuff, recvbuff, count, {}, {}, 0, stream};
    return hetccl::submitCollective(comm, call, type, 0, false, "hetcclAlltoAll");
  });
}

hetcclResult_t hetcclSend(const void* sendbuff, size_t count, hetcclDataType_t datatype, int peer, hetcclComm_t comm,
                          hetcclStream_t stream) {
  const int type = datatype;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::PointToPointCall call{true, const_cast<void*>(sendbuff), 0, peer, stream};
    return hetccl::submitPointToPoint(comm, call, count, type, "hetcclSend");
  });
}

hetcclResult_t hetcclRecv(void* recvbuff, size_t count, hetcclDataType_t datatype, int peer, hetcclComm_t comm,
                          hetcclStream_t stream) {
  const int type = datatype;
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    hetccl::PointToPointCall call{false, recvbuff, 0, peer, stream};
    return hetccl::submitPointToPoint(comm, call, count, type, "hetcclRecv");
  });
}

hetcclResult_t hetcclGroupStart(void) { return hetccl::report(nullptr, hetccl::groupStart()); }

hetcclResult_t hetcclGroupEnd(void) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    // groupEnd holds each communicator while it launches its operations, poisons the one that
    // failed, and reports on the calling thread.
    return hetccl::report(nullptr, hetccl::groupEnd());
  });
}

}  // extern "C"
