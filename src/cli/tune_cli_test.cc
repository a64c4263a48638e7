// hone tune end to end on the bundled model, with a short budget: an SLO it meets (exit 0, the three outputs, a
// repository whose config says what won), an SLO nobody can meet (exit 1, naming the best candidate and why), and
// bad usage that fails before any measurement. The repository served by real clients, the report's schema and its
// page in a browser are tests/python/test_tune.py's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "base/temp_dir_test_util.h"
#include "cli/run_hone_test_util.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using test::ExpectUsage;
using test::RunResult;

const std::string kModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";

class TuneCliTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.File(name); }
  RunResult Hone(std::vector<std::string> args) { return test::RunHone(std::move(args), dir_.path(), 240); }
  RunResult Tune(const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"tune", kModel, "--data", kData, "--quick", "--budget", "35s", "-o", Path(out)};
    args.insert(args.end(), extra.begin(), extra.end());
    return Hone(args);
  }
  testing_util::TempDir dir_;
};

TEST_F(TuneCliTest, MeetsAnEasySloAndWritesTheReportsAndARepository) {
  RunResult r = Tune("out", {"--slo", "p99<=200ms@concurrency=4", "--cost-per-hour", "0.10", "--slice", "label",
                             "--perturb", "gaussian:0.05", "--gate",
                             "accuracy_drop<=0.01,worst_slice_drop<=0.05,accuracy_drop@gaussian:0.05<=0.05"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, AllOf(HasSubstr("every SLO and gate met"), HasSubstr("stage 3 batching"),
                           HasSubstr("stage 6 precision"), HasSubstr("serve it: hone serve --model-repository")));
  // Progress on standard error: the stage, the trial, the best so far and the time left.
  EXPECT_THAT(r.err, AllOf(HasSubstr("stage 1 of 7 (baseline)"), HasSubstr("best so far: "), HasSubstr(" s left")));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("I 20")));  // the trial servers' info lines stay off
  nlohmann::json body = test::ReadReport(Path("out/report.json"), "tune");
  EXPECT_TRUE(fs::exists(Path("out/report.html")));
  EXPECT_TRUE(fs::exists(Path("out/repository/model/1/model.onnx")));
  EXPECT_TRUE(fs::exists(Path("out/repository/model/config.pbtxt")));
  EXPECT_FALSE(fs::exists(Path("out/.hone-tune-work-0"))) << "work files are removed";
  for (const auto& entry : fs::directory_iterator(Path("out"))) {
    EXPECT_EQ(entry.path().filename().string().rfind(".hone-tune-work", 0), std::string::npos) << entry.path();
  }

  const nlohmann::json& verdict = body["verdict"];
  EXPECT_TRUE(verdict["met"].get<bool>());
  EXPECT_EQ(verdict["exit_code"], 0);
  ASSERT_EQ(verdict["slo_results"].size(), 1u);
  EXPECT_TRUE(verdict["slo_results"][0]["met"].get<bool>());
  // Quality: the gates, on the outputs that came back over the wire (robustness on perturbed inputs in process),
  // and no new NaN or Inf.
  ASSERT_EQ(verdict["gates"].size(), 4u) << verdict.dump(2);
  EXPECT_EQ(verdict["gates"][0]["gate"], "accuracy_drop<=0.01");
  EXPECT_EQ(verdict["gates"][0]["on"], "outputs over the wire");
  EXPECT_EQ(verdict["gates"][1]["gate"], "worst_slice_drop<=0.05");
  EXPECT_EQ(verdict["gates"][2]["on"], "the winner in process, perturbed inputs");
  EXPECT_EQ(verdict["gates"][3]["gate"], "new_nan_inf_outputs<=0");
  for (const auto& g : verdict["gates"]) EXPECT_TRUE(g["passed"].get<bool>()) << g.dump();
  EXPECT_GT(verdict["final_cost_per_1000"].get<double>(), 0);
  EXPECT_THAT(verdict["outputs"].get<std::string>(), HasSubstr("1500 held-out rows sent over HTTP"));
  EXPECT_EQ(body["final"]["rows_checked"], 1500);  // rows 500.. of 2,000: the first 500 only calibrate
  EXPECT_EQ(body["objective"]["calibration_rows"], 500);

  // Every stage in order, each with a status and a reason; the served baseline and the in-process reference.
  ASSERT_GE(body["stages"].size(), 6u);
  std::vector<std::string> names;
  for (const auto& s : body["stages"]) {
    names.push_back(s["name"]);
    EXPECT_FALSE(s["reason"].get<std::string>().empty()) << s.dump(2);
  }
  // An eighth, "retune", only when precision chose a lower-precision model (on a CPU where INT8 pays here); the
  // bundled CNN has no feed-forward block, so compression is skipped and cannot change the model.
  const bool lower_precision = body["winner"]["settings"]["precision"] != "fp32";
  std::vector<std::string> expected = {"baseline", "profile", "batching", "graph", "threads", "precision",
                                       "compression"};
  if (lower_precision) expected.push_back("retune");
  EXPECT_EQ(names, expected);
  EXPECT_EQ(body["search"]["mode"], "staged");
  // Each search stage says which signal decided it and in how many paired rounds; each figure how many requests
  // its p99 rests on and the CPU each sample took.
  for (const auto& s : body["stages"]) {
    if (s["index"].get<int>() < 3 || s["status"] == "skipped") continue;
    EXPECT_TRUE(s.contains("decided_by")) << s.dump(2);
    EXPECT_TRUE(s["rounds"].is_number_integer()) << s.dump(2);
    // A finalist that did not win carries its paired ratio; the incumbent that lost has none (it is the 1).
    for (const auto& t : s["trials"]) {
      const bool lost_incumbent = t["reason"].get<std::string>().starts_with("the incumbent;");
      if (t["outcome"] == "not confirmed" && !lost_incumbent) {
        EXPECT_TRUE(t["paired"].is_object()) << t.dump(2);
      }
    }
  }
  for (const auto& l : body["baseline"]["loads"]) {
    EXPECT_GE(l["requests"].get<int>(), 300) << l.dump(2);
    EXPECT_GT(l["cpu_us_per_sample"].get<double>(), 0) << l.dump(2);
  }
  // The final against the baseline, both served in turn: a paired ratio with its interval, unless the baseline won.
  if (body["winner"]["id"] != "baseline") {
    ASSERT_TRUE(verdict["vs_baseline"].is_object()) << verdict.dump(2);
    EXPECT_LE(verdict["vs_baseline"]["low"].get<double>(), verdict["vs_baseline"]["ratio"].get<double>());
    EXPECT_THAT(r.out, HasSubstr("both served in turn"));
  }
  EXPECT_FALSE(body["baseline"]["loads"].empty());
  EXPECT_FALSE(body["baseline"]["in_process"].empty());
  EXPECT_EQ(body["baseline"]["settings"]["max_batch_size"], 0);
  EXPECT_THAT(body["profile"]["summary"].get<std::string>(), HasSubstr("of the kernel time"));
  EXPECT_FALSE(body["curves"].empty());
  EXPECT_THAT(body["reproduce"]["serve"].get<std::string>(), HasSubstr("hone serve --model-repository"));
  EXPECT_THAT(body["reproduce"]["bench"].get<std::string>(), HasSubstr("--concurrency 4"));

  // The repository's config is the winner's, as report.json says.
  const std::string config = test::ReadAll(Path("out/repository/model/config.pbtxt"));
  EXPECT_EQ(config, body["repository"]["config_pbtxt"].get<std::string>());
  EXPECT_THAT(config, AllOf(HasSubstr("platform: \"onnxruntime_onnx\""), HasSubstr("instance_group")));
  const int max_batch_size = body["winner"]["settings"]["max_batch_size"].get<int>();
  if (max_batch_size > 0) {
    EXPECT_THAT(config, HasSubstr("max_batch_size: " + std::to_string(max_batch_size)));
  } else {  // the text format leaves the default out; the inputs then carry the batch dimension as -1
    EXPECT_THAT(config, AllOf(::testing::Not(HasSubstr("max_batch_size")), HasSubstr("dims: -1")));
  }

  // A second run into the same folder is refused before any work: tune never overwrites a previous run.
  ExpectUsage(Tune("out", {}), {"already holds", "choose another -o"});
}

