// hetccl-perf's output: nccl-tests' column layout, the footer lines scripts grep for, and a
// JSON document that carries the same numbers (parsed back to be checked).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  EXPECT_NE(line.find("  1000.0    1.05    1.57      0    500.0    2.10    3.15      3    hier\n"), std::string::npos)
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
  EXPECT_NE(formatFooter(summarize(rows)).find("# Out of bounds values : 0 OK\n"), std::string::npos);
  EXPECT_EQ(summarize({}).avgBusBandwidth, 0.0);
}

// The JSON is parsed back, so a malformed document fails here and the checks read values,
// not spellings.
nlohmann::json parseJson(const std::string& text) {
  EXPECT_TRUE(nlohmann::json::accept(text)) << text;
  return nlohmann::json::parse(text, nullptr, false);
}

TEST(PerfReport, Json) {
  ReportSettings s = settingsFor(Collective::AllReduce, true);
  s.options.jsonPath = "x.json";
  std::vector<ResultRow> rows = {sampleRow()};
  const std::string text = formatJson(s, rows, summarize(rows));
  ASSERT_EQ(text.back(), '\n');
  const nlohmann::json j = parseJson(text);
  EXPECT_EQ(j["tool"], "hetccl-perf");
  EXPECT_EQ(j["hetccl_version"], "0.1.0");
  EXPECT_EQ(j["collective"], "allreduce");
  EXPECT_EQ(j["nranks"], 4);
  const nlohmann::json& settings = j["settings"];
  EXPECT_EQ(settings["min_bytes"], 8);
  EXPECT_EQ(settings["max_bytes"], 32 << 20);
  EXPECT_EQ(settings["check"], true);
  EXPECT_EQ(settings["datatypes"], nlohmann::json::array({"float"}));
  EXPECT_EQ(settings["ops"], nlohmann::json::array({"sum"}));
  EXPECT_TRUE(settings["root"].is_null());  // all-reduce has no root
  EXPECT_DOUBLE_EQ(settings["bus_factor"].get<double>(), 1.5);
  EXPECT_EQ(settings["baseline"], "mpi");
  ASSERT_EQ(j["rows"].size(), 1u);
  const nlohmann::json& row = j["rows"][0];
  EXPECT_EQ(row["size"], 1048576);
  EXPECT_EQ(row["count"], 262144);
  EXPECT_EQ(row["type"], "float");
  EXPECT_EQ(row["redop"], "sum");
  EXPECT_TRUE(row["root"].is_null());
  EXPECT_EQ(row["out_of_place"],
            nlohmann::json::parse(R"({"time_us": 1000, "algbw": 1.048576, "busbw": 1.572864, "wrong": 0})"));
  EXPECT_DOUBLE_EQ(row["in_place"]["time_us"].get<double>(), 500);
  EXPECT_EQ(row["in_place"]["wrong"], 3);
  EXPECT_EQ(row["baseline"]["library"], "mpi");
  EXPECT_DOUBLE_EQ(row["baseline"]["time_us"].get<double>(), 2000);
  EXPECT_DOUBLE_EQ(row["baseline"]["vs_mpi"].get<double>(), 2);
  EXPECT_EQ(j["out_of_bounds_values"], 3);
  EXPECT_EQ(j["out_of_bounds_ok"], false);
  EXPECT_DOUBLE_EQ(j["avg_bus_bandwidth"].get<double>(), (1.572864 + 3.145728) / 2);
}

// Keys come in the order the table reads (scripts and people read top-down), and every key
// scripts/plot_perf.py and the checked-in sample use is there.
TEST(PerfReport, JsonKeysInTableOrder) {
  ReportSettings s = settingsFor(Collective::Broadcast, true);
  ResultRow row = sampleRow();
  row.hasOp = false;
  row.hasRoot = true;
  row.root = 1;
  row.baseline.measured = false;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(formatJson(s, {row}, summarize({row})));
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"tool", "hetccl_version", "collective", "nranks", "settings", "rows",
                                            "out_of_bounds_values", "out_of_bounds_ok", "avg_bus_bandwidth"}));
  keys.clear();
  for (const auto& item : j["rows"][0].items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"collective", "size", "count", "type", "redop", "root", "out_of_place",
                                            "in_place", "algorithm", "requested_algorithm", "baseline"}));
  EXPECT_EQ(j["rows"][0]["redop"], "none");
  EXPECT_EQ(j["rows"][0]["root"], 1);
  EXPECT_TRUE(j["rows"][0]["baseline"].is_null());  // the MPI call could not express the row
  EXPECT_EQ(j["settings"]["root"], 0);
  EXPECT_TRUE(j["settings"]["ops"].empty());  // broadcast reduces nothing
}

