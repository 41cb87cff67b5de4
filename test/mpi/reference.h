// Inputs and independent reference results for the multi-rank tests.
//
// The reference never goes through hetccl: for the types and ops MPI knows it is the matching MPI
// collective on the same inputs; for float16/bfloat16 and for avg it gathers every rank's input
// with MPI and computes the exact result here.  Inputs are chosen so that the exact result does
// not depend on the order of reduction, so comparisons are bitwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include "hetccl/hetccl.h"

namespace hetccl_test {

using Bytes = std::vector<unsigned char>;

struct TypeInfo {
  hetcclDataType_t type;
  const char* name;
  size_t size;
  MPI_Datatype mpiType;  // MPI_DATATYPE_NULL for float16/bfloat16
  bool isFloat;
  bool isSigned;
};

// All ten types in enum order.
const std::vector<TypeInfo>& allTypes();
const TypeInfo& typeInfo(hetcclDataType_t type);
const std::vector<hetcclRedOp_t>& allOps();
const char* opName(hetcclRedOp_t op);

// IEEE binary16 and bfloat16 conversions, round-to-nearest-even (our own, not the library's).
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);
float bfloat16ToFloat(uint16_t bits);

// `count` elements of rank `rank`'s input for an operation `op` over `nranks` ranks.  The values
// keep the exact result order-independent (see reference.cpp).  `seed` varies the data between
// calls so that a result left over from an earlier call cannot pass for a new one.
Bytes makeInput(const TypeInfo& type, hetcclRedOp_t op, int nranks, int rank, size_t count, uint64_t seed);
// Arbitrary bytes (different on every rank) to pre-fill output buffers with.
Bytes makeGarbage(size_t bytes, int rank, uint64_t seed);

// The exact elementwise reduction of nranks inputs (one pointer per rank, `count` elements each).
Bytes reduceDirect(const TypeInfo& type, hetcclRedOp_t op, const std::vector<const unsigned char*>& inputs,
                   size_t count);
// Whether MPI can compute `op` on `type` itself (integer/float types and sum, prod, max, min).
bool mpiCanReduce(const TypeInfo& type, hetcclRedOp_t op);

// References on `comm` (every rank calls them; they are collective over comm).  The result is this
// rank's expected output.  `input` holds this rank's send buffer contents.
Bytes referenceAllReduce(const TypeInfo& type, hetcclRedOp_t op, const Bytes& input, size_t count, MPI_Comm comm);
// input: nranks * recvcount elements; result: recvcount elements.
Bytes referenceReduceScatter(const TypeInfo& type, hetcclRedOp_t op, const Bytes& input, size_t recvcount,
                             MPI_Comm comm);
// Result meaningful on root only (empty elsewhere).
Bytes referenceReduce(const TypeInfo& type, hetcclRedOp_t op, const Bytes& input, size_t count, int root,
                      MPI_Comm comm);
// input: sendcount elements; result: nranks * sendcount elements.
Bytes referenceAllGather(const TypeInfo& type, const Bytes& input, size_t sendcount, MPI_Comm comm);
// input: count elements (only root's matter).
Bytes referenceBroadcast(const TypeInfo& type, const Bytes& input, size_t count, int root, MPI_Comm comm);
// input: nranks * count elements, block j for rank j; result: block i from rank i.
Bytes referenceAlltoAll(const TypeInfo& type, const Bytes& input, size_t count, MPI_Comm comm);

// "" when expected == actual; otherwise where and how they differ (first few elements, as bits
// and values) plus the number of differing elements.
std::string describeMismatch(const TypeInfo& type, const Bytes& expected, const Bytes& actual);
// Value of element `index` of a buffer, printed for humans.
std::string formatElement(const TypeInfo& type, const unsigned char* element);

}  // namespace hetccl_test
