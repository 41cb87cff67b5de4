// hetccl-perf's command line: nccl-tests' flags, size suffixes, and every error path (which
// must end in a usage message, never in a run with half-understood settings).
#include <gtest/gtest.h>

#include <vector>

#include "perf/options.h"

namespace hetccl_perf {
namespace {

ParseResult parse(std::vector<const char*> args) {
  args.insert(args.begin(), "hetccl-perf");
  return parseOptions(static_cast<int>(args.size()), args.data());
}

TEST(PerfOptions, DefaultsFollowNcclTests) {
  ParseResult r = parse({"allreduce"});
  ASSERT_EQ(r.outcome, ParseOutcome::Run) << r.error;
  const PerfOptions& o = r.options;
  EXPECT_EQ(o.collective, Collective::AllReduce);
  EXPECT_EQ(o.minBytes, 8u);
  EXPECT_EQ(o.maxBytes, size_t{32} << 20);
  EXPECT_EQ(o.stepFactor, 2u);
  EXPECT_EQ(o.stepBytes, 0u);
  EXPECT_EQ(o.iters, 20);
  EXPECT_EQ(o.warmupIters, 5);
  EXPECT_TRUE(o.check);
  EXPECT_EQ(o.types, std::vector<DataType>{DataType::Float32});
  EXPECT_EQ(o.ops, std::vector<RedOp>{RedOp::Sum});
  EXPECT_EQ(o.root, 0);
  EXPECT_TRUE(o.jsonPath.empty());
  EXPECT_FALSE(o.mpiBaseline);
  EXPECT_TRUE(o.algorithms.empty());  // the library's own choice
}

TEST(PerfOptions, EveryFlag) {
  ParseResult r = parse({"-b", "1K",       "-e", "2M",  "-f", "4", "-n", "7",        "-w",     "0",          "-c", "0",
                         "-d", "bfloat16", "-o", "avg", "-r", "3", "-J", "out.json", "reduce", "--baseline", "mpi"});
  ASSERT_EQ(r.outcome, ParseOutcome::Run) << r.error;
  const PerfOptions& o = r.options;
  EXPECT_EQ(o.collective, Collective::Reduce);
  EXPECT_EQ(o.minBytes, 1024u);
  EXPECT_EQ(o.maxBytes, size_t{2} << 20);
  EXPECT_EQ(o.stepFactor, 4u);
  EXPECT_EQ(o.iters, 7);
  EXPECT_EQ(o.warmupIters, 0);
  EXPECT_FALSE(o.check);
  EXPECT_EQ(o.types, std::vector<DataType>{DataType::Bfloat16});
  EXPECT_EQ(o.ops, std::vector<RedOp>{RedOp::Avg});
  EXPECT_EQ(o.root, 3);
  EXPECT_EQ(o.jsonPath, "out.json");
  EXPECT_TRUE(o.mpiBaseline);
  EXPECT_FALSE(o.model);
  EXPECT_TRUE(parse({"allreduce", "--model"}).options.model);
}

TEST(PerfOptions, AttachedValuesAndLongForms) {
  ParseResult r = parse({"alltoall", "-b64", "--maxbytes=1G", "--iters", "3", "--baseline=mpi", "-dhalf", "-i", "128"});
  ASSERT_EQ(r.outcome, ParseOutcome::Run) << r.error;
  EXPECT_EQ(r.options.collective, Collective::AlltoAll);
  EXPECT_EQ(r.options.minBytes, 64u);
  EXPECT_EQ(r.options.maxBytes, size_t{1} << 30);
  EXPECT_EQ(r.options.iters, 3);
  EXPECT_TRUE(r.options.mpiBaseline);
  EXPECT_EQ(r.options.types, std::vector<DataType>{DataType::Float16});
  EXPECT_EQ(r.options.stepBytes, 128u);
}

TEST(PerfOptions, AllTypesAndOpsInNcclTestsOrder) {
  ParseResult r = parse({"allreduce", "-d", "all", "-o", "all"});
  ASSERT_EQ(r.outcome, ParseOutcome::Run) << r.error;
  ASSERT_EQ(r.options.types.size(), 10u);
  EXPECT_EQ(r.options.types.front(), DataType::Int8);
  EXPECT_EQ(r.options.types[6], DataType::Float16);
  EXPECT_EQ(r.options.types.back(), DataType::Bfloat16);
  EXPECT_EQ(r.options.ops, (std::vector<RedOp>{RedOp::Sum, RedOp::Prod, RedOp::Max, RedOp::Min, RedOp::Avg}));
}

TEST(PerfOptions, EveryCollectiveName) {
  const char* names[] = {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv"};
  for (const char* name : names) {
    ParseResult r = parse({name});
    ASSERT_EQ(r.outcome, ParseOutcome::Run) << name;
    EXPECT_STREQ(collectiveName(r.options.collective), name);
  }
}

TEST(PerfOptions, Help) {
  EXPECT_EQ(parse({"-h"}).outcome, ParseOutcome::Help);
  EXPECT_EQ(parse({"allreduce", "--help"}).outcome, ParseOutcome::Help);
  EXPECT_NE(usageText("hetccl-perf").find("--baseline mpi"), std::string::npos);
}

TEST(PerfOptions, Errors) {
  const std::vector<std::vector<const char*>> bad = {
      {},                                     // no collective
      {"allscatter"},                         // unknown collective
      {"allreduce", "allgather"},             // two collectives
      {"allreduce", "-x", "1"},               // unknown flag
      {"allreduce", "--nosuch"},              // unknown long flag
      {"allreduce", "-b"},                    // missing value
      {"allreduce", "-b", "12Q"},             // bad suffix
      {"allreduce", "-b", "-8"},              // negative size
      {"allreduce", "-b", "0"},               // zero size
      {"allreduce", "-b", "1M", "-e", "1K"},  // min > max
      {"allreduce", "-f", "1"},               // factor that never grows
      {"allreduce", "-n", "0"},               // no iterations
      {"allreduce", "-w", "-1"},
      {"allreduce", "-c", "2"},
      {"allreduce", "-d", "float8"},
      {"allreduce", "-o", "xor"},
      {"allreduce", "-r", "x"},
      {"allreduce", "--baseline", "nccl"},
      {"allreduce", "--help=1"},
      {"allreduce", "-n", "5x"},
      {"allreduce", "--algo", "tree"},        // unknown algorithm
      {"allreduce", "--algo", "ring,,hier"},  // empty entry
      {"allreduce", "--algo", "ring,"},
      {"allreduce", "--algo", ""},
      {"allreduce", "--algo", "ring,hier,ring"},  // listed twice
      {"allreduce", "--algo", "RING"},            // names are lowercase, as the library's
      {"allreduce", "--algo"},                    // missing value
      {"allreduce", "-A", "ring"},                // hetccl's own flags have no short form
      {"allreduce", "--model=1"},                 // a switch, no value
      {"allreduce", "--model", "--overlap"},      // the overlap table has no model columns
  };
  for (const auto& args : bad) {
    ParseResult r = parse(args);
    std::string joined;
    for (const char* a : args) joined += std::string(a) + " ";
    EXPECT_EQ(r.outcome, ParseOutcome::Error) << joined;
    EXPECT_FALSE(r.error.empty()) << joined;
  }
}

TEST(PerfOptions, AlgoSingleAndList) {
  ParseResult r = parse({"allreduce", "--algo", "torus"});
  ASSERT_EQ(r.outcome, ParseOutcome::Run) << r.error;
  EXPECT_EQ(r.options.algorithms, std::vector<std::string>{"torus"});

  r = parse({"--algo=ring,hier,torus,auto", "allreduce"});
  ASSERT_EQ(r.outcome, ParseOutcome::Run) << r.error;
  EXPECT_EQ(r.options.algorithms, (std::vector<std::string>{"ring", "hier", "torus", "auto"}));  // order kept

  for (const std::string& name : knownAlgorithms()) {
    r = parse({"allreduce", "--algo", name.c_str()});
    EXPECT_EQ(r.outcome, ParseOutcome::Run) << name << ": " << r.error;
  }
  EXPECT_NE(usageText("hetccl-perf").find("--algo LIST"), std::string::npos);
}

TEST(PerfOptions, AlgoErrorsSayWhy) {
  std::vector<std::string> names;
  std::string error;
  EXPECT_FALSE(parseAlgorithmList("ring,tree", &names, &error));
  EXPECT_NE(error.find("unknown algorithm 'tree'"), std::string::npos) << error;
  EXPECT_NE(error.find("hier"), std::string::npos) << error;  // lists what would work
  EXPECT_FALSE(parseAlgorithmList("auto,auto", &names, &error));
  EXPECT_NE(error.find("listed twice"), std::string::npos) << error;
  EXPECT_TRUE(names.empty());  // untouched on failure
}

TEST(PerfOptions, ByteSizes) {
  size_t v = 0;
  EXPECT_TRUE(parseByteSize("8", &v));
  EXPECT_EQ(v, 8u);
  EXPECT_TRUE(parseByteSize("32K", &v));
  EXPECT_EQ(v, 32u * 1024);
  EXPECT_TRUE(parseByteSize("32k", &v));
  EXPECT_EQ(v, 32u * 1024);
  EXPECT_TRUE(parseByteSize("3M", &v));
  EXPECT_EQ(v, size_t{3} << 20);
  EXPECT_TRUE(parseByteSize("2G", &v));
  EXPECT_EQ(v, size_t{2} << 30);
  EXPECT_FALSE(parseByteSize("", &v));
  EXPECT_FALSE(parseByteSize("M", &v));
  EXPECT_FALSE(parseByteSize("1.5M", &v));
  EXPECT_FALSE(parseByteSize(" 8", &v));
  EXPECT_FALSE(parseByteSize("+8", &v));
  EXPECT_TRUE(parseByteSize("8KB", &v));  // the library's grammar: an optional B
  EXPECT_EQ(v, 8u << 10);
  EXPECT_FALSE(parseByteSize("99999999999999999999", &v));
  EXPECT_FALSE(parseByteSize("17179869184G", &v));  // 2^34 G overflows 64 bits
}

TEST(PerfOptions, SizeSweep) {
  PerfOptions o;
  o.minBytes = 8;
  o.maxBytes = 100;
  o.stepFactor = 2;
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{8, 16, 32, 64}));
  o.stepFactor = 4;
  o.maxBytes = 128;
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{8, 32, 128}));
  o.stepBytes = 50;  // increment wins over factor
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{8, 58, 108}));
  o.stepBytes = 0;
  o.minBytes = o.maxBytes = 4096;
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{4096}));
  // A sweep up to the largest size_t stops instead of wrapping around.
  o.stepFactor = 2;
  o.minBytes = size_t{1} << 62;
  o.maxBytes = ~size_t{0};
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{size_t{1} << 62, size_t{1} << 63}));
}

}  // namespace
}  // namespace hetccl_perf
