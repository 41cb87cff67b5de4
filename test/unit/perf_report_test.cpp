// hetccl-perf's output: nccl-tests' column layout, the footer lines scripts grep for, and a
// JSON document that carries the same numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perf/report.h"

namespace hetccl_perf {
namespace {

ReportSettings settingsFor(Collective c, bool baseline) {
  ReportSettings s;
  s.options.collective = c;
  s.options.mpiBaseline = baseline;
  s.nranks = 4;
  s.libraryVersion = "0.1.0";
  s.rankLines = {"Rank  0 Pid    100 on nodeA"};
  return s;
}

PerfOptions tableOptions(bool baseline, std::vector<std::string> algorithms = {}) {
  PerfOptions o;
  o.mpiBaseline = baseline;
  o.algorithms = std::move(algorithms);
  return o;
}

ResultRow sampleRow() {
  ResultRow r;
  r.collective = Collective::AllReduce;
  r.bytes = 1048576;
  r.count = 262144;
  r.type = DataType::Float32;
  r.hasOp = true;
  r.op = RedOp::Sum;
  r.outOfPlace = makeMeasurement(1000.0, r.bytes, 1.5, 0);
  r.inPlace = makeMeasurement(500.0, r.bytes, 1.5, 3);
  r.baseline.measured = true;
  r.baseline.timeUs = 2000.0;
  r.baseline.busbw = makeMeasurement(2000.0, r.bytes, 1.5, -1).busbw;
  r.algorithm = "hier";
  return r;
}

TEST(PerfReport, Bandwidths) {
  Measurement m = makeMeasurement(1000.0, 2000000, 1.5, 0);
  EXPECT_DOUBLE_EQ(m.algbw, 2.0);  // 2e6 B in 1 ms = 2 GB/s
  EXPECT_DOUBLE_EQ(m.busbw, 3.0);
  EXPECT_EQ(makeMeasurement(0.0, 100, 1.0, 0).algbw, 0.0);
}

TEST(PerfReport, HeaderHasNcclTestsColumns) {
  std::string h = formatHeader(settingsFor(Collective::AllReduce, false));
  EXPECT_EQ(h.rfind("# hetccl-perf: allreduce, nranks 4, hetccl 0.1.0\n", 0), 0u);
  EXPECT_NE(h.find("\n#       size         count      type   redop    root     time   algbw"
                   "   busbw #wrong     time   algbw   busbw #wrong    algo\n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("out-of-place"), std::string::npos);
  EXPECT_NE(h.find("in-place"), std::string::npos);
  EXPECT_NE(h.find("(B)    (elements)"), std::string::npos);
  EXPECT_NE(h.find("(us)  (GB/s)  (GB/s)"), std::string::npos);
  EXPECT_NE(h.find("busbw = algbw x 2(n-1)/n"), std::string::npos);
  EXPECT_NE(h.find("Rank  0 Pid    100 on nodeA"), std::string::npos);
  EXPECT_EQ(h.find("vsMPI"), std::string::npos);
}

TEST(PerfReport, BaselineColumns) {
  std::string h = formatHeader(settingsFor(Collective::AllReduce, true));
  EXPECT_NE(h.find("#wrong    algo     time   busbw   vsMPI\n"), std::string::npos) << h;
  EXPECT_NE(h.find("MPI_SUM"), std::string::npos);
  std::string line = formatRow(sampleRow(), tableOptions(true));
  EXPECT_NE(line.find("   2.00\n"), std::string::npos) << line;  // ratio 2x
}

TEST(PerfReport, RowLinesUpWithHeader) {
  const ResultRow row = sampleRow();
  std::string line = formatRow(row, tableOptions(false));
  std::string h = formatHeader(settingsFor(Collective::AllReduce, false));
  size_t start = h.find("#       size");
  std::string names = h.substr(start, h.find('\n', start) - start);
  EXPECT_EQ(line.size() - 1, names.size()) << line << names;
  EXPECT_EQ(line.substr(0, 52), "     1048576        262144     float     sum    none");
  EXPECT_NE(line.find("  1000.0    1.05    1.57      0    500.0    2.10    3.15      3    hier\n"),
            std::string::npos)
      << line;
}

TEST(PerfReport, NotCheckedShowsNA) {
  ResultRow row = sampleRow();
  row.outOfPlace.wrong = row.inPlace.wrong = -1;
  row.hasOp = false;
  row.hasRoot = true;
  row.root = 2;
  std::string line = formatRow(row, tableOptions(false));
  EXPECT_NE(line.find("    none       2"), std::string::npos) << line;
  EXPECT_NE(line.find("    N/A"), std::string::npos) << line;
}

TEST(PerfReport, Footer) {
  std::vector<ResultRow> rows = {sampleRow(), sampleRow()};
  Footer f = summarize(rows);
  EXPECT_EQ(f.wrongTotal, 6);
  // Mean of every out-of-place and in-place busbw.
  EXPECT_DOUBLE_EQ(f.avgBusBandwidth, (1.572864 + 3.145728) / 2);
  std::string text = formatFooter(f);
  EXPECT_NE(text.find("# Out of bounds values : 6 FAILED\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# Avg bus bandwidth    : 2.3593"), std::string::npos) << text;
  rows[0].inPlace.wrong = rows[1].inPlace.wrong = 0;
  EXPECT_NE(formatFooter(summarize(rows)).find("# Out of bounds values : 0 OK\n"),
            std::string::npos);
  EXPECT_EQ(summarize({}).avgBusBandwidth, 0.0);
}

TEST(PerfReport, Json) {
  ReportSettings s = settingsFor(Collective::AllReduce, true);
  s.options.jsonPath = "x.json";
  std::vector<ResultRow> rows = {sampleRow()};
  std::string j = formatJson(s, rows, summarize(rows));
  EXPECT_NE(j.find("\"collective\": \"allreduce\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"nranks\": 4"), std::string::npos);
  EXPECT_NE(j.find("\"size\": 1048576, \"count\": 262144, \"type\": \"float\", \"redop\": "
                   "\"sum\", \"root\": null"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"out_of_place\": {\"time_us\": 1000, \"algbw\": 1.048576, \"busbw\": "
                   "1.572864, \"wrong\": 0}"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"in_place\": {\"time_us\": 500,"), std::string::npos);
  EXPECT_NE(j.find("\"baseline\": {\"library\": \"mpi\", \"time_us\": 2000"), std::string::npos);
  EXPECT_NE(j.find("\"vs_mpi\": 2"), std::string::npos);
  EXPECT_NE(j.find("\"out_of_bounds_values\": 3"), std::string::npos);
  EXPECT_NE(j.find("\"out_of_bounds_ok\": false"), std::string::npos);
  EXPECT_NE(j.find("\"avg_bus_bandwidth\": "), std::string::npos);
  // Balanced braces and brackets: a cheap well-formedness check.
  int braces = 0, brackets = 0;
  for (char c : j) {
    braces += c == '{' ? 1 : c == '}' ? -1 : 0;
    brackets += c == '[' ? 1 : c == ']' ? -1 : 0;
  }
  EXPECT_EQ(braces, 0);
  EXPECT_EQ(brackets, 0);
}

// With --algo, each row also names the entry it ran under, so "auto" and what auto chose
// can be read side by side; the columns line up with the header like nccl-tests' own.
TEST(PerfReport, AlgorithmColumnsWithAlgoList) {
  ReportSettings s = settingsFor(Collective::AllReduce, true);
  s.options.algorithms = {"ring", "auto"};
  std::string h = formatHeader(s);
  EXPECT_NE(h.find("#wrong  request    algo     time   busbw   vsMPI\n"), std::string::npos) << h;
  EXPECT_NE(h.find("one communicator each: ring auto\n"), std::string::npos) << h;
  ResultRow row = sampleRow();
  row.requestedAlgorithm = "auto";
  row.algorithm = "torus";
  std::string line = formatRow(row, s.options);
  EXPECT_NE(line.find("      3     auto   torus   2000.0"), std::string::npos) << line;
  size_t start = h.find("#       size");
  std::string names = h.substr(start, h.find('\n', start) - start);
  EXPECT_EQ(line.size() - 1, names.size()) << line << names;
  // Unknown algorithm (a library that cannot say) is a dash, never an empty column.
  row.algorithm.clear();
  EXPECT_NE(formatRow(row, s.options).find("     auto       -"), std::string::npos);
}

TEST(PerfReport, FooterAveragesPerAlgorithm) {
  ResultRow ring = sampleRow();
  ring.requestedAlgorithm = "ring";
  ResultRow hier = sampleRow();
  hier.requestedAlgorithm = "hier";
  hier.outOfPlace = makeMeasurement(500.0, hier.bytes, 1.5, 0);  // twice as fast out of place
  Footer f = summarize({ring, hier, ring, hier});
  ASSERT_EQ(f.byAlgorithm.size(), 2u);
  EXPECT_EQ(f.byAlgorithm[0].requestedAlgorithm, "ring");  // in the order first seen
  EXPECT_DOUBLE_EQ(f.byAlgorithm[0].avgBusBandwidth, (1.572864 + 3.145728) / 2);
  EXPECT_EQ(f.byAlgorithm[1].requestedAlgorithm, "hier");
  EXPECT_DOUBLE_EQ(f.byAlgorithm[1].avgBusBandwidth, 3.145728);
  std::string text = formatFooter(f);
  EXPECT_NE(text.find("#  avg busbw by --algo : ring 2.3593"), std::string::npos) << text;
  // Scripts take "# Avg bus bandwidth" as one line; the per-algorithm line must not match it.
  EXPECT_EQ(text.find("# Avg bus bandwidth"), text.rfind("# Avg bus bandwidth"));
  EXPECT_TRUE(summarize({sampleRow()}).byAlgorithm.empty());
}

TEST(PerfReport, JsonNamesAlgorithms) {
  ReportSettings s = settingsFor(Collective::AllReduce, false);
  ResultRow row = sampleRow();
  std::string plain = formatJson(s, {row}, summarize({row}));
  EXPECT_NE(plain.find("\"algorithms\": null"), std::string::npos) << plain;
  EXPECT_NE(plain.find("\"algorithm\": \"hier\", \"requested_algorithm\": null"),
            std::string::npos)
      << plain;
  EXPECT_EQ(plain.find("avg_bus_bandwidth_by_algorithm"), std::string::npos);

  s.options.algorithms = {"hier", "auto"};
  row.requestedAlgorithm = "auto";
  std::string j = formatJson(s, {row}, summarize({row}));
  EXPECT_NE(j.find("\"algorithms\": [\"hier\", \"auto\"]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"requested_algorithm\": \"auto\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"avg_bus_bandwidth_by_algorithm\": {\"auto\": "), std::string::npos) << j;
}

}  // namespace
}  // namespace hetccl_perf
