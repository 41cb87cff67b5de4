/* See c_api_calls.h for why this is C.  All calls use the default stream. */
#include "c_api_calls.h"

hetcclResult_t cAllReduce(const void* sendbuff, void* recvbuff, size_t count, int datatype, int op, hetcclComm_t comm) {
  return hetcclAllReduce(sendbuff, recvbuff, count, (hetcclDataType_t)datatype, (hetcclRedOp_t)op, comm, NULL);
}

hetcclResult_t cReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, int datatype, int op,
                              hetcclComm_t comm) {
  return hetcclReduceScatter(sendbuff, recvbuff, recvcount, (hetcclDataType_t)datatype, (hetcclRedOp_t)op, comm, NULL);
}

hetcclResult_t cAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, int datatype, hetcclComm_t comm) {
  return hetcclAllGather(sendbuff, recvbuff, sendcount, (hetcclDataType_t)datatype, comm, NULL);
}

hetcclResult_t cBroadcast(const void* sendbuff, void* recvbuff, size_t count, int datatype, int root,
                          hetcclComm_t comm) {
  return hetcclBroadcast(sendbuff, recvbuff, count, (hetcclDataType_t)datatype, root, comm, NULL);
}

hetcclResult_t cReduce(const void* sendbuff, void* recvbuff, size_t count, int datatype, int op, int root,
                       hetcclComm_t comm) {
  return hetcclReduce(sendbuff, recvbuff, count, (hetcclDataType_t)datatype, (hetcclRedOp_t)op, root, comm, NULL);
}

hetcclResult_t cAlltoAll(const void* sendbuff, void* recvbuff, size_t count, int datatype, hetcclComm_t comm) {
  return hetcclAlltoAll(sendbuff, recvbuff, count, (hetcclDataType_t)datatype, comm, NULL);
}

hetcclResult_t cSend(const void* sendbuff, size_t count, int datatype, int peer, hetcclComm_t comm) {
  return hetcclSend(sendbuff, count, (hetcclDataType_t)datatype, peer, comm, NULL);
}

hetcclResult_t cRecv(void* recvbuff, size_t count, int datatype, int peer, hetcclComm_t comm) {
  return hetcclRecv(recvbuff, count, (hetcclDataType_t)datatype, peer, comm, NULL);
}

const char* cGetErrorString(int result) { return hetcclGetErrorString((hetcclResult_t)result); }
