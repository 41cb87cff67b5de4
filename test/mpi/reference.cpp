#include "reference.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace hetccl_test {
namespace {

// ---------------------------------------------------------------------------------------------
// Element access through memcpy: test buffers are byte vectors, and element types such as int64
// need not be aligned inside them.

template <typename T>
T load(const unsigned char* base, size_t index) {
  T value;
  std::memcpy(&value, base + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void store(unsigned char* base, size_t index, T value) {
  std::memcpy(base + index * sizeof(T), &value, sizeof(T));
}

// splitmix64: a cheap, well-mixed hash so that every (seed, rank, index) gets its own value.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t elementHash(uint64_t seed, int rank, size_t index) {
  return mix(mix(seed ^ (static_cast<uint64_t>(rank + 1) << 40)) + index);
}

int mpiCount(size_t count) {
  if (count > static_cast<size_t>(INT_MAX)) throw std::runtime_error("test count exceeds INT_MAX");
  return static_cast<int>(count);
}

// ---------------------------------------------------------------------------------------------
// Input values.  Rules that keep every result exact and order-independent:
//  - sum/avg: small integers whose absolute sum over all ranks is exactly representable (and,
//    for avg of integers, does not wrap), so every partial sum is exact in every type;
//    32- and 64-bit unsigned sums use arbitrary bits instead (wrapping addition is associative);
//  - prod: factors in {1, 2} (and -1 for signed and float types) with 2 on at most 12 ranks (6
//    for 8-bit types), so products stay exact in float16 and never wrap in 8 bits;
//    32- and 64-bit unsigned products use arbitrary bits (wrapping);
//  - max/min: arbitrary bits (max and min are order-independent for any non-NaN values),
//    with NaN, infinity and -0 excluded so that no IEEE special case is involved.

// Largest exact integer magnitude of the type's sum, for the sum/avg input range.
int64_t sumLimit(const TypeInfo& type) {
  switch (type.type) {
    case hetcclInt8: return 127;
    case hetcclUint8: return 255;
    case hetcclFloat16: return 2048;
    case hetcclBfloat16: return 256;
    default: return 1 << 20;
  }
}

// A float/half/bfloat16 from arbitrary bits, but finite and never -0.
template <typename Bits>
Bits finiteBits(uint64_t hash, int exponentShift, Bits exponentMask) {
  Bits bits = static_cast<Bits>(hash);
  const Bits signBit = static_cast<Bits>(Bits{1} << (sizeof(Bits) * 8 - 1));
  if ((bits & exponentMask) == exponentMask) bits = static_cast<Bits>(bits & ~(Bits{1} << exponentShift));
  if (bits == signBit) bits = 0;
  return bits;
}

void storeSmallInteger(const TypeInfo& type, unsigned char* out, size_t i, int64_t v) {
  switch (type.type) {
    case hetcclInt8: store<int8_t>(out, i, static_cast<int8_t>(v)); break;
    case hetcclUint8: store<uint8_t>(out, i, static_cast<uint8_t>(v)); break;
    case hetcclInt32: store<int32_t>(out, i, static_cast<int32_t>(v)); break;
    case hetcclUint32: store<uint32_t>(out, i, static_cast<uint32_t>(v)); break;
    case hetcclInt64: store<int64_t>(out, i, v); break;
    case hetcclUint64: store<uint64_t>(out, i, static_cast<uint64_t>(v)); break;
    case hetcclFloat16: store<uint16_t>(out, i, floatToHalf(static_cast<float>(v))); break;
    case hetcclFloat32: store<float>(out, i, static_cast<float>(v)); break;
    case hetcclFloat64: store<double>(out, i, static_cast<double>(v)); break;
    case hetcclBfloat16: store<uint16_t>(out, i, floatToBfloat16(static_cast<float>(v))); break;
    default: throw std::logic_error("bad type");
  }
}

void storeArbitraryBits(const TypeInfo& type, unsigned char* out, size_t i, uint64_t h) {
  switch (type.type) {
    case hetcclFloat16: store<uint16_t>(out, i, finiteBits<uint16_t>(h, 10, 0x7C00u)); break;
    case hetcclBfloat16: store<uint16_t>(out, i, finiteBits<uint16_t>(h, 7, 0x7F80u)); break;
    case hetcclFloat32: store<uint32_t>(out, i, finiteBits<uint32_t>(h, 23, 0x7F800000u)); break;
    case hetcclFloat64: store<uint64_t>(out, i, finiteBits<uint64_t>(h, 52, 0x7FF0000000000000ull)); break;
    default: std::memcpy(out + i * type.size, &h, type.size); break;  // little-endian low bytes
  }
}

// ---------------------------------------------------------------------------------------------
// Exact reductions.

template <typename T>
void reduceIntegers(hetcclRedOp_t op, const std::vector<const unsigned char*>& in, size_t count, unsigned char* out) {
  using U = std::make_unsigned_t<T>;
  const size_t n = in.size();
  for (size_t i = 0; i < count; ++i) {
    T result{};
    // Sum and product modulo 2^64, then truncated: the same bits as wrapping in the type.
    uint64_t acc = op == hetcclProd ? 1 : 0;
    int64_t signedSum = 0;
    uint64_t unsignedSum = 0;
    T best = load<T>(in[0], i);
    for (size_t r = 0; r < n; ++r) {
      const T v = load<T>(in[r], i);
      if (op == hetcclSum) acc += static_cast<uint64_t>(v);
      if (op == hetcclProd) acc *= static_cast<uint64_t>(v);
      if (op == hetcclMax) best = std::max(best, v);
      if (op == hetcclMin) best = std::min(best, v);
      if (op == hetcclAvg) {  // avg inputs are small: the exact sum fits
        if (std::is_signed<T>::value)
          signedSum += static_cast<int64_t>(v);
        else
          unsignedSum += static_cast<uint64_t>(v);
      }
    }
    switch (op) {
      case hetcclSum:
      case hetcclProd: {
        const U bits = static_cast<U>(acc);
        std::memcpy(&result, &bits, sizeof(T));
        break;
      }
      case hetcclMax:
      case hetcclMin: result = best; break;
      case hetcclAvg:
        // C division truncates toward zero, as the library's "sum, then divide once".
        if (std::is_signed<T>::value)
          result = static_cast<T>(signedSum / static_cast<int64_t>(n));
        else
          result = static_cast<T>(unsignedSum / static_cast<uint64_t>(n));
        break;
      default: throw std::logic_error("bad op");
    }
    store<T>(out, i, result);
  }
}

// Floating types, seen through a conversion to and from float/double.  Sums and products are
// exact in double for our inputs; the result is converted once.
template <typename Storage, typename Compute>
void reduceFloats(hetcclRedOp_t op, const std::vector<const unsigned char*>& in, size_t count, unsigned char* out,
                  Compute (*toCompute)(Storage), Storage (*fromCompute)(Compute)) {
  const size_t n = in.size();
  for (size_t i = 0; i < count; ++i) {
    double acc = op == hetcclProd ? 1.0 : 0.0;
    Storage bestBits = load<Storage>(in[0], i);
    Compute best = toCompute(bestBits);
    for (size_t r = 0; r < n; ++r) {
      const Storage bits = load<Storage>(in[r], i);
      const Compute v = toCompute(bits);
      if (op == hetcclSum || op == hetcclAvg) acc += static_cast<double>(v);
      if (op == hetcclProd) acc *= static_cast<double>(v);
      if ((op == hetcclMax && v > best) || (op == hetcclMin && v < best)) {
        best = v;
        bestBits = bits;
      }
    }
    Storage result;
    switch (op) {
      case hetcclSum:
      case hetcclProd: result = fromCompute(static_cast<Compute>(acc)); break;
      case hetcclMax:
      case hetcclMin: result = bestBits; break;
      case hetcclAvg:
        // The exact sum in the compute type, divided once by the rank count in that type.
        result = fromCompute(static_cast<Compute>(acc) / static_cast<Compute>(n));
        break;
      default: throw std::logic_error("bad op");
    }
    store<Storage>(out, i, result);
  }
}

float floatIdentity(float v) { return v; }
double doubleIdentity(double v) { return v; }

MPI_Op mpiOp(hetcclRedOp_t op) {
  switch (op) {
    case hetcclSum: return MPI_SUM;
    case hetcclProd: return MPI_PROD;
    case hetcclMax: return MPI_MAX;
    case hetcclMin: return MPI_MIN;
    default: throw std::logic_error("no MPI op");
  }
}

// The MPI type that moves an element's bits (reductions aside).
MPI_Datatype elementMpiType(const TypeInfo& type) {
  return type.mpiType != MPI_DATATYPE_NULL ? type.mpiType : MPI_UINT16_T;
}

int commSize(MPI_Comm comm) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  return n;
}

int commRank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

std::vector<const unsigned char*> splitBlocks(const Bytes& all, int nranks, size_t blockBytes) {
  std::vector<const unsigned char*> blocks;
  for (int r = 0; r < nranks; ++r) blocks.push_back(all.data() + static_cast<size_t>(r) * blockBytes);
  return blocks;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

const std::vector<TypeInfo>& allTypes() {
  static const std::vector<TypeInfo> types = {
      {hetcclInt8, "int8", 1, MPI_INT8_T, false, true},
      {hetcclUint8, "uint8", 1, MPI_UINT8_T, false, false},
      {hetcclInt32, "int32", 4, MPI_INT32_T, false, true},
      {hetcclUint32, "uint32", 4, MPI_UINT32_T, false, false},
      {hetcclInt64, "int64", 8, MPI_INT64_T, false, true},
      {hetcclUint64, "uint64", 8, MPI_UINT64_T, false, false},
      {hetcclFloat16, "float16", 2, MPI_DATATYPE_NULL, true, true},
      {hetcclFloat32, "float32", 4, MPI_FLOAT, true, true},
      {hetcclFloat64, "float64", 8, MPI_DOUBLE, true, true},
      {hetcclBfloat16, "bfloat16", 2, MPI_DATATYPE_NULL, true, true},
  };
  return types;
}

const TypeInfo& typeInfo(hetcclDataType_t type) { return allTypes().at(static_cast<size_t>(type)); }

const std::vector<hetcclRedOp_t>& allOps() {
  static const std::vector<hetcclRedOp_t> ops = {hetcclSum, hetcclProd, hetcclMax, hetcclMin, hetcclAvg};
  return ops;
}

const char* opName(hetcclRedOp_t op) {
  switch (op) {
    case hetcclSum: return "sum";
    case hetcclProd: return "prod";
    case hetcclMax: return "max";
    case hetcclMin: return "min";
    case hetcclAvg: return "avg";
    default: return "?";
  }
}

// binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits.
uint16_t floatToHalf(float value) {
  uint32_t f;
  std::memcpy(&f, &value, sizeof f);
  const uint16_t sign = static_cast<uint16_t>((f >> 16) & 0x8000u);
  const uint32_t absBits = f & 0x7FFFFFFFu;
  if (absBits > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);   // NaN: quiet
  if (absBits >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  const int exponent = static_cast<int>(absBits >> 23) - 127;
  uint32_t mantissa = (absBits & 0x7FFFFFu) | 0x800000u;  // 24 significant bits
  int shift;                                              // bits to drop from the 24
  uint32_t halfExponentField;
  if (exponent >= -14) {
    shift = 13;
    halfExponentField = static_cast<uint32_t>(exponent + 15);
  } else {
    if (absBits == 0) return sign;
    shift = 13 + (-14 - exponent);  // subnormal: fewer significant bits survive
    if (shift > 24) return sign;    // below half the smallest subnormal: rounds to zero
    halfExponentField = 0;
  }
  const uint32_t dropped = mantissa & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  uint32_t kept = mantissa >> shift;
  if (dropped > halfway || (dropped == halfway && (kept & 1u))) ++kept;  // nearest, ties even
  // For normals `kept` includes the implicit bit; adding the exponent field (minus that bit)
  // lets a carry out of the fraction bump the exponent, as rounding requires.
  uint32_t result;
  if (halfExponentField > 0)
    result = ((halfExponentField - 1u) << 10) + kept;
  else
    result = kept;  // a subnormal that rounds up to 0x400 becomes the smallest normal
  return static_cast<uint16_t>(sign | result);
}

float halfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t fraction = bits & 0x3FFu;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(fraction), -24);
  } else if (exponent == 31) {
    magnitude = fraction ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    magnitude = std::ldexp(static_cast<float>(fraction | 0x400u), static_cast<int>(exponent) - 25);
  }
  uint32_t f;
  std::memcpy(&f, &magnitude, sizeof f);
  f |= sign;
  float result;
  std::memcpy(&result, &f, sizeof f);
  return result;
}

