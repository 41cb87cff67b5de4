// hostReduce throughput per type against memcpy of the same size, in one run, so the numbers
// say how close the reduction is to memory bandwidth on this machine. Bytes processed count
// what the loop moves: two inputs read and one output written (memcpy: one read, one write).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "base/element.h"
#include "device/host/host_reduce.h"

namespace {

using hetccl::ElementType;

// Per buffer: 64 KiB (all three in L2), 1 MiB (in L3), 16 MiB (mostly DRAM).
void bufferSizes(benchmark::internal::Benchmark* benchmark) {
  for (int64_t bytes : {int64_t(64) << 10, int64_t(1) << 20, int64_t(16) << 20}) benchmark->Arg(bytes);
}

// Page-aligned, like the host device's large allocations: std::vector's adjacent heap blocks
// put the destination a few bytes past the source modulo 4 KiB, where glibc's memcpy is
// pathologically slow on some AMD CPUs, and the baseline would measure that instead.
using Buffer = std::unique_ptr<uint8_t, decltype(&std::free)>;
Buffer pageAlignedBuffer(size_t bytes) {
  auto* memory = static_cast<uint8_t*>(std::aligned_alloc(4096, bytes));
  if (memory == nullptr) std::abort();
  std::memset(memory, 0, bytes);  // touch every page before timing
  return Buffer(memory, &std::free);
}

// Every element is 1 (in the type's encoding): sums stay finite and normal, so no run measures
// a slow path for NaN, infinity or subnormals (a byte fill would make halves subnormal).
Buffer filledWithOnes(ElementType type, size_t bytes) {
  uint64_t one = 1;  // the integers' encoding, little-endian
  if (type == ElementType::Float32) one = 0x3f800000;
  if (type == ElementType::Float16) one = 0x3c00;
  if (type == ElementType::Bfloat16) one = 0x3f80;
  const size_t size = hetccl::elementSize(type);
  Buffer buffer = pageAlignedBuffer(bytes);
  for (size_t offset = 0; offset + size <= bytes; offset += size) std::memcpy(buffer.get() + offset, &one, size);
  return buffer;
}

using ReduceFunction = void (*)(void*, const void*, const void*, size_t, ElementType, hetccl::ReduceOp);

void measureSum(benchmark::State& state, ElementType type, ReduceFunction reduce) {
  const size_t bytes = size_t(state.range(0));
  const size_t count = bytes / hetccl::elementSize(type);
  const Buffer a = filledWithOnes(type, bytes), b = filledWithOnes(type, bytes);
  const Buffer dst = pageAlignedBuffer(bytes);
  for (auto _ : state) {
    reduce(dst.get(), a.get(), b.get(), count, type, hetccl::ReduceOp::Sum);
    benchmark::DoNotOptimize(dst.get());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(3 * bytes));
}

void BM_HostReduceSum(benchmark::State& state, ElementType type) { measureSum(state, type, hetccl::hostReduce); }
BENCHMARK_CAPTURE(BM_HostReduceSum, float32, ElementType::Float32)->Apply(bufferSizes);
BENCHMARK_CAPTURE(BM_HostReduceSum, bfloat16, ElementType::Bfloat16)->Apply(bufferSizes);
BENCHMARK_CAPTURE(BM_HostReduceSum, float16, ElementType::Float16)->Apply(bufferSizes);
BENCHMARK_CAPTURE(BM_HostReduceSum, int32, ElementType::Int32)->Apply(bufferSizes);

// The portable loops alone, for the types whose host kernels are chosen by CPU features: what
// hostReduce runs for them on a CPU without AVX2 and F16C (and ran everywhere before).
void BM_HostReducePortableSum(benchmark::State& state, ElementType type) {
  measureSum(state, type, hetccl::hostReducePortable);
}
BENCHMARK_CAPTURE(BM_HostReducePortableSum, bfloat16, ElementType::Bfloat16)->Apply(bufferSizes);
BENCHMARK_CAPTURE(BM_HostReducePortableSum, float16, ElementType::Float16)->Apply(bufferSizes);

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  const Buffer src = filledWithOnes(ElementType::Uint8, bytes), dst = pageAlignedBuffer(bytes);
  for (auto _ : state) {
    std::memcpy(dst.get(), src.get(), bytes);
    benchmark::DoNotOptimize(dst.get());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(2 * bytes));
}
BENCHMARK(BM_Memcpy)->Apply(bufferSizes);

}  // namespace

BENCHMARK_MAIN();