TEST_F(TuneCliTest, TheExhaustiveSearchCrossesEveryStagesCandidatesAndWritesItsBest) {
  RunResult r = Tune("grid", {"--slo", "p99<=200ms@concurrency=4", "--search", "exhaustive"});
  // The budget may end the ranking before the grid does; what was measured is still judged and written.
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.Describe();
  nlohmann::json body = test::ReadReport(Path("grid/report.json"), "tune");
  EXPECT_EQ(body["search"]["mode"], "exhaustive");
  ASSERT_EQ(body["stages"].size(), 3u) << body["stages"].dump(2);
  const nlohmann::json& stage = body["stages"][2];
  EXPECT_EQ(stage["name"], "exhaustive");
  const nlohmann::json& grid = stage["grid"];
  const int product = grid["models"].get<int>() * grid["batching"].get<int>() * grid["graph"].get<int>() *
                      grid["threads"].get<int>();
  EXPECT_EQ(body["search"]["candidates"].get<int>(), product);
  EXPECT_EQ(stage["trials"].size(), static_cast<size_t>(product));
  EXPECT_EQ(stage["trials"][0]["id"], "baseline");  // the grid's first corner is the baseline itself
  // Ids say which stage's choices each combines: "int8-static+batch8-delay0+instances2-intra1".
  bool combined = false;
  for (const auto& t : stage["trials"]) combined = combined || t["id"].get<std::string>().find('+') != std::string::npos;
  EXPECT_TRUE(combined);
  // The best, each a repository of its own, the winner first.
  ASSERT_FALSE(body["search"]["top"].empty());
  const std::string first = "1-" + body["search"]["top"][0]["id"].get<std::string>();
  // The winner is the grid's best (with "+saved-graph" when its saved graph starts sooner).
  EXPECT_EQ(body["winner"]["id"].get<std::string>().rfind(body["search"]["top"][0]["id"].get<std::string>(), 0), 0u);
  EXPECT_TRUE(fs::exists(Path("grid/top/" + first + "/model/config.pbtxt"))) << first;
}

