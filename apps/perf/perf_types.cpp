#include "perf/perf_types.h"

namespace hetccl_perf {

namespace {

struct CollectiveEntry {
  Collective collective;
  const char* name;
};
constexpr CollectiveEntry kCollectives[] = {
    {Collective::AllReduce, "allreduce"},
    {Collective::AllGather, "allgather"},
    {Collective::ReduceScatter, "reducescatter"},
    {Collective::Broadcast, "broadcast"},
    {Collective::Reduce, "reduce"},
    {Collective::AlltoAll, "alltoall"},
    {Collective::SendRecv, "sendrecv"},
};

struct TypeEntry {
  DataType type;
  const char* name;
};
// nccl-tests' "-d all" order.
constexpr TypeEntry kTypes[] = {
    {DataType::Int8, "int8"},         {DataType::Uint8, "uint8"},   {DataType::Int32, "int32"},
    {DataType::Uint32, "uint32"},     {DataType::Int64, "int64"},   {DataType::Uint64, "uint64"},
    {DataType::Float16, "half"},      {DataType::Float32, "float"}, {DataType::Float64, "double"},
    {DataType::Bfloat16, "bfloat16"},
};

struct TypeAlias {
  const char* alias;
  DataType type;
};
constexpr TypeAlias kTypeAliases[] = {
    {"char", DataType::Int8},       {"int", DataType::Int32},       {"float16", DataType::Float16},
    {"fp16", DataType::Float16},    {"float32", DataType::Float32}, {"fp32", DataType::Float32},
    {"float64", DataType::Float64}, {"fp64", DataType::Float64},    {"bf16", DataType::Bfloat16},
};

struct OpEntry {
  RedOp op;
  const char* name;
};
constexpr OpEntry kOps[] = {
    {RedOp::Sum, "sum"}, {RedOp::Prod, "prod"}, {RedOp::Max, "max"}, {RedOp::Min, "min"}, {RedOp::Avg, "avg"},
};

}  // namespace

const char* collectiveName(Collective c) {
  for (const auto& e : kCollectives)
    if (e.collective == c) return e.name;
  return "?";
}

bool parseCollective(const std::string& name, Collective* out) {
  for (const auto& e : kCollectives)
    if (name == e.name) {
      *out = e.collective;
      return true;
    }
  return false;
}

bool collectiveReduces(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce;
}

bool collectiveHasRoot(Collective c) { return c == Collective::Broadcast || c == Collective::Reduce; }

const char* dataTypeName(DataType t) {
  for (const auto& e : kTypes)
    if (e.type == t) return e.name;
  return "?";
}

bool dataTypeIsInteger(DataType t) {
  return t != DataType::Float16 && t != DataType::Float32 && t != DataType::Float64 && t != DataType::Bfloat16;
}

bool dataTypeIsSigned(DataType t) { return t != DataType::Uint8 && t != DataType::Uint32 && t != DataType::Uint64; }

bool parseDataType(const std::string& name, DataType* out) {
  for (const auto& e : kTypes)
    if (name == e.name) {
      *out = e.type;
      return true;
    }
  for (const auto& a : kTypeAliases)
    if (name == a.alias) {
      *out = a.type;
      return true;
    }
  return false;
}

std::vector<DataType> allDataTypes() {
  std::vector<DataType> types;
  for (const auto& e : kTypes) types.push_back(e.type);
  return types;
}

const char* redOpName(RedOp op) {
  for (const auto& e : kOps)
    if (e.op == op) return e.name;
  return "?";
}

bool parseRedOp(const std::string& name, RedOp* out) {
  for (const auto& e : kOps)
    if (name == e.name) {
      *out = e.op;
      return true;
    }
  return false;
}

std::vector<RedOp> allRedOps() {
  std::vector<RedOp> ops;
  for (const auto& e : kOps) ops.push_back(e.op);
  return ops;
}

}  // namespace hetccl_perf
