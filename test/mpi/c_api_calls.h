/* The public API called with datatype, op and result values given as plain int, for the
 * invalid-argument tests.  In C++ converting an int outside an unscoped enum's range of values
 * (here 0..15) to the enum is undefined behaviour (UBSan flags it), while in C any int converts
 * to an enum type; so the bad values are turned into enums in c_api_calls.c, exactly as a C
 * program passing a bad value would. */
#ifndef HETCCL_TEST_MPI_C_API_CALLS_H
#define HETCCL_TEST_MPI_C_API_CALLS_H

#include "hetccl/hetccl.h"

#ifdef __cplusplus
extern "C" {
#endif

hetcclResult_t cAllReduce(const void* sendbuff, void* recvbuff, size_t count, int datatype, int op, hetcclComm_t comm);
hetcclResult_t cReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, int datatype, int op,
                              hetcclComm_t comm);
hetcclResult_t cAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, int datatype, hetcclComm_t comm);
hetcclResult_t cBroadcast(const void* sendbuff, void* recvbuff, size_t count, int datatype, int root,
                          hetcclComm_t comm);
hetcclResult_t cReduce(const void* sendbuff, void* recvbuff, size_t count, int datatype, int op, int root,
                       hetcclComm_t comm);
hetcclResult_t cAlltoAll(const void* sendbuff, void* recvbuff, size_t count, int datatype, hetcclComm_t comm);
hetcclResult_t cSend(const void* sendbuff, size_t count, int datatype, int peer, hetcclComm_t comm);
hetcclResult_t cRecv(void* recvbuff, size_t count, int datatype, int peer, hetcclComm_t comm);
const char* cGetErrorString(int result);

#ifdef __cplusplus
}
#endif

#endif /* HETCCL_TEST_MPI_C_API_CALLS_H */
