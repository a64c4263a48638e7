// hone prune end to end: the binary runs as a child process on a feed-forward model written here and on the bundled
// CNN (which has no block to prune); exit codes, the summary it prints, the files and the report it writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "base/temp_dir_test_util.h"
#include "cli/run_hone_test_util.h"
#include "onnx/onnx_pb.h"
#include "onnx/prune_test_models.h"
#include "tensor/npz.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using test::RunResult;

const std::string kCnn = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kCnnData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";

class PruneCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = dir_.Write("ffn.onnx", onnx::testing::FfnModel(32, false, true).SerializeAsString());
    std::vector<NamedTensor> arrays{{"x", onnx::testing::RandomTensor({96, 6, 4}, 5, -2, 2)}};
    data_ = dir_.File("data.npz");
    ASSERT_TRUE(WriteNpz(data_, arrays, false).ok());
  }
  std::string Path(const std::string& name) const { return dir_.File(name); }
  RunResult Hone(std::vector<std::string> args) { return test::RunHone(std::move(args), dir_.path()); }

  testing_util::TempDir dir_;
  std::string model_, data_;
};

TEST_F(PruneCliTest, PrunesRefitsAndVerifiesOnTheRowsCalibrationDidNotUse) {
  const std::string out = Path("pruned.onnx");
  RunResult r = Hone({"prune", model_, "-o", out, "--ratio", "0.5", "--keep-multiple", "8", "--calibration-data",
                      data_, "--calibration-samples", "64", "--no-bench", "--intra-op-threads", "1", "--quiet",
                      "--json", Path("prune.json")});
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_TRUE(fs::exists(out));
  EXPECT_THAT(r.out, HasSubstr("refit by least squares on 64 samples"));
  EXPECT_THAT(r.out, HasSubstr("up -> down: 16 of 32 neurons kept"));
  EXPECT_THAT(r.out, HasSubstr("rows 64 and after"));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASSED"));
  nlohmann::json body = test::ReadReport(Path("prune.json"), "prune");
  EXPECT_EQ(body["verdict"], "passed");
  EXPECT_EQ(body["transform"]["blocks"][0]["kept"], 16);
  EXPECT_EQ(body["transform"]["weights_after"], 4 * 16 + 16 * 4 + 16 + 4);
}

TEST_F(PruneCliTest, PrunesAttentionHeads) {
  const std::string model = dir_.Write("mha.onnx", onnx::testing::AttentionBlockModel(true).SerializeAsString());
  std::vector<NamedTensor> arrays{{"x", onnx::testing::RandomTensor({96, 6, 8}, 5, -2, 2)}};
  ASSERT_TRUE(WriteNpz(Path("x8.npz"), arrays, false).ok());
  RunResult r = Hone({"prune", model, "-o", Path("heads.onnx"), "--ratio", "0", "--head-ratio", "0.5",
                      "--calibration-data", Path("x8.npz"), "--calibration-samples", "64", "--no-bench",
                      "--intra-op-threads", "1", "--quiet", "--json", Path("heads.json")});
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("attention heads, ratio 0.5"));
  EXPECT_THAT(r.out, HasSubstr("q_proj -> out_proj: 1 of 2 heads kept"));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASSED"));
  nlohmann::json body = test::ReadReport(Path("heads.json"), "prune");
  EXPECT_EQ(body["transform"]["blocks"][0]["unit"], "heads");
  EXPECT_EQ(body["transform"]["head_ratio"], 0.5);
}

