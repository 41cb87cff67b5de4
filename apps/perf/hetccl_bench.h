// Measures one row of the table for hetccl: the check (inputs re-initialised, one call,
// results read back and compared bit for bit) and the timing (warm-ups, then `iters` calls
// timed with MPI_Wtime; the reported time is the slowest rank's mean).  --overlap's rows
// (measureOverlap) use the same buffers and check.  Owns the device
// buffers, allocated once for the largest size, as nccl-tests does, and shared by every
// communicator measured (one per --algo entry): device memory belongs to the process.
#pragma once

#include <hetccl/hetccl.h>

#include <cstddef>
#include <vector>

#include "perf/collective_runner.h"
#include "perf/collective_shape.h"
#include "perf/expected_values.h"
#include "perf/report.h"

namespace hetccl_perf {

class HetcclBench {
 public:
  HetcclBench(const CallContext& ctx, size_t capacityBytes, int warmupIters, int iters, bool check);
  ~HetcclBench();
  HetcclBench(const HetcclBench&) = delete;
  HetcclBench& operator=(const HetcclBench&) = delete;

  // Collective over every rank, on `comm` (one of MPI_COMM_WORLD's hetccl communicators).
  // `wrong` is summed over ranks (or -1 without the check).
  Measurement measure(hetcclComm_t comm, const PatternSpec& spec, const CollectiveShape& shape, bool inPlace);

  // --overlap, out of place: the check, warm-ups, `iters` calls of the collective alone to
  // calibrate the host work to (host_work.h), then `iters` iterations each of (a) the
  // collective alone, (b) the host work alone and (c) call, host work, synchronize, in turn;
  // each after a barrier, each figure the median over iterations of the slowest rank.  The
  // last (c) starts from a poisoned output and is checked too.
  OverlapMeasurement measureOverlap(hetcclComm_t comm, const PatternSpec& spec, const CollectiveShape& shape);

  // --accumulate: one out-of-place call on rounding_error.h's inputs, and the largest error of
  // any output element on any rank, in ulps.
  double measureRoundingError(hetcclComm_t comm, const PatternSpec& spec, const CollectiveShape& shape);

 private:
  struct CallBuffers {
    const void* send;
    void* recv;
  };
  CallBuffers buffersFor(const CollectiveShape& shape, size_t elementSize, bool inPlace) const;
  // Puts the input pattern (and, for the check, poison where the output goes) on the device.
  void loadInputs(const PatternSpec& spec, const CollectiveShape& shape, bool inPlace);
  // One call, then this rank's mismatching output elements.
  size_t checkOnce(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers);
  // This rank's mismatching output elements, as the device holds them now.
  size_t countWrongOutputs(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers);
  double timeCallsUs(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers);
  void warmUp(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers);
  void call(const PatternSpec& spec, const CollectiveShape& shape, const CallBuffers& buffers);
  void toDevice(void* dst, const void* src, size_t bytes);
  void fromDevice(void* dst, const void* src, size_t bytes);

  CallContext ctx_;  // ctx_.comm: the communicator of the measurement in progress
  int warmupIters_;
  int iters_;
  bool check_;
  void* sendDevice_ = nullptr;
  void* recvDevice_ = nullptr;  // also the shared buffer of in-place calls
  std::vector<unsigned char> hostInput_;
  std::vector<unsigned char> hostExpected_;
  std::vector<unsigned char> hostOutput_;
};

}  // namespace hetccl_perf