uint16_t floatToBfloat16(float value) {
  uint32_t f;
  std::memcpy(&f, &value, sizeof f);
  if ((f & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((f >> 16) | 0x40u);  // NaN
  const uint32_t roundingBias = 0x7FFFu + ((f >> 16) & 1u);                              // nearest, ties to even
  return static_cast<uint16_t>((f + roundingBias) >> 16);
}

float bfloat16ToFloat(uint16_t bits) {
  const uint32_t f = static_cast<uint32_t>(bits) << 16;
  float result;
  std::memcpy(&result, &f, sizeof f);
  return result;
}

Bytes makeInput(const TypeInfo& type, hetcclRedOp_t op, int nranks, int rank, size_t count, uint64_t seed) {
  Bytes out(count * type.size);
  // Open MPI's vectorised MPI_SUM on 8-bit unsigned integers saturates instead of wrapping, so
  // only the wider unsigned types get arbitrary (wrapping) bits for sum and prod.
  const bool unsignedInt = !type.isFloat && !type.isSigned && type.size >= 4;
  // Ranks that may contribute a factor 2: products stay within float16 (2^12) and within 8-bit
  // integers (2^6), so that no product wraps where MPI's own arithmetic is the reference.
  const int maxDoublingRanks = type.size == 1 ? 6 : 12;
  const int64_t range = std::max<int64_t>(1, std::min<int64_t>(1000, sumLimit(type) / nranks));
  for (size_t i = 0; i < count; ++i) {
    const uint64_t h = elementHash(seed, rank, i);
    switch (op) {
      case hetcclSum:
        if (unsignedInt)
          storeArbitraryBits(type, out.data(), i, h);
        else if (!type.isSigned)
          storeSmallInteger(type, out.data(), i, static_cast<int64_t>(h % (range + 1)));
        else
          storeSmallInteger(type, out.data(), i, static_cast<int64_t>(h % (2 * range + 1)) - range);
        break;
      case hetcclAvg:
        if (!type.isSigned)
          storeSmallInteger(type, out.data(), i, static_cast<int64_t>(h % (range + 1)));
        else
          storeSmallInteger(type, out.data(), i, static_cast<int64_t>(h % (2 * range + 1)) - range);
        break;
      case hetcclProd: {
        if (unsignedInt) {
          storeArbitraryBits(type, out.data(), i, h);
          break;
        }
        const uint64_t pick = h % 8;
        int64_t factor = 1;
        if (pick < 2 && rank < maxDoublingRanks) factor = 2;
        if (pick == 2) factor = -1;
        storeSmallInteger(type, out.data(), i, factor);
        break;
      }
      case hetcclMax:
      case hetcclMin:
      default:  // data movement (no op): arbitrary bits are the strongest check
        storeArbitraryBits(type, out.data(), i, h);
        break;
    }
  }
  return out;
}

Bytes makeGarbage(size_t bytes, int rank, uint64_t seed) {
  Bytes out(bytes);
  for (size_t i = 0; i < bytes; i += 8) {
    const uint64_t h = elementHash(seed ^ 0x6A09E667F3BCC908ull, rank, i);
    std::memcpy(out.data() + i, &h, std::min<size_t>(8, bytes - i));
  }
  return out;
}

Bytes reduceDirect(const TypeInfo& type, hetcclRedOp_t op, const std::vector<const unsigned char*>& inputs,
                   size_t count) {
  Bytes out(count * type.size);
  unsigned char* o = out.data();
  switch (type.type) {
    case hetcclInt8: reduceIntegers<int8_t>(op, inputs, count, o); break;
    case hetcclUint8: reduceIntegers<uint8_t>(op, inputs, count, o); break;
    case hetcclInt32: reduceIntegers<int32_t>(op, inputs, count, o); break;
    case hetcclUint32: reduceIntegers<uint32_t>(op, inputs, count, o); break;
    case hetcclInt64: reduceIntegers<int64_t>(op, inputs, count, o); break;
    case hetcclUint64: reduceIntegers<uint64_t>(op, inputs, count, o); break;
    case hetcclFloat16: reduceFloats<uint16_t, float>(op, inputs, count, o, halfToFloat, floatToHalf); break;
    case hetcclFloat32: reduceFloats<float, float>(op, inputs, count, o, floatIdentity, floatIdentity); break;
    case hetcclFloat64: reduceFloats<double, double>(op, inputs, count, o, doubleIdentity, doubleIdentity); break;
    case hetcclBfloat16: reduceFloats<uint16_t, float>(op, inputs, count, o, bfloat16ToFloat, floatToBfloat16); break;
    default: throw std::logic_error("bad type");
  }
  return out;
}

bool mpiCanReduce(const TypeInfo& type, hetcclRedOp_t op) {
  return type.mpiType != MPI_DATATYPE_NULL && op != hetcclAvg;
}

Bytes referenceAllReduce(const TypeInfo& type, hetcclRedOp_t op, const Bytes& input, size_t count, MPI_Comm comm) {
  Bytes out(count * type.size);
  if (count == 0) return out;
  if (mpiCanReduce(type, op)) {
    MPI_Allreduce(input.data(), out.data(), mpiCount(count), type.mpiType, mpiOp(op), comm);
    return out;
  }
  const int n = commSize(comm);
  const size_t bytes = count * type.size;
  Bytes all(bytes * static_cast<size_t>(n));
  MPI_Allgather(input.data(), mpiCount(bytes), MPI_BYTE, all.data(), mpiCount(bytes), MPI_BYTE, comm);
  return reduceDirect(type, op, splitBlocks(all, n, bytes), count);
}

Bytes referenceReduceScatter(const TypeInfo& type, hetcclRedOp_t op, const Bytes& input, size_t recvcount,
                             MPI_Comm comm) {
  Bytes out(recvcount * type.size);
  if (recvcount == 0) return out;
  if (mpiCanReduce(type, op)) {
    MPI_Reduce_scatter_block(input.data(), out.data(), mpiCount(recvcount), type.mpiType, mpiOp(op), comm);
    return out;
  }
  // Every rank needs only its own segment from every rank: an all-to-all of the segments.
  const int n = commSize(comm);
  const size_t bytes = recvcount * type.size;
  Bytes mine(bytes * static_cast<size_t>(n));
  MPI_Alltoall(input.data(), mpiCount(bytes), MPI_BYTE, mine.data(), mpiCount(bytes), MPI_BYTE, comm);
  return reduceDirect(type, op, splitBlocks(mine, n, bytes), recvcount);
}

Bytes referenceReduce(const TypeInfo& type, hetcclRedOp_t op, const Bytes& input, size_t count, int root,
                      MPI_Comm comm) {
  const bool isRoot = commRank(comm) == root;
  Bytes out(isRoot ? count * type.size : 0);
  if (count == 0) return out;
  if (mpiCanReduce(type, op)) {
    MPI_Reduce(input.data(), isRoot ? out.data() : nullptr, mpiCount(count), type.mpiType, mpiOp(op), root, comm);
    return out;
  }
  const int n = commSize(comm);
  const size_t bytes = count * type.size;
  Bytes all(isRoot ? bytes * static_cast<size_t>(n) : 0);
  MPI_Gather(input.data(), mpiCount(bytes), MPI_BYTE, isRoot ? all.data() : nullptr, mpiCount(bytes), MPI_BYTE, root,
             comm);
  if (!isRoot) return out;
  return reduceDirect(type, op, splitBlocks(all, n, bytes), count);
}

Bytes referenceAllGather(const TypeInfo& type, const Bytes& input, size_t sendcount, MPI_Comm comm) {
  Bytes out(sendcount * type.size * static_cast<size_t>(commSize(comm)));
  if (sendcount == 0) return out;
  MPI_Allgather(input.data(), mpiCount(sendcount), elementMpiType(type), out.data(), mpiCount(sendcount),
                elementMpiType(type), comm);
  return out;
}

Bytes referenceBroadcast(const TypeInfo& type, const Bytes& input, size_t count, int root, MPI_Comm comm) {
  Bytes out = input;
  out.resize(count * type.size);
  if (count == 0) return out;
  MPI_Bcast(out.data(), mpiCount(count), elementMpiType(type), root, comm);
  return out;
}

Bytes referenceAlltoAll(const TypeInfo& type, const Bytes& input, size_t count, MPI_Comm comm) {
  Bytes out(input.size());
  if (count == 0) return out;
  MPI_Alltoall(input.data(), mpiCount(count), elementMpiType(type), out.data(), mpiCount(count), elementMpiType(type),
               comm);
  return out;
}

std::string formatElement(const TypeInfo& type, const unsigned char* element) {
  char text[96];
  switch (type.type) {
    case hetcclInt8: std::snprintf(text, sizeof text, "%d", load<int8_t>(element, 0)); break;
    case hetcclUint8: std::snprintf(text, sizeof text, "%u", load<uint8_t>(element, 0)); break;
    case hetcclInt32: std::snprintf(text, sizeof text, "%d", load<int32_t>(element, 0)); break;
    case hetcclUint32: std::snprintf(text, sizeof text, "%u", load<uint32_t>(element, 0)); break;
    case hetcclInt64:
      std::snprintf(text, sizeof text, "%lld", static_cast<long long>(load<int64_t>(element, 0)));
      break;
    case hetcclUint64:
      std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(load<uint64_t>(element, 0)));
      break;
    case hetcclFloat16: {
      const uint16_t b = load<uint16_t>(element, 0);
      std::snprintf(text, sizeof text, "%.9g (0x%04x)", static_cast<double>(halfToFloat(b)), b);
      break;
    }
    case hetcclBfloat16: {
      const uint16_t b = load<uint16_t>(element, 0);
      std::snprintf(text, sizeof text, "%.9g (0x%04x)", static_cast<double>(bfloat16ToFloat(b)), b);
      break;
    }
    case hetcclFloat32: {
      const uint32_t b = load<uint32_t>(element, 0);
      std::snprintf(text, sizeof text, "%.9g (0x%08x)", static_cast<double>(load<float>(element, 0)), b);
      break;
    }
    case hetcclFloat64: {
      const uint64_t b = load<uint64_t>(element, 0);
      std::snprintf(text, sizeof text, "%.17g (0x%016llx)", load<double>(element, 0),
                    static_cast<unsigned long long>(b));
      break;
    }
    default: std::snprintf(text, sizeof text, "?"); break;
  }
  return text;
}

std::string describeMismatch(const TypeInfo& type, const Bytes& expected, const Bytes& actual) {
  if (expected.size() != actual.size()) {
    std::ostringstream s;
    s << "size differs: expected " << expected.size() << " bytes, got " << actual.size();
    return s.str();
  }
  if (expected == actual) return "";
  const size_t count = expected.size() / type.size;
  size_t differing = 0;
  std::ostringstream s;
  for (size_t i = 0; i < count; ++i) {
    const unsigned char* e = expected.data() + i * type.size;
    const unsigned char* a = actual.data() + i * type.size;
    if (std::memcmp(e, a, type.size) == 0) continue;
    if (differing < 4) {
      s << "\n    element " << i << ": expected " << formatElement(type, e) << ", got " << formatElement(type, a);
    }
    ++differing;
  }
  std::ostringstream head;
  head << differing << " of " << count << " elements differ" << s.str();
  return head.str();
}

}  // namespace hetccl_test
