// The vocabulary of hetccl-perf: collectives, element types and reduction operations, with
// the names nccl-tests prints.  Kept free of MPI and of the hetccl header so the pure parts
// (options, expected values, report) build and unit-test without either; the element types
// are the base layer's, whose values equal hetccl's (and so NCCL's), which the runner checks
// with static_asserts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/element.h"

namespace hetccl_perf {

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AlltoAll, SendRecv };

// The library's own element types and operations (lib/base), whose values are NCCL's.
using DataType = hetccl::ElementType;
using RedOp = hetccl::ReduceOp;

const char* collectiveName(Collective c);
bool parseCollective(const std::string& name, Collective* out);
// True for the collectives that combine values with a RedOp (the others only move data, and
// their rows print "none" as redop).
bool collectiveReduces(Collective c);
// True for broadcast and reduce, the rows that print a root.
bool collectiveHasRoot(Collective c);

const char* dataTypeName(DataType t);  // its size: hetccl::elementSize (lib/base/element.h)
bool dataTypeIsInteger(DataType t);
bool dataTypeIsSigned(DataType t);  // floating-point types count as signed
// Accepts the nccl-tests names (int8 ... bfloat16) and a few common aliases.
bool parseDataType(const std::string& name, DataType* out);
// In nccl-tests' "-d all" order.
std::vector<DataType> allDataTypes();

const char* redOpName(RedOp op);
bool parseRedOp(const std::string& name, RedOp* out);
std::vector<RedOp> allRedOps();

}  // namespace hetccl_perf