// Names are strings whatever they hold; numbers JSON cannot hold become null.
TEST(PerfReport, JsonEscapesAndNulls) {
  ReportSettings s = settingsFor(Collective::AllReduce, false);
  s.libraryVersion = "0.1 \"rc\"\\\n\t\x01";
  ResultRow row = sampleRow();
  row.outOfPlace.timeUs = std::numeric_limits<double>::infinity();
  row.inPlace.busbw = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::json j = parseJson(formatJson(s, {row}, summarize({row})));
  EXPECT_EQ(j["hetccl_version"], s.libraryVersion);
  EXPECT_TRUE(j["rows"][0]["out_of_place"]["time_us"].is_null());
  EXPECT_TRUE(j["rows"][0]["in_place"]["busbw"].is_null());
  EXPECT_TRUE(j["avg_bus_bandwidth"].is_null());
  EXPECT_EQ(j["rows"][0].count("baseline"), 0u);  // only with --baseline mpi
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
  nlohmann::json plain = parseJson(formatJson(s, {row}, summarize({row})));
  EXPECT_TRUE(plain["settings"]["algorithms"].is_null());
  EXPECT_EQ(plain["rows"][0]["algorithm"], "hier");
  EXPECT_TRUE(plain["rows"][0]["requested_algorithm"].is_null());
  EXPECT_FALSE(plain.contains("avg_bus_bandwidth_by_algorithm"));

  s.options.algorithms = {"hier", "auto"};
  row.requestedAlgorithm = "auto";
  row.algorithm.clear();  // a library that cannot say
  nlohmann::json j = parseJson(formatJson(s, {row}, summarize({row})));
  EXPECT_EQ(j["settings"]["algorithms"], nlohmann::json::array({"hier", "auto"}));  // order kept
  EXPECT_EQ(j["rows"][0]["requested_algorithm"], "auto");
  EXPECT_TRUE(j["rows"][0]["algorithm"].is_null());
  EXPECT_DOUBLE_EQ(j["avg_bus_bandwidth_by_algorithm"]["auto"].get<double>(), (1.572864 + 3.145728) / 2);
}

}  // namespace
}  // namespace hetccl_perf

namespace hetccl_perf {
namespace {

// --model: the cost model's prediction and measured/predicted after the algorithm, before MPI.
TEST(PerfReport, ModelColumns) {
  ReportSettings s = settingsFor(Collective::AllReduce, true);
  s.options.model = true;
  const std::string h = formatHeader(s);
  EXPECT_NE(h.find("#wrong    algo    model  meas/model     time   busbw   vsMPI\n"), std::string::npos) << h;
  ResultRow row = sampleRow();
  row.predictedUs = 800.0;
  const std::string line = formatRow(row, s.options);
  size_t start = h.find("#       size");
  EXPECT_EQ(line.size() - 1, h.find('\n', start) - start) << line << h;
  EXPECT_NE(line.find("    hier    800.0        1.25   2000.0"), std::string::npos) << line;  // 1000 us / 800 us
  nlohmann::json j = nlohmann::json::parse(formatJson(s, {row}, summarize({row})));
  EXPECT_TRUE(j["settings"]["model"].get<bool>());
  EXPECT_DOUBLE_EQ(j["rows"][0]["model"]["predicted_us"].get<double>(), 800.0);
  EXPECT_DOUBLE_EQ(j["rows"][0]["model"]["measured_over_predicted"].get<double>(), 1.25);
  // No prediction (a vendor library took the call whole): N/A, null, never a ratio of 0.
  row.predictedUs = 0;
  EXPECT_NE(formatRow(row, s.options).find("    hier      N/A         N/A"), std::string::npos);
  j = nlohmann::json::parse(formatJson(s, {row}, summarize({row})));
  EXPECT_TRUE(j["rows"][0]["model"].is_null());
  // Without --model the table and the document are as before.
  EXPECT_EQ(formatHeader(settingsFor(Collective::AllReduce, true)).find("model"), std::string::npos);
}

}  // namespace
}  // namespace hetccl_perf
