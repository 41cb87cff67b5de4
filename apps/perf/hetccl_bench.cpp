#include "perf/hetccl_bench.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "perf/hetccl_errors.h"
#include "perf/host_work.h"
#include "perf/rounding_error.h"

namespace hetccl_perf {

namespace {

unsigned char* at(void* base, size_t elements, size_t elementSize) {
  return static_cast<unsigned char*>(base) + elements * elementSize;
}

// Per iteration the slowest rank's time (one element-wise maximum over ranks for all
// iterations), then the median over iterations.
double slowestRankMedianUs(const std::vector<double>& localUs) {
  std::vector<double> slowest(localUs.size());
  MPI_Allreduce(localUs.data(), slowest.data(), static_cast<int>(localUs.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return medianOf(std::move(slowest));
}

// --overlap's barrier before each timed iteration.  MPI_Barrier polls flat out, so a rank
// that finished its host work early would spin until the slowest arrives, taking CPU from
// whatever shares its core (other ranks when they outnumber the cores, other jobs on a shared
// machine), and (b), which ends where the next barrier begins, would be timed under a load
// that (c), whose early ranks sleep in hetcclStreamSynchronize, does not see.  This one polls
// for a millisecond (a peer about to arrive costs no wake-up), then sleeps between polls.
void quietBarrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  const double start = MPI_Wtime();
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  while (done == 0) {
    if (MPI_Wtime() - start > 1.0e-3) std::this_thread::sleep_for(std::chrono::microseconds(50));
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
}

// The host work's iteration count for about `targetUs`, the same on every rank: each rank
// calibrates (all at once, as they will run), the largest count wins, and then one run on
// every rank at once rescales it by the slowest rank's time, so that (b) is about (a) under
// the load (b) will see and not only on the rank that calibrated on the quietest core.
uint64_t agreedHostIterations(double targetUs) {
  const unsigned long long local = calibrateHostWork(targetUs);
  unsigned long long count = 0;
  MPI_Allreduce(&local, &count, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  quietBarrier();
  const double start = MPI_Wtime();
  runHostWork(count);
  const double localUs = (MPI_Wtime() - start) * 1.0e6;
  double slowestUs = 0;
  MPI_Allreduce(&localUs, &slowestUs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return scaleHostWork(count, slowestUs, targetUs);
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
  const size_t es = hetccl::elementSize(spec.type);
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
  call(spec, shape, buffers);
  PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
  return countWrongOutputs(spec, shape, buffers);
}

size_t HetcclBench::countWrongOutputs(const PatternSpec& spec, const CollectiveShape& shape,
                                      const CallBuffers& buffers) {
  const size_t es = hetccl::elementSize(spec.type);
  if (!rankHasOutput(spec, ctx_.rank)) return 0;
  fromDevice(hostOutput_.data(), buffers.recv, shape.recvElements * es);
  return countMismatches(hostOutput_.data(), hostExpected_.data(), shape.recvElements, es);
}

void HetcclBench::warmUp(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers) {
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warmupIters_; ++i) call(spec, shape, buffers);
  PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
}

double HetcclBench::timeCallsUs(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers) {
  warmUp(spec, shape, buffers);
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
  const CallBuffers buffers = buffersFor(shape, hetccl::elementSize(spec.type), inPlace);
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

OverlapMeasurement HetcclBench::measureOverlap(hetcclComm_t comm, const PatternSpec& spec,
                                               const CollectiveShape& shape) {
  ctx_.comm = comm;
  const CallBuffers buffers = buffersFor(shape, hetccl::elementSize(spec.type), /*inPlace=*/false);
  loadInputs(spec, shape, /*inPlace=*/false);
  size_t localWrong = check_ ? checkOnce(spec, shape, buffers) : 0;
  warmUp(spec, shape, buffers);
  const size_t iters = static_cast<size_t>(iters_);

  // The collective alone, `iters` times: the time the host work is calibrated to.
  std::vector<double> calibrationUs(iters);
  for (double& us : calibrationUs) {
    quietBarrier();
    const double start = MPI_Wtime();
    call(spec, shape, buffers);
    PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
    us = (MPI_Wtime() - start) * 1.0e6;
  }
  const uint64_t hostIterations = agreedHostIterations(slowestRankMedianUs(calibrationUs));

  // The timed iterations take (a), (b) and (c) in turn, so a change in the machine's load
  // (other jobs on a shared machine) falls on all three alike.
  std::vector<double> collectiveUs(iters);
  std::vector<double> hostUs(iters);
  std::vector<double> bothUs(iters);
  std::vector<double> returnUs(iters);
  for (size_t i = 0; i < iters; ++i) {
    // (a) The collective alone.
    quietBarrier();
    double start = MPI_Wtime();
    call(spec, shape, buffers);
    PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
    collectiveUs[i] = (MPI_Wtime() - start) * 1.0e6;

    // (b) The host work alone.
    quietBarrier();
    start = MPI_Wtime();
    runHostWork(hostIterations);
    hostUs[i] = (MPI_Wtime() - start) * 1.0e6;

    // (c) Both: call, the host work, synchronize; (r) how long the call took to return.  With
    // the check, the last one starts from a poisoned output, so the check after the loop
    // reads what an overlapped call wrote.
    if (check_ && i + 1 == iters) loadInputs(spec, shape, /*inPlace=*/false);
    quietBarrier();
    start = MPI_Wtime();
    call(spec, shape, buffers);
    const double returned = MPI_Wtime();
    runHostWork(hostIterations);
    PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
    bothUs[i] = (MPI_Wtime() - start) * 1.0e6;
    returnUs[i] = (returned - start) * 1.0e6;
  }
  if (check_) localWrong += countWrongOutputs(spec, shape, buffers);

  long long wrong = -1;
  if (check_) {
    const long long local = static_cast<long long>(localWrong);
    MPI_Allreduce(&local, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  const double a = slowestRankMedianUs(collectiveUs);
  const double b = slowestRankMedianUs(hostUs);
  const double c = slowestRankMedianUs(bothUs);
  const double r = slowestRankMedianUs(returnUs);
  return makeOverlapMeasurement(a, b, c, r, hostIterations, shape.bytes,
                                busBandwidthFactor(spec.collective, ctx_.nranks), wrong);
}

double HetcclBench::measureRoundingError(hetcclComm_t comm, const PatternSpec& spec, const CollectiveShape& shape) {
  ctx_.comm = comm;
  const CallBuffers buffers = buffersFor(shape, sizeof(uint16_t), /*inPlace=*/false);
  std::vector<uint16_t> values(std::max(shape.sendElements, shape.recvElements));
  for (size_t i = 0; i < shape.sendElements; ++i) values[i] = errorInputBits(spec.type, ctx_.rank, i);
  toDevice(sendDevice_, values.data(), shape.sendElements * sizeof(uint16_t));
  call(spec, shape, buffers);
  PERF_HETCCL_CHECK(ctx_.comm, hetcclStreamSynchronize(ctx_.stream));
  fromDevice(values.data(), buffers.recv, shape.recvElements * sizeof(uint16_t));
  // A reduce-scatter's output element i is element rank * count + i of the whole.
  const size_t first = spec.collective == Collective::ReduceScatter ? size_t(ctx_.rank) * shape.count : 0;
  double local = 0;
  for (size_t i = 0; i < shape.recvElements; ++i)
    local = std::max(local, ulpError(spec.type, values[i], exactResult(spec.type, spec.op, ctx_.nranks, first + i)));
  double worst = 0;
  MPI_Allreduce(&local, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

}  // namespace hetccl_perf
