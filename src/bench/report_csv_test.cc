// The CSV is an interface: perf_analyzer's header, exactly, and its latency breakdown computed as it does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "bench/report.h"

namespace hone::bench {
namespace {

// What `perf_analyzer -f FILE --verbose-csv` (2.41) writes as its header, after the load column.
constexpr const char* kPerfAnalyzer =
    "Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,"
    "Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency,Avg latency,"
    "request/response,response wait";

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

// The cells of the first data row, by column name.
std::map<std::string, std::string> FirstRow(const std::string& csv) {
  const size_t end = csv.find('\n');
  std::vector<std::string> names = Split(csv.substr(0, end));
  std::vector<std::string> cells = Split(csv.substr(end + 1, csv.find('\n', end + 1) - end - 1));
  std::map<std::string, std::string> row;
  for (size_t i = 0; i < names.size() && i < cells.size(); ++i) row[names[i]] = cells[i];
  return row;
}

PointResult RemotePoint() {
  PointResult p;
  p.point.load.concurrency = 2;
  p.requests = 100;
  p.duration_s = 1;
  for (int i = 0; i < 100; ++i) p.latency.Record(1'000'000);  // 1000 us each
  ServerBreakdown s;
  s.requests = 100;
  s.request_us = 700;
  s.queue_us = 400;
  s.compute_input_us = 10;
  s.compute_infer_us = 250;
  s.compute_output_us = 5;
  p.server = s;
  return p;
}

TEST(ReportCsvTest, HeaderStartsWithPerfAnalyzersColumnsInItsOrder) {
  EXPECT_EQ(CsvHeader(false).rfind(std::string("Concurrency,") + kPerfAnalyzer + ",", 0), 0u) << CsvHeader(false);
  EXPECT_EQ(CsvHeader(true).rfind(std::string("Request Rate,") + kPerfAnalyzer + ",", 0), 0u) << CsvHeader(true);
  BenchReport r;
  r.points.push_back(RemotePoint());
  const std::string csv = ReportToCsv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), CsvHeader(false));
  // Every row has as many cells as the header names.
  EXPECT_EQ(Split(csv.substr(0, csv.find('\n'))).size(), FirstRow(csv).size());
  EXPECT_EQ(Split(csv.substr(csv.find('\n') + 1, csv.rfind('\n') - csv.find('\n') - 1)).size(),
            Split(CsvHeader(false)).size());
}

TEST(ReportCsvTest, ServerBreakdownWithoutClientPhasesLeavesClientCellsEmpty) {
  BenchReport r;
  r.points.push_back(RemotePoint());
  auto row = FirstRow(ReportToCsv(r));
  EXPECT_EQ(row["Concurrency"], "2");
  EXPECT_EQ(row["Inferences/Second"], "100.00");
  EXPECT_EQ(row["Server Queue"], "400");
  EXPECT_EQ(row["Server Compute Infer"], "250");
  EXPECT_EQ(row["Avg latency"], "1000");
  EXPECT_EQ(row["p50 latency"], "1000");
  EXPECT_EQ(row["response wait"], "1000");
  EXPECT_EQ(row["Network+Server Send/Recv"], "335");  // 1000 - (400 + 10 + 250 + 5)
  EXPECT_EQ(row["Client Send"], "");                   // not measured: empty, not 0
  EXPECT_EQ(row["Client Recv"], "");
  EXPECT_EQ(row["request/response"], "");
  EXPECT_EQ(row["Server Overhead"], "35");  // 700 - 665
}

TEST(ReportCsvTest, ClientPhasesSplitTheRoundTripAsPerfAnalyzerDoes) {
  BenchReport r;
  PointResult p = RemotePoint();
  p.client = ClientBreakdown{100, 60, 40};
  r.points.push_back(p);
  auto row = FirstRow(ReportToCsv(r));
  EXPECT_EQ(row["Client Send"], "60");
  EXPECT_EQ(row["Client Recv"], "40");
  EXPECT_EQ(row["request/response"], "100");
  EXPECT_EQ(row["response wait"], "900");
  EXPECT_EQ(row["Network+Server Send/Recv"], "235");  // 900 - 665
}

TEST(ReportCsvTest, InProcessPointHasNoServerOrClientCells) {
  BenchReport r;
  PointResult p = RemotePoint();
  p.server.reset();
  r.points.push_back(p);
  auto row = FirstRow(ReportToCsv(r));
  for (const char* column : {"Client Send", "Network+Server Send/Recv", "Server Queue", "Server Compute Input",
                             "Server Compute Infer", "Server Compute Output", "Client Recv", "request/response",
                             "response wait", "Server Overhead", "Server Average Batch"})
    EXPECT_EQ(row[column], "") << column;
  EXPECT_EQ(row["p99 latency"], "1000");
  EXPECT_EQ(row["Batch"], "1");
}

}  // namespace
}  // namespace hone::bench
