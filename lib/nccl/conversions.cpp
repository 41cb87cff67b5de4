// NCCL's element types and reduction ops onto hetccl's.  The values are the same (hetccl took
// NCCL's), so a conversion is a range check that explains what hetccl lacks.
#include "nccl/shim_support.h"

namespace hetccl_nccl {

static_assert(int(ncclInt8) == int(hetcclInt8) && int(ncclUint8) == int(hetcclUint8) &&
                  int(ncclInt32) == int(hetcclInt32) && int(ncclUint32) == int(hetcclUint32) &&
                  int(ncclInt64) == int(hetcclInt64) && int(ncclUint64) == int(hetcclUint64) &&
                  int(ncclFloat16) == int(hetcclFloat16) && int(ncclFloat32) == int(hetcclFloat32) &&
                  int(ncclFloat64) == int(hetcclFloat64) && int(ncclBfloat16) == int(hetcclBfloat16),
              "NCCL and hetccl element types must share their values");
static_assert(int(ncclSum) == int(hetcclSum) && int(ncclProd) == int(hetcclProd) && int(ncclMax) == int(hetcclMax) &&
                  int(ncclMin) == int(hetcclMin) && int(ncclAvg) == int(hetcclAvg) &&
                  int(ncclNumOps) == int(hetcclNumOps),
              "NCCL and hetccl reduction ops must share their values");

ncclResult_t toHetcclType(const char* function, ncclDataType_t type, hetcclDataType_t* out) {
  int value = int(type);
  if (value >= 0 && value < int(hetcclNumTypes)) {
    *out = static_cast<hetcclDataType_t>(value);
    return ncclSuccess;
  }
  // 10 and 11 are ncclFloat8e4m3 and ncclFloat8e5m2 (by value: the names are recent).
  if (value == 10 || value == 11)
    return fail(ncclInvalidArgument, function, "datatype %d (%s) is not supported: hetccl has no fp8 types yet", value,
                value == 10 ? "ncclFloat8e4m3" : "ncclFloat8e5m2");
  return fail(ncclInvalidArgument, function, "invalid datatype %d", value);
}

ncclResult_t toHetcclOp(const char* function, ncclRedOp_t op, hetcclRedOp_t* out) {
  int value = int(op);
  // From hetcclNumOps on: made by ncclRedOpCreatePreMulSum, which hetccl checks.
  if (value >= 0) {
    *out = static_cast<hetcclRedOp_t>(value);
    return ncclSuccess;
  }
  return fail(ncclInvalidArgument, function,
              "invalid reduction op %d (ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg, or one made by "
              "ncclRedOpCreatePreMulSum for all-reduce, reduce and reduce-scatter)",
              value);
}

}  // namespace hetccl_nccl
