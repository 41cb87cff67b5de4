#include "perf/hetccl_bench.h"

#include "perf/hetccl_errors.h"

namespace hetccl_perf {

namespace {

unsigned char* at(void* base, size_t elements, size_t elementSize) {
  return static_cast<unsigned char*>(base) + elements * elementSize;
}

}  // namespace

HetcclBench::HetcclBench(const CallContext& ctx, size_t capacityBytes, int warmupIters, int iters, bool check)
    : ctx_(ctx), warmupIters_(warmupIters), iters_(iters), check_(check) {
  // Never ask for zero bytes: a zero-sized allocation may legitimately return NULL, which the
  // collectives would then reject even for count 0.
  const size_t bytes = capacityBytes > 0 ? capacityBytes : 1;
  PERF_HETCCL_CHECK(ctx_.comm, hetcclMemAlloc(&sendDevice_, bytes));
  PERF_HETCCL_CHECK(ctx_.comm, hetcclMemAlloc(&recvDevice_, bytes));
  hostInput_.resize(bytes);
  if (check_) {
    hostExpected_.resize(bytes);
    hostOutput_.resize(bytes);
  }
}

HetcclBench::~HetcclBench() {
  PERF_HETCCL_CHECK(ctx_.comm, hetcclMemFree(recvDevice_));
  PERF_HETCCL_CHECK(ctx_.comm, hetcclMemFree(sendDevice_));
}

void HetcclBench::toDevice(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) PERF_HETCCL_CHECK(ctx_.comm, hetcclMemcpyToDevice(dst, src, bytes));
}

void HetcclBench::fromDevice(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) PERF_HETCCL_CHECK(ctx_.comm, hetcclMemcpyFromDevice(dst, src, bytes));
}

HetcclBench::CallBuffers HetcclBench::buffersFor(const CollectiveShape& shape, size_t elementSize, bool inPlace) const {
  if (!inPlace) return {sendDevice_, recvDevice_};
  // NCCL's in-place rules, as element offsets into one buffer (see collective_shape.h).
  return {at(recvDevice_, shape.inPlaceSendOffset, elementSize), at(recvDevice_, shape.inPlaceRecvOffset, elementSize)};
}

void HetcclBench::call(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers) {
  PERF_HETCCL_CHECK(ctx_.comm, runCollective(spec.collective, buffers.send, buffers.recv, shape.count, spec.type,
                                             spec.op, spec.root, ctx_));
}

void HetcclBench::loadInputs(const PatternSpec& spec, const CollectiveShape& shape, bool inPlace) {
  const size_t es = dataTypeSize(spec.type);
  const size_t outElements = shape.recvElements;
  unsigned char* host = hostInput_.data();
  if (check_) fillExpected(spec, ctx_.rank, shape.count, outElements, hostExpected_.data());
  if (inPlace) {
    // One buffer: the output region starts as the complement of the answer (so an untouched
    // element fails), then the input is laid where the call reads it, which for allgather
    // and reducescatter overlaps the output region by NCCL's rules.
    if (check_) fillPoison(hostExpected_.data(), outElements * es, at(host, shape.inPlaceRecvOffset, es));
    fillInput(spec, ctx_.rank, shape.sendElements, at(host, shape.inPlaceSendOffset, es));
    toDevice(recvDevice_, host, shape.inPlaceElements * es);
  } else {
    fillInput(spec, ctx_.rank, shape.sendElements, host);
    toDevice(sendDevice_, host, shape.sendElements * es);
    if (check_) {
      fillPoison(hostExpected_.data(), outElements * es, hostOutput_.data());
      toDevice(recvDevice_, hostOutput_.data(), outElements * es);
    }
  }
}

size_t HetcclBench::checkOnce(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers) {
  const size_t es = dataTypeSize(spec.type);
  call(spec, shape, buffers);
  PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
  if (!rankHasOutput(spec, ctx_.rank)) return 0;
  fromDevice(hostOutput_.data(), buffers.recv, shape.recvElements * es);
  return countMismatches(hostOutput_.data(), hostExpected_.data(), shape.recvElements, es);
}

double HetcclBench::timeCallsUs(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers) {
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warmupIters_; ++i) call(spec, shape, buffers);
  PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
  // Start together, so no rank's time includes waiting for a late peer's first call.
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < iters_; ++i) call(spec, shape, buffers);
  PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
  const double localUs = (MPI_Wtime() - start) / iters_ * 1.0e6;
  // The slowest rank's time is the collective's time.
  double maxUs = 0;
  MPI_Allreduce(&localUs, &maxUs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return maxUs;
}

Measurement HetcclBench::measure(hetcclComm_t comm, const PatternSpec& spec, const CollectiveShape& shape,
                                 bool inPlace) {
  ctx_.comm = comm;
  const CallBuffers buffers = buffersFor(shape, dataTypeSize(spec.type), inPlace);
  // Inputs are loaded even without the check: the timed calls then reduce real small values,
  // never leftover garbage (a NaN or denormal can make a host reduction many times slower).
  loadInputs(spec, shape, inPlace);
  long long wrong = -1;
  if (check_) {
    const long long localWrong = static_cast<long long>(checkOnce(spec, shape, buffers));
    MPI_Allreduce(&localWrong, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  const double timeUs = timeCallsUs(spec, shape, buffers);
  return makeMeasurement(timeUs, shape.bytes, busBandwidthFactor(spec.collective, ctx_.nranks), wrong);
}

}  // namespace hetccl_perf
