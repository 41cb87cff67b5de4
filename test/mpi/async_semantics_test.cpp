// Stream semantics of asynchronous calls: a collective or point-to-point call (or the outermost
// hetcclGroupEnd) returns once its operation is queued; the operation starts only after the
// work enqueued on its stream before the call, and work enqueued there after the call waits for
// it.  So chains of dependent operations are enqueued here with no synchronisation in between,
// and the streams are synchronised once at the end (unless a test says otherwise).  Small
// operations on an idle stream may run inline on the calling thread, large ones go through the
// progress thread, and chains mix both.  The same tests run with HETCCL_PROGRESS=caller
// (everything synchronous), HETCCL_INLINE_BYTES=0 (everything queued) and HETCCL_QUEUE_DEPTH=4
// (calls waiting for room in the queue).
//
// Every result is computed directly here (not by MPI) from inputs of a closed form: unsigned
// sums wrap modulo 2^64 and integer max/min are exact, so the expected bits do not depend on
// the order of reduction.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "mpi_test_support.h"

namespace hetccl_test {
namespace {

// Counts: "small" fits under the default HETCCL_INLINE_BYTES (64 KiB) as uint64, so it may run
// inline; "large" is 8 times that, so it always goes through the progress thread (bigger ones
// would mostly add page faults: a chain has 21 buffers, and CI runs this at up to 8 ranks on
// 2 cores).
constexpr size_t kSmall = 16;
constexpr size_t kLarge = (size_t{1} << 16) + 5;  // 512 KiB of uint64
constexpr size_t kLinks = 20;

const TypeInfo& u64() { return typeInfo(hetcclUint64); }
const TypeInfo& i32() { return typeInfo(hetcclInt32); }

template <typename T>
Bytes asBytes(const std::vector<T>& values) {
  Bytes bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> asValues(const Bytes& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// Rank r's initial element i of buffer `which`: a per-buffer base plus r * kRankStep, so that
// the sum, maximum and minimum over ranks have closed forms.
constexpr uint64_t kRankStep = 100003;
uint64_t baseValue(uint64_t seed, size_t which, size_t i) { return (seed * 1000003 + which * 7919 + i * 31) % 65521; }
uint64_t initValue(uint64_t seed, size_t which, int rank, size_t i) {
  return baseValue(seed, which, i) + static_cast<uint64_t>(rank) * kRankStep;
}
// Over ranks 0..p-1 of initValue.
uint64_t initReduced(hetcclRedOp_t op, uint64_t seed, size_t which, int p, size_t i) {
  const uint64_t base = baseValue(seed, which, i), n = static_cast<uint64_t>(p);
  switch (op) {
    case hetcclMax: return base + (n - 1) * kRankStep;
    case hetcclMin: return base;
    default: return n * base + kRankStep * (n * (n - 1) / 2);
  }
}
std::vector<uint64_t> initBuffer(uint64_t seed, size_t which, int rank, size_t count) {
  std::vector<uint64_t> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = initValue(seed, which, rank, i);
  return values;
}

std::string where(const char* test, const std::string& detail) {
  const CommPair& w = world();
  return std::string(test) + " " + detail + " nranks=" + std::to_string(w.size()) + " rank=" + std::to_string(w.rank());
}

void expectNoAsyncError(hetcclComm_t comm, const std::string& context) {
  hetcclResult_t asyncError = hetcclInternalError;
  EXPECT_EQ(hetcclCommGetAsyncError(comm, &asyncError), hetcclSuccess) << context;
  EXPECT_EQ(asyncError, hetcclSuccess) << context << ": " << hetcclGetLastError(comm);
}

void expectSynchronized(hetcclStream_t stream, const std::string& context) {
  EXPECT_EQ(hetcclStreamSynchronize(stream), hetcclSuccess) << context << ": stream synchronise";
}

// A stream made for one test.
class OwnStream {
 public:
  OwnStream() { EXPECT_EQ(hetcclStreamCreate(&stream_), hetcclSuccess); }
  ~OwnStream() {
    if (stream_ != nullptr) {
      EXPECT_EQ(hetcclStreamDestroy(stream_), hetcclSuccess);
    }
  }
  OwnStream(const OwnStream&) = delete;
  OwnStream& operator=(const OwnStream&) = delete;
  hetcclStream_t get() const { return stream_; }

 private:
  hetcclStream_t stream_ = nullptr;
};

// A second communicator over MPI_COMM_WORLD (hetccl duplicates it), destroyed with the object
// unless destroy() was called.
class SecondWorldComm {
 public:
  SecondWorldComm() {
    const hetcclResult_t r = hetcclCommInitMPI(&comm_, MPI_COMM_WORLD, nullptr);
    EXPECT_EQ(r, hetcclSuccess) << "hetcclCommInitMPI: " << hetcclGetLastError(nullptr);
    if (r != hetcclSuccess) comm_ = nullptr;
  }
  ~SecondWorldComm() { destroy(); }
  SecondWorldComm(const SecondWorldComm&) = delete;
  SecondWorldComm& operator=(const SecondWorldComm&) = delete;
  hetcclComm_t get() const { return comm_; }
  void destroy() {
    if (comm_ == nullptr) return;
    EXPECT_EQ(hetcclCommDestroy(comm_), hetcclSuccess);
    comm_ = nullptr;
  }

 private:
  hetcclComm_t comm_ = nullptr;
};

// A chain of dependent sum all-reduces of uint64: link k reads buffer k and writes buffer k+1
// (out of place), or reads and writes buffer 0 (in place), over its own count, so that a link
// longer than the one before also reads elements no earlier link wrote.  Every buffer starts
// with rank-dependent values; once written it holds the same values on every rank, and the
// next sum multiplies them by the rank count.
class AllReduceChain {
 public:
  AllReduceChain(std::vector<size_t> counts, bool inPlace) : counts_(std::move(counts)), inPlace_(inPlace) {
    elements_ = *std::max_element(counts_.begin(), counts_.end());
    const size_t buffers = inPlace_ ? 1 : counts_.size() + 1;
    for (size_t j = 0; j < buffers; ++j) {
      buffers_.push_back(std::make_unique<DeviceBuffer>(elements_ * sizeof(uint64_t)));
      buffers_.back()->upload(asBytes(initBuffer(seed_, j, world().rank(), elements_)));
    }
  }

  size_t links() const { return counts_.size(); }
  void* buffer(size_t j) const { return buffers_[j]->data(); }
  Bytes download(size_t j) const { return buffers_[j]->download(); }

  // Enqueues link k on `comm` and `stream` (any communicator over the world's ranks).
  void issue(size_t k, hetcclComm_t comm, hetcclStream_t stream) const {
    void* in = buffers_[inPlace_ ? 0 : k]->data();
    void* out = buffers_[inPlace_ ? 0 : k + 1]->data();
    const hetcclResult_t r = hetcclAllReduce(in, out, counts_[k], hetcclUint64, hetcclSum, comm, stream);
    EXPECT_EQ(r, hetcclSuccess) << "link " << k << " count " << counts_[k] << ": " << hetcclGetLastError(comm);
  }

  void issueAll(hetcclComm_t comm, hetcclStream_t stream) const {
    for (size_t k = 0; k < links(); ++k) issue(k, comm, stream);
  }

  // Once the chain's streams have been synchronised: every buffer against the direct result.
  void check(const std::string& context) const {
    const int p = world().size(), rank = world().rank();
    // mine: this rank's expected buffer; sum: the sum of that buffer over the ranks.
    std::vector<uint64_t> mine = initBuffer(seed_, 0, rank, elements_), sum(elements_);
    for (size_t i = 0; i < elements_; ++i) sum[i] = initReduced(hetcclSum, seed_, 0, p, i);
    if (!inPlace_) expectBuffer(0, mine, context);
    for (size_t k = 0; k < links(); ++k) {
      const size_t written = inPlace_ ? 0 : k + 1;
      for (size_t i = 0; i < elements_; ++i) {
        if (i < counts_[k]) {
          mine[i] = sum[i];
          sum[i] = static_cast<uint64_t>(p) * mine[i];
        } else if (!inPlace_) {  // untouched since the upload
          mine[i] = initValue(seed_, written, rank, i);
          sum[i] = initReduced(hetcclSum, seed_, written, p, i);
        }
      }
      if (!inPlace_) expectBuffer(written, mine, context + " after link " + std::to_string(k));
    }
    if (inPlace_) expectBuffer(0, mine, context + " after the last link");
  }

 private:
  void expectBuffer(size_t j, const std::vector<uint64_t>& expected, const std::string& context) const {
    expectSameBits(u64(), asBytes(expected), buffers_[j]->download(), context + " (buffer " + std::to_string(j) + ")");
    EXPECT_TRUE(buffers_[j]->guardsIntact()) << context << ": write outside buffer " << j;
  }

  std::vector<size_t> counts_;
  bool inPlace_;
  size_t elements_ = 0;
  uint64_t seed_ = nextSeed();
  std::vector<std::unique_ptr<DeviceBuffer>> buffers_;
};

std::vector<size_t> uniformCounts(size_t count) { return std::vector<size_t>(kLinks, count); }
std::vector<size_t> alternatingCounts(size_t first, size_t second) {
  std::vector<size_t> counts(kLinks);
  for (size_t k = 0; k < kLinks; ++k) counts[k] = k % 2 == 0 ? first : second;
  return counts;
}

struct ChainShape {
  const char* name;
  std::vector<size_t> counts;
};

std::vector<ChainShape> chainShapes() {
  return {{"small", uniformCounts(kSmall)},
          {"large", uniformCounts(kLarge)},
          {"small-large", alternatingCounts(kSmall, kLarge)}};
}

// 1 and 2: 20 dependent all-reduces on one stream, then one synchronise.
TEST(AsyncSemantics, ChainOutOfPlaceOnOneStream) {
  for (const ChainShape& shape : chainShapes()) {
    const std::string ctx = where("ChainOutOfPlace", shape.name);
    AllReduceChain chain(shape.counts, false);
    chain.issueAll(world().comm, userStream());
    expectSynchronized(userStream(), ctx);
    chain.check(ctx);
  }
  expectNoAsyncError(world().comm, "ChainOutOfPlaceOnOneStream");
}

TEST(AsyncSemantics, ChainInPlaceOnOneStream) {
  for (const ChainShape& shape : chainShapes()) {
    const std::string ctx = where("ChainInPlace", shape.name);
    AllReduceChain chain(shape.counts, true);
    chain.issueAll(world().comm, userStream());
    expectSynchronized(userStream(), ctx);
    chain.check(ctx);
  }
  expectNoAsyncError(world().comm, "ChainInPlaceOnOneStream");
}

// 8: the blocking copies run on the default stream, after the work enqueued there (as cudaMemcpy
// on CUDA's legacy default stream): a chain enqueued on the default stream is complete when a
// download reads it, with no synchronise at all.
TEST(AsyncSemantics, ChainOnDefaultStreamSeenByBlockingCopies) {
  for (bool inPlace : {false, true}) {
    const std::string ctx = where("ChainOnDefaultStream", inPlace ? "small-large in place" : "small-large");
    AllReduceChain chain(alternatingCounts(kSmall, kLarge), inPlace);
    chain.issueAll(world().comm, nullptr);
    chain.check(ctx);
  }
  expectNoAsyncError(world().comm, "ChainOnDefaultStreamSeenByBlockingCopies");
}

// 8: and an upload on the default stream waits for a queued collective that reads the buffer it
// overwrites (write after read): the collective sees the old contents, the next one the new.
TEST(AsyncSemantics, BlockingUploadWaitsForQueuedReaderOnDefaultStream) {
  const int p = world().size(), rank = world().rank();
  for (size_t count : {kSmall, kLarge}) {
    const std::string ctx = where("UploadAfterReader", "count=" + std::to_string(count));
    const uint64_t seed = nextSeed();
    const size_t bytes = count * sizeof(uint64_t);
    DeviceBuffer input(bytes), first(bytes), second(bytes);
    input.upload(asBytes(initBuffer(seed, 0, rank, count)));
    EXPECT_EQ(hetcclAllReduce(input.data(), first.data(), count, hetcclUint64, hetcclMax, world().comm, nullptr),
              hetcclSuccess)
        << ctx;
    input.upload(asBytes(initBuffer(seed, 1, rank, count)));
    EXPECT_EQ(hetcclAllReduce(input.data(), second.data(), count, hetcclUint64, hetcclMin, world().comm, nullptr),
              hetcclSuccess)
        << ctx;
    std::vector<uint64_t> expectFirst(count), expectSecond(count);
    for (size_t i = 0; i < count; ++i) {
      expectFirst[i] = initReduced(hetcclMax, seed, 0, p, i);
      expectSecond[i] = initReduced(hetcclMin, seed, 1, p, i);
    }
    expectSameBits(u64(), asBytes(expectFirst), first.download(), ctx + " (before the upload)");
    expectSameBits(u64(), asBytes(expectSecond), second.download(), ctx + " (after the upload)");
  }
  expectNoAsyncError(world().comm, "BlockingUploadWaitsForQueuedReaderOnDefaultStream");
}

// Dependent operations of every collective on one stream: reduce-scatter, all-gather, all-reduce,
// all-to-all, reduce, broadcast and an in-place all-reduce, each reading the previous output.
TEST(AsyncSemantics, ChainOfDifferentCollectives) {
  const int p = world().size(), rank = world().rank();
  const size_t n = static_cast<size_t>(p);
  const int root = p - 1;
  for (size_t c : {size_t{61}, size_t{16 * 1024 + 3}}) {
    const std::string ctx = where("ChainOfDifferentCollectives", "count=" + std::to_string(c));
    const uint64_t seed = nextSeed();
    const size_t all = n * c;
    DeviceBuffer x(all * 8), b1(c * 8), b2(all * 8), b3(all * 8), b4(all * 8), b5(all * 8), b6(all * 8);
    x.upload(asBytes(initBuffer(seed, 0, rank, all)));
    b5.upload(asBytes(initBuffer(seed, 5, rank, all)));  // only the root's is written
    hetcclComm_t comm = world().comm;
    hetcclStream_t s = userStream();
    EXPECT_EQ(hetcclReduceScatter(x.data(), b1.data(), c, hetcclUint64, hetcclSum, comm, s), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclAllGather(b1.data(), b2.data(), c, hetcclUint64, comm, s), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclAllReduce(b2.data(), b3.data(), all, hetcclUint64, hetcclSum, comm, s), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclAlltoAll(b3.data(), b4.data(), c, hetcclUint64, comm, s), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclReduce(b4.data(), b5.data(), all, hetcclUint64, hetcclSum, root, comm, s), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclBroadcast(b5.data(), b6.data(), all, hetcclUint64, root, comm, s), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclAllReduce(b6.data(), b6.data(), all, hetcclUint64, hetcclSum, comm, s), hetcclSuccess) << ctx;
    expectSynchronized(s, ctx);

    // s0: the elementwise sum of every rank's x.
    std::vector<uint64_t> s0(all), e1(c), e3(all), e4(all), e5(all), e6(all);
    for (size_t k = 0; k < all; ++k) s0[k] = initReduced(hetcclSum, seed, 0, p, k);
    for (size_t i = 0; i < c; ++i) e1[i] = s0[static_cast<size_t>(rank) * c + i];
    for (size_t k = 0; k < all; ++k) e3[k] = n * s0[k];  // b2 == s0 on every rank
    // Block j of b4 is rank j's block `rank` of b3, which is the same on every rank.
    for (size_t k = 0; k < all; ++k) e4[k] = e3[static_cast<size_t>(rank) * c + k % c];
    // Root's b5: the sum over ranks j of b4 on j, i.e. of e3 at block j.
    for (size_t k = 0; k < all; ++k) {
      uint64_t total = 0;
      for (size_t j = 0; j < n; ++j) total += e3[j * c + k % c];
      e5[k] = total;
      e6[k] = n * total;
    }
    expectSameBits(u64(), asBytes(e1), b1.download(), ctx + " (reduce-scatter)");
    expectSameBits(u64(), asBytes(s0), b2.download(), ctx + " (all-gather)");
    expectSameBits(u64(), asBytes(e3), b3.download(), ctx + " (all-reduce)");
    expectSameBits(u64(), asBytes(e4), b4.download(), ctx + " (all-to-all)");
    if (rank == root) expectSameBits(u64(), asBytes(e5), b5.download(), ctx + " (reduce at the root)");
    expectSameBits(u64(), asBytes(e6), b6.download(), ctx + " (broadcast, then all-reduce in place)");
    for (const DeviceBuffer* b : {&x, &b1, &b2, &b3, &b4, &b5, &b6})
      EXPECT_TRUE(b->guardsIntact()) << ctx << ": write outside a buffer";
  }
  expectNoAsyncError(world().comm, "ChainOfDifferentCollectives");
}

// Many small all-reduces' buffers: int32 inputs with this rank's values uploaded, and an
// output of garbage, each call on its own slice.
struct SlicedInt32Calls {
  template <typename Value>
  SlicedInt32Calls(size_t elements, int rank, uint64_t seed, Value value)
      : inputs(elements), in(elements * 4), out(elements * 4) {
    for (size_t k = 0; k < elements; ++k) inputs[k] = value(rank, k);
    in.upload(asBytes(inputs));
    out.upload(makeGarbage(out.bytes(), rank, seed));
  }
  std::vector<int32_t> inputs;
  DeviceBuffer in, out;
};

// 3: thousands of small all-reduces, each into its own slice of one output buffer, enqueued
// behind a large one (so that the first of them queue up, and later ones may run inline once
// the queue has drained), then one synchronise.
TEST(AsyncSemantics, ThousandsOfSmallAllReduces) {
  constexpr size_t kOps = 3000, kCount = 8;
  constexpr hetcclRedOp_t kReduceOps[] = {hetcclSum, hetcclMax, hetcclMin};
  const int p = world().size(), rank = world().rank();
  const std::string ctx = where("ThousandsOfSmallAllReduces", "3000 x 8 int32");
  const uint64_t seed = nextSeed();
  auto value = [&](int r, size_t k) { return static_cast<int32_t>((seed * 13 + k * 7) % 1999) - 999 + r * 2000; };

  SlicedInt32Calls calls(kOps * kCount, rank, seed, value);
  const std::vector<int32_t>& inputs = calls.inputs;
  DeviceBuffer &in = calls.in, &out = calls.out;
  AllReduceChain large(std::vector<size_t>{kLarge}, false);

  hetcclStream_t s = userStream();
  large.issueAll(world().comm, s);
  size_t failures = 0;
  for (size_t j = 0; j < kOps; ++j) {
    const size_t offset = j * kCount * 4;
    const hetcclResult_t r =
        hetcclAllReduce(in.at(offset), out.at(offset), kCount, hetcclInt32, kReduceOps[j % 3], world().comm, s);
    if (r != hetcclSuccess && ++failures <= 3) ADD_FAILURE() << ctx << ": call " << j << ": " << r;
  }
  expectSynchronized(s, ctx);

  std::vector<int32_t> expected(kOps * kCount);
  for (size_t k = 0; k < expected.size(); ++k) {
    const hetcclRedOp_t op = kReduceOps[(k / kCount) % 3];
    int32_t result = value(0, k);
    for (int r = 1; r < p; ++r) {
      const int32_t v = value(r, k);
      result = op == hetcclSum ? result + v : op == hetcclMax ? std::max(result, v) : std::min(result, v);
    }
    expected[k] = result;
  }
  expectSameBits(i32(), asBytes(expected), out.download(), ctx);
  expectSameBits(i32(), asBytes(inputs), in.download(), ctx + " (send buffer modified)");
  EXPECT_TRUE(in.guardsIntact() && out.guardsIntact()) << ctx << ": write outside a buffer";
  large.check(ctx + " (the large all-reduce before them)");
  expectNoAsyncError(world().comm, "ThousandsOfSmallAllReduces");
}

// 3b: more distinct calls than a communicator's plan cache holds (core/plan_cache.h: 256),
// queued behind a large all-reduce that rank 0 joins late, so that on the other ranks the cache
// starts over while the first of them still wait: each queued run must hold its own plan
// (core/dispatch.cpp, PlanRun::planOwner).  One that did not would run a freed plan (caught
// by AddressSanitizer, mpi_collectives_np3 in scripts/run-asan-tests.sh).
TEST(AsyncSemantics, QueuedRunsOutliveTheirPlanCacheEntries) {
  constexpr size_t kOps = 300;  // counts 1..300: as many plans
  const int p = world().size(), rank = world().rank();
  const std::string ctx = where("QueuedRunsOutliveTheirPlanCacheEntries", "300 x 1..300 int32");
  const uint64_t seed = nextSeed();
  auto value = [&](int r, size_t k) { return static_cast<int32_t>((seed * 11 + k * 5) % 1999) - 999 + r * 2000; };
  auto offsetOf = [](size_t j) { return j * (j + 1) / 2; };  // elements before call j's slice

  SlicedInt32Calls calls(offsetOf(kOps), rank, seed, value);
  const std::vector<int32_t>& inputs = calls.inputs;
  DeviceBuffer &in = calls.in, &out = calls.out;
  AllReduceChain large(std::vector<size_t>{kLarge}, false);

  hetcclStream_t s = userStream();
  if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  large.issueAll(world().comm, s);
  size_t failures = 0;
  for (size_t j = 0; j < kOps; ++j) {
    const size_t offset = offsetOf(j) * 4;
    const hetcclResult_t r =
        hetcclAllReduce(in.at(offset), out.at(offset), j + 1, hetcclInt32, hetcclSum, world().comm, s);
    if (r != hetcclSuccess && ++failures <= 3) ADD_FAILURE() << ctx << ": call " << j << ": " << r;
  }
  expectSynchronized(s, ctx);

  std::vector<int32_t> expected(inputs.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    int32_t sum = 0;
    for (int r = 0; r < p; ++r) sum += value(r, k);
    expected[k] = sum;
  }
  expectSameBits(i32(), asBytes(expected), out.download(), ctx);
  EXPECT_TRUE(in.guardsIntact() && out.guardsIntact()) << ctx << ": write outside a buffer";
  large.check(ctx + " (the large all-reduce before them)");
  expectNoAsyncError(world().comm, "QueuedRunsOutliveTheirPlanCacheEntries");
}

// 4: independent chains on two streams of one communicator (and a third on the default
// stream), their calls interleaved.
TEST(AsyncSemantics, TwoStreamsOfOneCommunicator) {
  OwnStream other;
  const std::string ctx = where("TwoStreams", "");
  AllReduceChain a(alternatingCounts(kSmall, kLarge), false);
  AllReduceChain b(alternatingCounts(kLarge, kSmall), true);
  AllReduceChain c(uniformCounts(kSmall), false);
  for (size_t k = 0; k < kLinks; ++k) {
    a.issue(k, world().comm, userStream());
    b.issue(k, world().comm, other.get());
    c.issue(k, world().comm, nullptr);
  }
  expectSynchronized(other.get(), ctx);
  expectSynchronized(userStream(), ctx);
  a.check(ctx + " chain on the test suite's stream");
  b.check(ctx + " chain on a second stream");
  c.check(ctx + " small chain on the default stream");  // downloads wait for it
  expectNoAsyncError(world().comm, "TwoStreamsOfOneCommunicator");
}

// 5: one chain on one stream, its links alternating between two communicators over the same
// ranks: each link depends on the other communicator's last one.
TEST(AsyncSemantics, TwoCommunicatorsOnOneStream) {
  SecondWorldComm second;
  const ChainShape shapes[] = {{"small-large", alternatingCounts(kSmall, kLarge)},
                               {"large-small", alternatingCounts(kLarge, kSmall)}};
  for (const ChainShape& shape : shapes) {
    for (bool inPlace : {false, true}) {
      const std::string ctx = where("TwoCommunicators", std::string(shape.name) + (inPlace ? " in place" : ""));
      AllReduceChain chain(shape.counts, inPlace);
      for (size_t k = 0; k < chain.links(); ++k) chain.issue(k, k % 2 == 0 ? world().comm : second.get(), userStream());
      expectSynchronized(userStream(), ctx);
      chain.check(ctx);
    }
  }
  expectNoAsyncError(world().comm, "TwoCommunicatorsOnOneStream (world)");
  expectNoAsyncError(second.get(), "TwoCommunicatorsOnOneStream (second)");
}

// 6: groups of several all-reduces and a ring of sends and receives, three groups back to back,
// then one synchronise.
TEST(AsyncSemantics, GroupsOfAllReducesAndRing) {
  const int p = world().size(), rank = world().rank();
  const int next = (rank + 1) % p, prev = (rank + p - 1) % p;
  constexpr size_t kRing = 64 * 1024 + 1;
  struct Group {
    uint64_t seed = nextSeed();
    DeviceBuffer smallIn{kSmall * 8}, smallOut{kSmall * 8}, largeIn{kLarge * 8}, largeOut{kLarge * 8};
    DeviceBuffer inPlace{1021 * 8}, send{kRing * 8}, recv{kRing * 8};
  };
  std::vector<std::unique_ptr<Group>> groups;
  for (int g = 0; g < 3; ++g) {
    groups.push_back(std::make_unique<Group>());
    Group& b = *groups.back();
    b.smallIn.upload(asBytes(initBuffer(b.seed, 0, rank, kSmall)));
    b.largeIn.upload(asBytes(initBuffer(b.seed, 1, rank, kLarge)));
    b.inPlace.upload(asBytes(initBuffer(b.seed, 2, rank, 1021)));
    b.send.upload(asBytes(initBuffer(b.seed, 3, rank, kRing)));
  }
  hetcclComm_t comm = world().comm;
  hetcclStream_t s = userStream();
  for (int g = 0; g < 3; ++g) {
    Group& b = *groups[static_cast<size_t>(g)];
    const std::string ctx = where("GroupsOfAllReducesAndRing", "group " + std::to_string(g));
    EXPECT_EQ(hetcclGroupStart(), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclAllReduce(b.smallIn.data(), b.smallOut.data(), kSmall, hetcclUint64, hetcclSum, comm, s),
              hetcclSuccess)
        << ctx;
    EXPECT_EQ(hetcclSend(b.send.data(), kRing, hetcclUint64, next, comm, s), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclAllReduce(b.largeIn.data(), b.largeOut.data(), kLarge, hetcclUint64, hetcclMax, comm, s),
              hetcclSuccess)
        << ctx;
    EXPECT_EQ(hetcclRecv(b.recv.data(), kRing, hetcclUint64, prev, comm, s), hetcclSuccess) << ctx;
    EXPECT_EQ(hetcclAllReduce(b.inPlace.data(), b.inPlace.data(), 1021, hetcclUint64, hetcclMin, comm, s),
              hetcclSuccess)
        << ctx;
    EXPECT_EQ(hetcclGroupEnd(), hetcclSuccess) << ctx << ": " << hetcclGetLastError(comm);
  }
  expectSynchronized(s, where("GroupsOfAllReducesAndRing", ""));
  for (int g = 0; g < 3; ++g) {
    Group& b = *groups[static_cast<size_t>(g)];
    const std::string ctx = where("GroupsOfAllReducesAndRing", "group " + std::to_string(g));
    std::vector<uint64_t> small(kSmall), large(kLarge), inPlace(1021);
    for (size_t i = 0; i < kSmall; ++i) small[i] = initReduced(hetcclSum, b.seed, 0, p, i);
    for (size_t i = 0; i < kLarge; ++i) large[i] = initReduced(hetcclMax, b.seed, 1, p, i);
    for (size_t i = 0; i < 1021; ++i) inPlace[i] = initReduced(hetcclMin, b.seed, 2, p, i);
    expectSameBits(u64(), asBytes(small), b.smallOut.download(), ctx + " (small all-reduce)");
    expectSameBits(u64(), asBytes(large), b.largeOut.download(), ctx + " (large all-reduce)");
    expectSameBits(u64(), asBytes(inPlace), b.inPlace.download(), ctx + " (in-place all-reduce)");
    expectSameBits(u64(), asBytes(initBuffer(b.seed, 3, prev, kRing)), b.recv.download(), ctx + " (ring receive)");
    for (const DeviceBuffer* d : {&b.smallIn, &b.smallOut, &b.largeIn, &b.largeOut, &b.inPlace, &b.send, &b.recv})
      EXPECT_TRUE(d->guardsIntact()) << ctx << ": write outside a buffer";
  }
  expectNoAsyncError(world().comm, "GroupsOfAllReducesAndRing");
}

// 6: groups whose results feed the next group and the collectives between them: group g sends
// ring buffer g-1 on and receives ring buffer g, and adds one link to an all-reduce chain; after
// each group a broadcast from rank 0 reads the ring buffer just received.  Nothing is
// synchronised until the end.
TEST(AsyncSemantics, GroupResultsFeedLaterOperations) {
  const int p = world().size(), rank = world().rank();
  const int next = (rank + 1) % p, prev = (rank + p - 1) % p;
  constexpr size_t kGroups = 6;
  for (size_t ringCount : {size_t{61}, size_t{64 * 1024 + 1}}) {
    const std::string ctx = where("GroupResultsFeedLaterOperations", "ring count=" + std::to_string(ringCount));
    const uint64_t seed = nextSeed();
    std::vector<size_t> counts = alternatingCounts(kSmall, kLarge);
    counts.resize(kGroups);
    AllReduceChain chain(counts, false);
    std::vector<std::unique_ptr<DeviceBuffer>> ring, broadcast;
    for (size_t g = 0; g <= kGroups; ++g) {
      ring.push_back(std::make_unique<DeviceBuffer>(ringCount * 8));
      broadcast.push_back(std::make_unique<DeviceBuffer>(ringCount * 8));
    }
    ring[0]->upload(asBytes(initBuffer(seed, 0, rank, ringCount)));
    hetcclComm_t comm = world().comm;
    hetcclStream_t s = userStream();
    for (size_t g = 1; g <= kGroups; ++g) {
      EXPECT_EQ(hetcclGroupStart(), hetcclSuccess) << ctx;
      EXPECT_EQ(hetcclRecv(ring[g]->data(), ringCount, hetcclUint64, prev, comm, s), hetcclSuccess) << ctx;
      chain.issue(g - 1, comm, s);
      EXPECT_EQ(hetcclSend(ring[g - 1]->data(), ringCount, hetcclUint64, next, comm, s), hetcclSuccess) << ctx;
      EXPECT_EQ(hetcclGroupEnd(), hetcclSuccess) << ctx << " group " << g << ": " << hetcclGetLastError(comm);
      EXPECT_EQ(hetcclBroadcast(ring[g]->data(), broadcast[g]->data(), ringCount, hetcclUint64, 0, comm, s),
                hetcclSuccess)
          << ctx;
    }
    expectSynchronized(s, ctx);
    for (size_t g = 1; g <= kGroups; ++g) {
      // After g steps round the ring, rank r holds rank r-g's original data.
      const size_t n = static_cast<size_t>(p);
      const int from = static_cast<int>((static_cast<size_t>(rank) + g * n - g) % n);
      const int rootFrom = static_cast<int>((g * n - g) % n);
      expectSameBits(u64(), asBytes(initBuffer(seed, 0, from, ringCount)), ring[g]->download(),
                     ctx + " (ring buffer after group " + std::to_string(g) + ")");
      expectSameBits(u64(), asBytes(initBuffer(seed, 0, rootFrom, ringCount)), broadcast[g]->download(),
                     ctx + " (broadcast after group " + std::to_string(g) + ")");
      EXPECT_TRUE(ring[g]->guardsIntact() && broadcast[g]->guardsIntact()) << ctx << ": write outside a buffer";
    }
    chain.check(ctx + " (all-reduce chain through the groups)");
  }
  expectNoAsyncError(world().comm, "GroupResultsFeedLaterOperations");
}

// 7: point-to-point outside groups, in pairs (even rank r with r+1; with an odd rank count the
// last rank has no partner): the even rank sends, the odd rank receives; every rank then sums
// its receive buffer in an all-reduce; the odd rank sends what it received back, and the even
// rank receives it.  Each step reads what the one before wrote, on the same stream.
TEST(AsyncSemantics, PointToPointOutsideGroupsFeedCollectives) {
  const int p = world().size(), rank = world().rank();
  const int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  const bool paired = partner < p;
  hetcclComm_t comm = world().comm;
  hetcclStream_t s = userStream();
  for (size_t count : {size_t{61}, kLarge}) {
    const std::string ctx = where("PointToPointOutsideGroups", "count=" + std::to_string(count));
    const uint64_t seed = nextSeed();
    const size_t bytes = count * 8;
    DeviceBuffer send(bytes), recv(bytes), sum(bytes), back(bytes);
    send.upload(asBytes(initBuffer(seed, 0, rank, count)));
    recv.upload(asBytes(initBuffer(seed, 1, rank, count)));
    back.upload(asBytes(initBuffer(seed, 2, rank, count)));
    if (paired && rank % 2 == 0) {
      EXPECT_EQ(hetcclSend(send.data(), count, hetcclUint64, partner, comm, s), hetcclSuccess) << ctx;
    } else if (paired) {
      EXPECT_EQ(hetcclRecv(recv.data(), count, hetcclUint64, partner, comm, s), hetcclSuccess) << ctx;
    }
    EXPECT_EQ(hetcclAllReduce(recv.data(), sum.data(), count, hetcclUint64, hetcclSum, comm, s), hetcclSuccess) << ctx;
    if (paired && rank % 2 == 0) {
      EXPECT_EQ(hetcclRecv(back.data(), count, hetcclUint64, partner, comm, s), hetcclSuccess) << ctx;
    } else if (paired) {
      EXPECT_EQ(hetcclSend(recv.data(), count, hetcclUint64, partner, comm, s), hetcclSuccess) << ctx;
    }
    expectSynchronized(s, ctx);

    // Odd ranks with a partner received rank r-1's send buffer; the others kept their own.
    std::vector<uint64_t> expectedSum(count, 0);
    for (int r = 0; r < p; ++r) {
      const bool receives = r % 2 == 1;
      for (size_t i = 0; i < count; ++i)
        expectedSum[i] += receives ? initValue(seed, 0, r - 1, i) : initValue(seed, 1, r, i);
    }
    expectSameBits(u64(), asBytes(expectedSum), sum.download(), ctx + " (all-reduce of the receive buffers)");
    if (paired && rank % 2 == 1)
      expectSameBits(u64(), asBytes(initBuffer(seed, 0, partner, count)), recv.download(), ctx + " (received)");
    if (paired && rank % 2 == 0)
      expectSameBits(u64(), asBytes(initBuffer(seed, 0, rank, count)), back.download(), ctx + " (sent back)");
    for (const DeviceBuffer* d : {&send, &recv, &sum, &back})
      EXPECT_TRUE(d->guardsIntact()) << ctx << ": write outside a buffer";
  }
  expectNoAsyncError(world().comm, "PointToPointOutsideGroupsFeedCollectives");
}

// 9: destroying a communicator right after enqueueing work on it lets that work finish: the
// streams, synchronised after the destroy, hold the chains' results.
TEST(AsyncSemantics, DestroyRightAfterEnqueueingCompletesTheWork) {
  OwnStream own;
  const std::string ctx = where("DestroyAfterEnqueueing", "");
  AllReduceChain outOfPlace(alternatingCounts(kSmall, kLarge), false);
  AllReduceChain inPlace(uniformCounts(kLarge), true);
  // Links alternating between the world and the doomed communicator: the world's later links
  // wait for the doomed one's work on the stream, and its work for the world's.
  AllReduceChain shared(alternatingCounts(kLarge, kSmall), false);
  SecondWorldComm comm;
  for (size_t k = 0; k < kLinks; ++k) {
    outOfPlace.issue(k, comm.get(), own.get());
    inPlace.issue(k, comm.get(), userStream());
  }
  OwnStream third;
  for (size_t k = 0; k < kLinks; ++k) shared.issue(k, k % 2 == 0 ? comm.get() : world().comm, third.get());
  comm.destroy();
  expectSynchronized(own.get(), ctx);
  expectSynchronized(userStream(), ctx);
  expectSynchronized(third.get(), ctx);
  outOfPlace.check(ctx + " small-large chain");
  inPlace.check(ctx + " large chain in place on a second stream");
  shared.check(ctx + " chain shared with the world communicator");
  expectNoAsyncError(world().comm, "DestroyRightAfterEnqueueingCompletesTheWork");
}

// NCCL: "NCCL allows for using multiple streams within a group call. This will enforce a stream
// dependency of all streams before the NCCL kernel starts and block all streams until the NCCL
// kernel completes" (CUDA Stream Semantics: mixing multiple streams within the same group), and
// hetccl.h promises NCCL's groups.  Work of a second communicator on stream B shows whether a
// group of the world's with operations on streams A and B joins them:
//   - a group operation on stream A must not start before earlier work on stream B;
//   - later work on stream B must not start before the group operation on stream A finishes.
// hetccl orders every operation of a group on all of the group's streams (core/group.cpp), and
// runs one inline only when all of them are idle.
TEST(AsyncSemantics, GroupOnTwoStreamsWaitsForEarlierWorkOnBoth) {
  const uint64_t n = static_cast<uint64_t>(world().size());
  const std::string ctx = where("GroupOnTwoStreamsWaitsForEarlierWork", "");
  OwnStream a, b;
  SecondWorldComm second;
  // X: the last buffer of a chain of large all-reduces of the second communicator on stream B.
  AllReduceChain producer(std::vector<size_t>(6, kLarge), false);
  DeviceBuffer y(kLarge * 8), small(kSmall * 8);
  small.upload(asBytes(initBuffer(nextSeed(), 0, world().rank(), kSmall)));
  producer.issueAll(second.get(), b.get());
  EXPECT_EQ(hetcclGroupStart(), hetcclSuccess);
  EXPECT_EQ(hetcclAllReduce(producer.buffer(6), y.data(), kLarge, hetcclUint64, hetcclSum, world().comm, a.get()),
            hetcclSuccess);
  EXPECT_EQ(hetcclAllReduce(small.data(), small.data(), kSmall, hetcclUint64, hetcclMax, world().comm, b.get()),
            hetcclSuccess);
  EXPECT_EQ(hetcclGroupEnd(), hetcclSuccess) << hetcclGetLastError(world().comm);
  expectSynchronized(a.get(), ctx);
  expectSynchronized(b.get(), ctx);
  producer.check(ctx + " (the chain on stream B)");
  // X is the same on every rank: its sum over the ranks multiplies it by the rank count.
  std::vector<uint64_t> expected = asValues<uint64_t>(producer.download(6));
  for (uint64_t& v : expected) v *= n;
  expectSameBits(u64(), asBytes(expected), y.download(), ctx + " (the group's all-reduce on A read X, written on B)");
  expectNoAsyncError(world().comm, ctx);
  expectNoAsyncError(second.get(), ctx);
}

TEST(AsyncSemantics, GroupOnTwoStreamsHoldsBackLaterWorkOnBoth) {
  const int p = world().size();
  const uint64_t n = static_cast<uint64_t>(p);
  const std::string ctx = where("GroupOnTwoStreamsHoldsBackLaterWork", "");
  OwnStream a, b;
  SecondWorldComm second;
  const uint64_t seed = nextSeed();
  DeviceBuffer x(kLarge * 8), y(kLarge * 8), z(kLarge * 8), small(kSmall * 8);
  x.upload(asBytes(initBuffer(seed, 0, world().rank(), kLarge)));
  small.upload(asBytes(initBuffer(seed, 1, world().rank(), kSmall)));
  EXPECT_EQ(hetcclGroupStart(), hetcclSuccess);
  EXPECT_EQ(hetcclAllReduce(small.data(), small.data(), kSmall, hetcclUint64, hetcclMax, world().comm, b.get()),
            hetcclSuccess);
  EXPECT_EQ(hetcclAllReduce(x.data(), y.data(), kLarge, hetcclUint64, hetcclSum, world().comm, a.get()), hetcclSuccess);
  EXPECT_EQ(hetcclGroupEnd(), hetcclSuccess) << hetcclGetLastError(world().comm);
  EXPECT_EQ(hetcclAllReduce(y.data(), z.data(), kLarge, hetcclUint64, hetcclSum, second.get(), b.get()), hetcclSuccess);
  expectSynchronized(a.get(), ctx);
  expectSynchronized(b.get(), ctx);
  std::vector<uint64_t> expected(kLarge);
  for (size_t i = 0; i < kLarge; ++i) expected[i] = n * initReduced(hetcclSum, seed, 0, p, i);
  expectSameBits(u64(), asBytes(expected), z.download(), ctx + " (later work on B read Y, written on A in the group)");
  expectNoAsyncError(world().comm, ctx);
  expectNoAsyncError(second.get(), ctx);
}

}  // namespace
}  // namespace hetccl_test