// The bundled Fashion-MNIST CNN: conv2's channels (read by fc1 after the Flatten) and fc1's neurons (Gemm, Relu,
// Gemm) go; conv1's 16 channels are one block of 16.
TEST_F(PruneCliTest, PrunesTheBundledCnnsChannelsAndHiddenNeurons) {
  const std::string out = Path("cnn.pruned.onnx");
  RunResult r = Hone({"prune", kCnn, "-o", out, "--ratio", "0.5", "--channel-multiple", "16", "--calibration-data",
                      kCnnData, "--calibration-samples", "1000", "--no-verify", "--json", Path("cnn.json")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("/conv2/Conv -> /fc1/Gemm: 16 of 32 channels kept"));
  EXPECT_THAT(r.out, HasSubstr("/fc1/Gemm -> /fc2/Gemm: 32 of 64 neurons kept"));
  EXPECT_THAT(r.out, HasSubstr("not pruned: node '/conv1/Conv' (Conv): 16 output channels; keeping a multiple of 16"));
  const auto body = test::ReadReport(Path("cnn.json"), "prune");
  EXPECT_EQ(body["transform"]["channel_multiple"], 16);
  ASSERT_EQ(body["transform"]["blocks"].size(), 2u);
  EXPECT_EQ(body["transform"]["blocks"][1]["unit"], "channels");
  EXPECT_LT(body["transform"]["blocks"][1]["relative_error"].get<double>(), 0.01);
  EXPECT_TRUE(fs::exists(out));
}

// A goal no share can reach: each distinct share is measured and said, nothing is written, exit 1.
TEST_F(PruneCliTest, ATargetSpeedupNoShareReachesWritesNothing) {
  const std::string out = Path("cnn.target.onnx");
  RunResult r = Hone({"prune", kCnn, "-o", out, "--target-speedup", "100", "--channel-multiple", "16",
                      "--calibration-data", kCnnData, "--calibration-samples", "1000", "--data", kCnnData,
                      "--bench-rounds", "1", "--bench-window-ms", "20", "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("share 0.125  nothing to prune at this share"));
  EXPECT_THAT(r.out, HasSubstr("share 0.25   neurons 48/64: "));
  EXPECT_THAT(r.out, HasSubstr("share 0.375  neurons 48/64, channels 16/32: "));
  EXPECT_THAT(r.out, HasSubstr("the same counts as the share before"));
  EXPECT_THAT(r.err, HasSubstr("no share up to 0.75 reached 100x (the fastest measured: "));
  EXPECT_FALSE(fs::exists(out));
  test::ExpectUsage(Hone({"prune", kCnn, "-o", out, "--target-speedup", "1", "--calibration-data", kCnnData,
                          "--calibration-samples", "1000"}),
                    {"--target-speedup 1: expected a throughput ratio above 1"});
  test::ExpectUsage(Hone({"prune", kCnn, "-o", out, "--target-speedup", "1.5", "--ratio", "0.5", "--calibration-data",
                          kCnnData, "--calibration-samples", "1000"}),
                    {"--ratio"});
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(PruneCliTest, AModelWithNothingToRemoveWritesNothing) {
  const std::string out = Path("cnn.onnx");
  RunResult r = Hone({"prune", kCnn, "-o", out, "--calibration-data", kCnnData, "--calibration-samples", "100",
                      "--keep-multiple", "64", "--channel-multiple", "32", "--quiet", "--json", Path("none.json")});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("nothing to prune"));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(test::ReadReport(Path("none.json"), "prune")["verdict"], "nothing changed");
}

TEST_F(PruneCliTest, BadUsageNamesTheFault) {
  const std::string out = Path("bad.onnx");
  test::ExpectUsage(Hone({"prune", model_, "-o", out, "--ratio", "1.5", "--calibration-data", data_}), {"--ratio 1.5"});
  test::ExpectUsage(Hone({"prune", model_, "-o", out}), {"--calibration-data"});
  test::ExpectUsage(Hone({"prune", model_, "-o", out, "--ratio", "0", "--calibration-data", data_}),
                    {"remove nothing"});
  // Verifying on the calibration rows would flatter the refit.
  test::ExpectUsage(Hone({"prune", model_, "-o", out, "--calibration-data", data_}), {"held-out data"});
  test::ExpectUsage(Hone({"prune", model_, "-o", model_, "--calibration-data", data_, "--no-verify"}), {"ffn.onnx"});
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace hone
