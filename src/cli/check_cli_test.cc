// End-to-end tests of hone compare and hone evaluate: the binary runs as a child process; its exit status, stdout,
// stderr and JSON reports are checked. Exit codes: 0 ok, 1 a check failed, 2 bad usage.
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "check/test_models.h"
#include "cli/run_hone_test_util.h"
#include "tensor/npz.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using test::ReadAll;
using test::RunResult;

const std::string kDir = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/";
const std::string kModel = kDir + "model.onnx";
const std::string kData = kDir + "test.npz";
const std::string kLogits = kDir + "reference_logits.npy";

class CheckCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("hone_check_cli_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    // One weight tensor scaled by 1.001, and one class's output weights zeroed.
    ASSERT_EQ(check::testing::ScaleWeights(kModel, "fc2.weight", 1.001f, Path("scaled.onnx")), "");
    ASSERT_EQ(check::testing::EditWeights(kModel, "fc2.weight", Path("broken.onnx"),
                                          [](std::span<float> w) { std::fill(w.begin(), w.begin() + 64, 0.0f); }),
              "");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }
  static std::string Path(const std::string& name) { return (*dir_ / name).string(); }

  // Runs hone with `args` (stdin empty, stdout and stderr captured apart).
  static RunResult Hone(std::vector<std::string> args) { return test::RunHone(std::move(args), *dir_); }

  // A hone report's body, its envelope checked (test::ReadReport).
  static nlohmann::json Report(const std::string& path, const std::string& kind) {
    return test::ReadReport(path, kind);
  }

  static nlohmann::json Json(const std::string& path) {
    auto j = nlohmann::json::parse(ReadAll(path), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << path;
    return j;
  }

  static fs::path* dir_;
};
fs::path* CheckCliTest::dir_ = nullptr;

using test::ExpectUsage;

TEST_F(CheckCliTest, CompareModelWithItselfPasses) {
  RunResult r = Hone({"compare", kModel, kModel, "--data", kData, "--batch", "100", "--json", Path("self.json")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("result     PASS: 1 of 1 outputs matched"));
  EXPECT_EQ(r.err, "");
  auto j = Report(Path("self.json"), "compare");
  EXPECT_EQ(j["passed"], true);
  EXPECT_EQ(j["outputs"][0]["abs_error"]["max"], 0.0);
  EXPECT_EQ(j["outputs"][0]["reference"]["shape"], nlohmann::json::parse("[2000, 10]"));
}

TEST_F(CheckCliTest, CompareScaledWeightsMatchByDefaultAndFailElementwise) {
  // A 0.1% change of one weight tensor: the default rule (the one every variant is verified with) calls that the
  // same behaviour; elementwise tolerances of 1e-5 do not.
  RunResult same = Hone({"compare", kModel, Path("scaled.onnx"), "--data", kData, "--batch", "100"});
  ASSERT_EQ(same.exit_code, 0) << same.Describe();
  EXPECT_THAT(same.out, HasSubstr("similarity: no NaN/Inf the reference lacks, cosine >= 0.999"));
  RunResult r = Hone({"compare", kModel, Path("scaled.onnx"), "--data", kData, "--batch", "100", "--atol", "1e-5",
                      "--json", Path("scaled.json")});
  ASSERT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("FAIL"));
  EXPECT_THAT(r.out, HasSubstr("would pass with"));
  auto j = Report(Path("scaled.json"), "compare");
  EXPECT_EQ(j["passed"], false);
  EXPECT_GT(j["outputs"][0]["mismatched"].get<int64_t>(), 0);
  const double atol = j["outputs"][0]["min_passing"]["atol"].get<double>();
  // The smallest atol the report gives is one that passes.
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", atol);
  EXPECT_EQ(Hone({"compare", kModel, Path("scaled.onnx"), "--data", kData, "--batch", "100", "--atol", text}).exit_code, 0);
}

