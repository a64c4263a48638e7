// hone profile end to end on the bundled model: the text, the JSON report, and bad usage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "base/temp_dir_test_util.h"
#include "cli/run_hone_test_util.h"

namespace hone {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using test::ExpectUsage;
using test::RunResult;

const std::string kModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";

class ProfileCliTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.File(name); }
  RunResult Hone(std::vector<std::string> args) { return test::RunHone(std::move(args), dir_.path(), 120); }
  testing_util::TempDir dir_;
};

void ExpectSharesSumToOne(const nlohmann::json& body) {
  double shares = 0;
  for (const auto& t : body["op_types"]) shares += t["share"].get<double>();
  EXPECT_NEAR(shares, 1.0, 1e-6) << body.dump(2);
}

TEST_F(ProfileCliTest, PrintsWhereTheTimeGoesAndWritesTheReport) {
  RunResult r = Hone({"profile", kModel, "--runs", "10", "--warmup-runs", "2", "--intra-op-threads", "1", "--json",
                      Path("p.json")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, AllOf(HasSubstr("operator types"), HasSubstr("Conv"), HasSubstr("slowest nodes"),
                           HasSubstr(" of the kernel time ("), HasSubstr("10 profiled after 2 warm-up"),
                           HasSubstr("intra=1"), HasSubstr("#")));
  nlohmann::json body = test::ReadReport(Path("p.json"), "profile");
  EXPECT_EQ(body["target"], "model");
  EXPECT_EQ(body["runs"], 10);
  EXPECT_EQ(body["warmup_runs"], 2);
  EXPECT_EQ(body["batch"], 1);
  ASSERT_TRUE(body["op_types"].is_array() && !body["op_types"].empty()) << body.dump(2);
  ExpectSharesSumToOne(body);
  std::vector<std::string> types;
  for (const auto& t : body["op_types"]) types.push_back(t["op_type"]);
  EXPECT_THAT(types, ::testing::Contains("Conv"));
  EXPECT_LE(body["top_nodes"].size(), 10u);
  EXPECT_THAT(body["summary"].get<std::string>(), HasSubstr(" of the kernel time ("));
  EXPECT_THAT(r.out, HasSubstr(body["summary"].get<std::string>() + "."));
  EXPECT_GT(body["process_threads"].get<int>(), 0);
  EXPECT_GT(body["peak_rss_bytes"].get<uint64_t>(), 0u);
  EXPECT_TRUE(body["matmul_dominated"].is_boolean());
  EXPECT_EQ(body["session"]["intra_op_threads"], 1);
}

TEST_F(ProfileCliTest, JsonToStandardOutputWithADatasetAndABatch) {
  RunResult r = Hone({"profile", kModel, "--data", kData, "--batch", "8", "--runs", "5", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["report"], "profile");
  EXPECT_EQ(j["model"]["path"], kModel);
  EXPECT_EQ(j["profile"]["batch"], 8);
  EXPECT_THAT(j["profile"]["input_source"].get<std::string>(), HasSubstr("test.npz"));
  ExpectSharesSumToOne(j["profile"]);
  EXPECT_THAT(r.err, HasSubstr("operator types"));  // the text report
}

TEST_F(ProfileCliTest, BadUsageIsExitTwoNamingTheFault) {
  ExpectUsage(Hone({"profile"}), {"model"});
  ExpectUsage(Hone({"profile", Path("missing.onnx")}), {"missing.onnx", "no such file"});
  ExpectUsage(Hone({"profile", kModel, "--runs", "0"}), {"--runs 0", "at least 1"});
  ExpectUsage(Hone({"profile", kModel, "--warmup-runs", "-1"}), {"--warmup-runs -1"});
  ExpectUsage(Hone({"profile", kModel, "--concurrency", "4"}), {"--concurrency needs --url"});
  ExpectUsage(Hone({"profile", "fashion", "--url", "127.0.0.1:1", "--runs", "5"}),
              {"--runs does not apply with --url"});
  ExpectUsage(Hone({"profile", "fashion", "--url", "127.0.0.1:8000", "--protocol", "udp"}), {"--protocol 'udp'"});
  ExpectUsage(Hone({"profile", kModel, "--intra-op-threads", "1,2"}), {"profile runs one"});
  ExpectUsage(Hone({"profile", kModel, "--json", kModel}), {"is the input"});
}

TEST_F(ProfileCliTest, HelpEndsWithExamples) {
  RunResult r = Hone({"profile", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, AllOf(HasSubstr("--runs"), HasSubstr("--url"), HasSubstr("Examples:\n  hone profile")));
  EXPECT_THAT(Hone({"help"}).out, HasSubstr("profile"));
}

}  // namespace
}  // namespace hone
