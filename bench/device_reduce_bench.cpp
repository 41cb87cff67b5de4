// How close a device backend's reduction kernels come to the device's own copy bandwidth:
// float32 and bfloat16 sums of one buffer size (256 MiB by default) timed against a
// device-to-device copy of the same size, in one run, through the Device interface exactly as
// hetccl drives it (module loaded by loadDeviceBackend). Bandwidth counts the bytes each
// operation moves: a copy reads and writes the buffer (2x), a reduction reads two and writes
// one (3x); the ratio "vs copy" > ~0.9 means the kernel is memory-bound as it should be.
//
//   hetccl-bench-device-reduce [--backend cuda|hip|host] [--bytes 256M] [--iters 50]
//
// The last lines are "RESULT <name> <GB/s>" for scripts (scripts/gpu-check.sh).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/element.h"
#include "device/backend_loader.h"
#include "device/host/host_device.h"

namespace {

using hetccl::Device;
using hetccl::ElementType;
using hetccl::Status;

void check(const Status& status, const char* what) {
  if (status.isOk()) return;
  std::fprintf(stderr, "device_reduce_bench: %s: %s\n", what, status.message().c_str());
  std::exit(1);
}

// 1.0 in the type's encoding: sums stay normal numbers, so no run hits a slow path.
std::vector<uint8_t> ones(ElementType type, size_t bytes) {
  uint64_t one = 1;
  if (type == ElementType::Float32) one = 0x3f800000;
  if (type == ElementType::Bfloat16) one = 0x3f80;
  const size_t size = hetccl::elementSize(type);
  std::vector<uint8_t> out(bytes);
  for (size_t offset = 0; offset + size <= bytes; offset += size) std::memcpy(out.data() + offset, &one, size);
  return out;
}

// Seconds per operation: `iters` enqueued back to back, one synchronization at the end (its
// cost is amortized, and no host gap is timed between kernels).
template <class Enqueue>
double secondsPerOperation(Device& device, int iters, Enqueue enqueue) {
  for (int i = 0; i < 3; ++i) check(enqueue(), "warm-up");
  check(device.synchronizeStream(nullptr), "synchronize");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) check(enqueue(), "enqueue");
  check(device.synchronizeStream(nullptr), "synchronize");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters;
}

size_t parseBytes(const char* text) {
  char* end = nullptr;
  size_t value = std::strtoull(text, &end, 10);
  if (*end == 'K') value <<= 10;
  if (*end == 'M') value <<= 20;
  if (*end == 'G') value <<= 30;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "cuda";
  size_t bytes = size_t(256) << 20;
  int iters = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--backend")
      backend = argv[i + 1];
    else if (flag == "--bytes")
      bytes = parseBytes(argv[i + 1]);
    else if (flag == "--iters")
      iters = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--backend cuda|hip|host] [--bytes 256M] [--iters 50]\n", argv[0]);
      return 2;
    }
  }
  std::unique_ptr<Device> device;
  if (backend == "host")
    device = hetccl::makeHostDevice();
  else
    check(hetccl::loadDeviceBackend(backend.c_str(), &device), "loading the backend");
  std::printf("# device: %s\n# buffer: %zu bytes, %d iterations\n", device->description().c_str(), bytes, iters);

  void *a = nullptr, *b = nullptr, *dst = nullptr;
  check(device->allocate(&a, bytes), "allocate");
  check(device->allocate(&b, bytes), "allocate");
  check(device->allocate(&dst, bytes), "allocate");

  std::printf("%-22s %12s %16s %10s\n", "operation", "time (us)", "traffic GB/s", "vs copy");
  const double copySeconds =
      secondsPerOperation(*device, iters, [&] { return device->copyAsync(dst, a, bytes, nullptr); });
  const double copyBandwidth = 2.0 * double(bytes) / copySeconds / 1e9;
  std::printf("%-22s %12.1f %16.1f %10.2f\n", "copy device->device", copySeconds * 1e6, copyBandwidth, 1.0);
  std::vector<std::pair<std::string, double>> results{{"copy", copyBandwidth}};

  int failures = 0;
  for (ElementType type : {ElementType::Float32, ElementType::Bfloat16}) {
    const auto input = ones(type, bytes);
    check(device->copyAsync(a, input.data(), bytes, nullptr), "upload");
    check(device->copyAsync(b, input.data(), bytes, nullptr), "upload");
    const size_t count = bytes / hetccl::elementSize(type);
    const double seconds = secondsPerOperation(
        *device, iters, [&] { return device->reduceAsync(dst, a, b, count, type, hetccl::ReduceOp::Sum, nullptr); });
    const double bandwidth = 3.0 * double(bytes) / seconds / 1e9;
    const std::string name = std::string(hetccl::elementTypeName(type)) + " sum";
    std::printf("%-22s %12.1f %16.1f %10.2f\n", name.c_str(), seconds * 1e6, bandwidth, bandwidth / copyBandwidth);
    results.emplace_back(std::string(hetccl::elementTypeName(type)) + "_sum", bandwidth);
    // 1 + 1 = 2 everywhere: a fast kernel that computes nothing must not pass.
    std::vector<uint8_t> got(bytes), expected = ones(type, bytes);
    check(device->copyAsync(got.data(), dst, bytes, nullptr), "download");
    check(device->synchronizeStream(nullptr), "synchronize");
    uint64_t two = 2;
    if (type == ElementType::Float32) two = 0x40000000;
    if (type == ElementType::Bfloat16) two = 0x4000;
    for (size_t offset = 0; offset < bytes; offset += hetccl::elementSize(type))
      std::memcpy(expected.data() + offset, &two, hetccl::elementSize(type));
    if (got != expected) {
      std::printf("# WRONG: %s result is not 2 everywhere\n", name.c_str());
      ++failures;
    }
  }
  for (const auto& result : results) std::printf("RESULT %s %.1f\n", result.first.c_str(), result.second);
  check(device->release(a), "release");
  check(device->release(b), "release");
  check(device->release(dst), "release");
  return failures == 0 ? 0 : 1;
}