TEST_F(CheckCliTest, CompareRunsAModelWithoutASharedBatchDimension) {
  // input [1, N], state [2, 1, 128] and a scalar 'sr': each run takes whole tensors, each output is one sample.
  const std::string stateful = std::string(HONE_SOURCE_DIR) + "/src/runtime/testdata/stateful.onnx";
  RunResult r = Hone({"compare", stateful, stateful, "--shape", "input:1x16", "--json", Path("stateful.json")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  auto j = Report(Path("stateful.json"), "compare");
  ASSERT_EQ(j["outputs"].size(), 2u);
  EXPECT_EQ(j["outputs"][0]["reference"]["shape"][0], 64);  // 64 generated samples, stacked on a new axis
}

TEST_F(CheckCliTest, CompareDefaultRuleFailsAScaleThatCosineCannotSee) {
  // Output weights times 1.5: logits scale almost uniformly, so cosine stays near 1, but the largest error is a
  // large share of the logits' range.
  ASSERT_EQ(check::testing::ScaleWeights(kModel, "fc2.weight", 1.5f, Path("scaled15.onnx")), "");
  RunResult r = Hone({"compare", kModel, Path("scaled15.onnx"), "--data", kData, "--batch", "100"});
  ASSERT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("of the reference's range"));
}

TEST_F(CheckCliTest, CompareAgainstPyTorchLogitsAndSavedOutputs) {
  RunResult r = Hone({"compare", kLogits, kModel, "--data", kData, "--atol", "1e-4", "--rtol", "0", "--batch", "100",
                "--save-candidate-outputs", Path("ort.npz")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("saved outputs '" + kLogits + "'"));
  RunResult saved = Hone({"compare", Path("ort.npz"), kModel, "--data", kData, "--batch", "50"});
  EXPECT_EQ(saved.exit_code, 0) << saved.Describe();
  RunResult files = Hone({"compare", Path("ort.npz"), kLogits, "--atol", "logits:1e-4", "--rtol", "0"});
  EXPECT_EQ(files.exit_code, 0) << files.Describe();
}

// --bench measures both side by side: a table of the two and their ratio, and the same figures in the report.
TEST_F(CheckCliTest, CompareBenchMeasuresBothSideBySide) {
  RunResult r = Hone({"compare", kModel, Path("scaled.onnx"), "--data", kData, "--bench", "--bench-rounds", "2",
                      "--bench-window-ms", "50", "--json", Path("bench.json")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("speed, candidate against reference:"));
  EXPECT_THAT(r.out, HasSubstr("throughput (samples/s)"));
  EXPECT_THAT(r.out, HasSubstr("medians of 2 rounds alternating reference and candidate"));
  auto j = Report(Path("bench.json"), "compare");
  ASSERT_TRUE(j["speed"].is_object()) << j.dump();
  EXPECT_EQ(j["speed"]["rounds"].size(), 2u);
  EXPECT_GT(j["speed"]["throughput_ratio"]["median"].get<double>(), 0);
  ExpectUsage(Hone({"compare", kModel, kModel, "--bench", "--bench-rounds", "0"}), {"--bench-rounds"});
  ExpectUsage(Hone({"compare", kLogits, kModel, "--data", kData, "--bench"}), {"--bench"});
}

TEST_F(CheckCliTest, CompareBadUsage) {
  ExpectUsage(Hone({"compare", kModel, kModel, "--atol", "lots"}), {"--atol 'lots'"});
  ExpectUsage(Hone({"compare", kModel, kModel, "--error-stat", "median"}), {"--error-stat 'median'"});
  ExpectUsage(Hone({"compare", kModel, kModel, "--map", "logits"}), {"--map 'logits'"});
  ExpectUsage(Hone({"compare", kModel, kModel, "--atol", "probs:1e-3"}), {"output 'probs'", "not compared"});
  ExpectUsage(Hone({"compare", kModel, Path("missing.onnx")}), {"missing.onnx"});
  ExpectUsage(Hone({"compare", kLogits, kModel}), {"2000 rows", "--data"});
  ExpectUsage(Hone({"compare", kModel, kModel, "--intra-op-threads", "1,2"}), {"compare runs one"});
  ExpectUsage(Hone({"compare", kModel}), {"candidate"});
}

TEST_F(CheckCliTest, EvaluateMatchesPyTorchAccuracy) {
  RunResult r = Hone({"evaluate", kModel, "--data", kData, "--batch", "100", "--json", Path("eval.json")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("task       classification: output 'logits' [2000, 10] against labels 'label'"));
  EXPECT_THAT(r.out, HasSubstr("reliability (15 equal-width confidence bins"));
  auto j = Report(Path("eval.json"), "evaluate");
  const double pytorch = Json(kDir + "export_report.json")["accuracy_held_out_2000"].get<double>();
  EXPECT_NEAR(j["metrics"]["accuracy"]["value"].get<double>(), pytorch, 0.001);
  EXPECT_EQ(j["metrics"]["ece"]["unit"], "ratio");
  EXPECT_EQ(j["metrics"]["nll"]["unit"], "nats");
  EXPECT_EQ(j["candidate"]["quality"]["classification"]["reliability"].size(), 15u);
  EXPECT_EQ(j["candidate"]["stability"]["nan"], 0);
}

TEST_F(CheckCliTest, EvaluateSlicesAndPerturbations) {
  RunResult r = Hone({"evaluate", kModel, "--data", kData, "--batch", "100", "--slice", "label", "--perturb",
                "gaussian:0.01,0.05", "--json", Path("slices.json")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("gaussian:0.05"));
  auto j = Report(Path("slices.json"), "evaluate");
  EXPECT_EQ(j["slices"]["slices"].size(), 10u);
  EXPECT_EQ(j["candidate"]["perturbations"].size(), 2u);
  EXPECT_TRUE(j["metrics"].contains("accuracy_drop@gaussian:0.05"));
  EXPECT_TRUE(j["metrics"].contains("worst_slice_gap"));
}

TEST_F(CheckCliTest, EvaluateGateFailsForChangedWeights) {
  const std::string gates = "accuracy_drop<=0.005,ece_increase<=0.01,worst_slice_drop<=0.01";
  RunResult bad = Hone({"evaluate", Path("broken.onnx"), "--data", kData, "--batch", "100", "--against", kModel, "--slice",
                  "label", "--stability-epsilon", "0", "--gate", gates});
  EXPECT_EQ(bad.exit_code, 1) << bad.Describe();
  EXPECT_THAT(bad.out, HasSubstr("result     FAIL"));
  RunResult good = Hone({"evaluate", Path("scaled.onnx"), "--data", kData, "--batch", "100", "--against", kModel,
                   "--slice", "label", "--stability-epsilon", "0", "--gate", gates});
  EXPECT_EQ(good.exit_code, 0) << good.Describe();
  EXPECT_THAT(good.out, HasSubstr("result     PASS: 4 of 4 gates passed"));
  EXPECT_THAT(good.out, HasSubstr("new_nan_inf_outputs<=0"));  // added to every evaluation against a reference
}

TEST_F(CheckCliTest, EvaluateBadUsage) {
  ExpectUsage(Hone({"evaluate", kModel}), {"needs --data"});
  ExpectUsage(Hone({"evaluate", kModel, "--data", kData, "--gate", "accuracy=1"}), {"--gate 'accuracy=1'"});
  ExpectUsage(Hone({"evaluate", kModel, "--data", kData, "--stability-epsilon", "0", "--gate", "acc<=1"}),
              {"no metric 'acc'", "accuracy"});
  ExpectUsage(Hone({"evaluate", kModel, "--data", kData, "--perturb", "blur:1"}), {"unknown kind 'blur'"});
  ExpectUsage(Hone({"evaluate", kModel, "--data", kData, "--task", "ranking"}), {"--task 'ranking'"});
  ExpectUsage(Hone({"evaluate", kModel, "--data", kData, "--labels", "truth"}), {"--labels truth", "image, label"});
  std::ofstream(Path("garbage.npz")) << "not a zip";
  ExpectUsage(Hone({"evaluate", kModel, "--data", Path("garbage.npz")}), {"garbage.npz"});
  std::vector<NamedTensor> arrays = *ReadNpz(kData);
  arrays[1].tensor = *arrays[1].tensor.SliceRows(0, 1500);
  ASSERT_TRUE(WriteNpz(Path("short_labels.npz"), arrays, false).ok());
  ExpectUsage(Hone({"evaluate", kModel, "--data", Path("short_labels.npz")}),
              {"labels 'label'", "1500 labels, but the dataset's inputs have 2000 samples"});
}

}  // namespace
}  // namespace hone