TEST_F(TuneCliTest, AnSloNobodyCanMeetIsExitOneWithTheBestCandidateAndWhy) {
  RunResult r = Tune("miss", {"--slo", "p99<=1us@concurrency=4"});
  ASSERT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_THAT(r.out, AllOf(HasSubstr("NOT MET"), HasSubstr("(bound 1.0 us)")));
  nlohmann::json body = test::ReadReport(Path("miss/report.json"), "tune");
  const nlohmann::json& verdict = body["verdict"];
  EXPECT_FALSE(verdict["met"].get<bool>());
  EXPECT_EQ(verdict["exit_code"], 1);
  EXPECT_FALSE(verdict["best_candidate"].get<std::string>().empty());
  ASSERT_FALSE(verdict["misses"].empty());
  EXPECT_THAT(verdict["misses"][0].get<std::string>(), HasSubstr("p99"));
  EXPECT_THAT(verdict["summary"].get<std::string>(), HasSubstr("not met: the best candidate"));
  EXPECT_LT(verdict["slo_results"][0]["margin"].get<double>(), 0);
  // Every candidate that lost says why.
  for (const auto& rejected : body["rejected"]) EXPECT_FALSE(rejected["reason"].get<std::string>().empty());
  EXPECT_TRUE(fs::exists(Path("miss/repository/model/config.pbtxt")));  // the best it found, still served as is
}

TEST_F(TuneCliTest, BadUsageFailsBeforeAnyMeasurement) {
  ExpectUsage(Hone({"tune", kModel, "-o", Path("a"), "--slo", "p99<=5@concurrency=8"}), {"--slo", "unit"});
  ExpectUsage(Hone({"tune", kModel, "-o", Path("a"), "--budget", "0"}), {"--budget"});
  ExpectUsage(Hone({"tune", kModel, "-o", Path("a"), "--gate", "accuracy_drop"}), {"accuracy_drop"});
  ExpectUsage(Hone({"tune", Path("missing.onnx"), "-o", Path("a")}), {"missing.onnx"});
  ExpectUsage(Hone({"tune", kModel, "-o", Path("a"), "--data",
                    std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/reference_logits.npy"}),
              {"--data", ".npz"});
  ExpectUsage(Hone({"tune", kModel}), {"--out"});
  // A gate on a metric evaluate does not have is found before the budget is spent, not after.
  ExpectUsage(Hone({"tune", kModel, "--data", kData, "-o", Path("a"), "--gate", "accuracy_dorp<=0.01"}),
              {"--gate", "accuracy_dorp"});
  ExpectUsage(Hone({"tune", kModel, "--data", kData, "-o", Path("a"), "--slice", "label"}), {"--slice", "--gate"});
  ExpectUsage(Hone({"tune", kModel, "--data", kData, "-o", Path("a"), "--perturb", "blur:2"}), {"blur"});
  // p50, p95, p99 and one other percentile are measured: two others cannot both be judged.
  ExpectUsage(Hone({"tune", kModel, "-o", Path("a"), "--slo", "p90<=2ms@concurrency=8", "--slo",
                    "p99.9<=10ms@concurrency=8"}),
              {"p90<=2ms@concurrency=8", "at most one other"});
  // The replicas are counted from an SLO's capacity: an expected load needs one, and a load hone can read.
  ExpectUsage(Hone({"tune", kModel, "-o", Path("a"), "--slo", "p99<=5ms@concurrency=8", "--expected-load", "qps=10"}),
              {"--expected-load 'qps=10'", "rate=R"});
  ExpectUsage(Hone({"tune", kModel, "-o", Path("a"), "--expected-load", "concurrency=64"}), {"needs an --slo"});
  EXPECT_FALSE(fs::exists(Path("a/report.json")));
}

TEST_F(TuneCliTest, HelpEndsWithExamples) {
  RunResult r = Hone({"tune", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, AllOf(HasSubstr("--slo"), HasSubstr("--gate"), HasSubstr("--budget"), HasSubstr("Examples:"),
                           HasSubstr("hone serve --model-repository")));
}

}  // namespace
}  // namespace hone
