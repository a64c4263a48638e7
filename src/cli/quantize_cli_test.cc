// hone quantize and hone convert end to end: the binary runs as a child process on the bundled model; exit codes,
// the summary it prints, and the files it writes are checked. Bad input exits 2 with one message naming the fault;
// a variant that misses its gate exits 1 and stays on disk.
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/temp_dir_test_util.h"
#include "cli/run_hone_test_util.h"
#include "tensor/npz.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using test::ReadAll;
using test::RunResult;

const std::string kModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";

class QuantizeCliTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.File(name); }

  RunResult Hone(std::vector<std::string> args) { return test::RunHone(std::move(args), dir_.path()); }

  void ExpectUsageError(const RunResult& r, const std::string& part) { test::ExpectUsage(r, {part}); }

  // No staging directory (.hone-staging-*) is left behind.
  void ExpectNothingStaged() {
    for (const auto& e : fs::directory_iterator(dir_.path()))
      EXPECT_EQ(e.path().filename().string().rfind(".hone-staging", 0), std::string::npos) << e.path();
  }

  testing_util::TempDir dir_;
};

TEST_F(QuantizeCliTest, StaticVerifiesOnTheRowsCalibrationDidNotUse) {
  std::string out = Path("static.onnx");
  RunResult r = Hone({"quantize", kModel, "-o", out, "--mode", "static", "--calibration-data", kData,
                      "--calibration-samples", "300", "--calibrate", "percentile", "--no-bench",
                      "--intra-op-threads", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_TRUE(fs::exists(out));
  EXPECT_THAT(r.out, HasSubstr("mode=static format=qdq"));
  EXPECT_THAT(r.out, HasSubstr("quantized 4 node(s)"));
  EXPECT_THAT(r.out, HasSubstr("calibration: percentile 99.999% over 300 samples"));
  EXPECT_THAT(r.out, HasSubstr("rows 300 and after"));
  EXPECT_THAT(r.out, HasSubstr("(1700 samples)"));
  EXPECT_THAT(r.out, HasSubstr("cosine similarity"));
  EXPECT_THAT(r.out, HasSubstr("accuracy"));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASSED"));
}

TEST_F(QuantizeCliTest, DynamicWithBenchmarkReportsRatiosAndASlowerVariantFails) {
  RunResult r = Hone({"quantize", kModel, "-o", Path("dynamic.onnx"), "--data", kData, "--bench-window-ms", "50",
                      "--bench-rounds", "2", "--intra-op-threads", "1"});
  for (const char* part : {"size", "p50 latency", "p99 latency", "throughput (samples/s)", "bench: in process",
                           "medians of 2 rounds alternating source and variant"})
    EXPECT_THAT(r.out, HasSubstr(part)) << r.Describe();
  // Whether INT8 pays on this CPU is the machine's business; what the verdict does with the measurement is not.
  if (r.exit_code == 1) {
    EXPECT_THAT(r.out, HasSubstr("verdict: FAILED: slower than the source")) << r.Describe();
    EXPECT_THAT(r.out, HasSubstr("--allow-slower")) << r.Describe();
  } else {
    EXPECT_EQ(r.exit_code, 0) << r.Describe();
    EXPECT_THAT(r.out, HasSubstr("verdict: PASSED")) << r.Describe();
  }
  RunResult allowed = Hone({"quantize", kModel, "-o", Path("dynamic2.onnx"), "--data", kData, "--bench-window-ms",
                            "50", "--bench-rounds", "2", "--intra-op-threads", "1", "--allow-slower"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.Describe();
  EXPECT_THAT(allowed.out, HasSubstr("verdict: PASSED")) << allowed.Describe();
}

TEST_F(QuantizeCliTest, AnOutputThatIsTheInputIsRefusedAndTheInputKept) {
  std::string model = dir_.CopySource("models/fashion_mnist/model.onnx", "model.onnx");
  const auto size = fs::file_size(model);
  ExpectUsageError(Hone({"quantize", model, "-o", model, "--no-verify"}), "never overwrites its input");
  ExpectUsageError(Hone({"quantize", model, "-o", dir_.str() + "/./model.onnx", "--no-verify"}),
                   "never overwrites its input");
  fs::create_symlink(model, Path("link.onnx"));
  ExpectUsageError(Hone({"convert", model, "-o", Path("link.onnx"), "--no-verify"}), "never overwrites its input");
  EXPECT_EQ(fs::file_size(model), size);
  ExpectNothingStaged();
}

TEST_F(QuantizeCliTest, NothingQuantizedIsAFailureAndWritesNothing) {
  // The bundled CNN has no MatMul (its dense layers are Gemm), so weight-only (MatMulNBits) changes nothing.
  std::string out = Path("wo.onnx");
  RunResult r = Hone({"quantize", kModel, "-o", out, "--mode", "weight-only", "--data", kData});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("quantized 0 node(s)"));
  EXPECT_THAT(r.err, HasSubstr("nothing to quantize"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("PASSED")));
  EXPECT_FALSE(fs::exists(out));
  ExpectNothingStaged();
}

TEST_F(QuantizeCliTest, ConvertFp16) {
  std::string out = Path("fp16.onnx");
  RunResult r = Hone({"convert", kModel, "-o", out, "--to", "fp16", "--data", kData, "--no-bench",
                      "--intra-op-threads", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("to=fp16 keep_io_types=on"));
  EXPECT_THAT(r.out, HasSubstr("argmax agreement"));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASSED"));
  EXPECT_LT(fs::file_size(out), fs::file_size(kModel) * 6 / 10);  // weights in half the bytes
}

TEST_F(QuantizeCliTest, AVariantBeyondItsGateFailsAndIsKept) {
  std::string out = Path("strict.onnx");
  RunResult r = Hone({"quantize", kModel, "-o", out, "--data", kData, "--no-bench", "--gate", "accuracy_drop<=-1",
                      "--intra-op-threads", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("verdict: FAILED: gate accuracy_drop<=-1"));
  EXPECT_THAT(r.err, HasSubstr("kept at '" + out + "'"));
  EXPECT_TRUE(fs::exists(out));
}

TEST_F(QuantizeCliTest, AnExcludedOpTypeTheModelLacksIsAWarning) {
  RunResult r = Hone({"quantize", kModel, "-o", Path("q.onnx"), "--exclude-ops", "LSTM", "--no-verify"});
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("warning: --exclude-ops 'LSTM': the model has no LSTM node"));
}

TEST_F(QuantizeCliTest, BadInput) {
  std::ofstream(Path("notes.onnx")) << "not a model";
  ExpectUsageError(Hone({"quantize", Path("notes.onnx"), "-o", Path("q.onnx")}), "is not an ONNX model");
  ExpectUsageError(Hone({"convert", Path("notes.onnx"), "-o", Path("c.onnx")}), "is not an ONNX model");
  ExpectUsageError(Hone({"quantize", kModel, "-o", Path("q.onnx"), "--mode", "static"}), "--calibration-data");
  ExpectUsageError(Hone({"quantize", kModel, "-o", Path("q.onnx"), "--mode", "fast"}), "--mode 'fast'");
  ExpectUsageError(Hone({"convert", kModel, "-o", Path("c.onnx"), "--to", "int3"}), "--to 'int3'");

  // Calibration data with no rows, and data that does not fit the model's input.
  auto image = Tensor::Allocate(DataType::kFp32, {0, 1, 28, 28});
  ASSERT_TRUE(WriteNpz(Path("empty.npz"), {{"image", *image}}, false).ok());
  ExpectUsageError(Hone({"quantize", kModel, "-o", Path("q.onnx"), "--mode", "static", "--calibration-data",
                         Path("empty.npz"), "--no-verify"}),
                   "no rows");
  auto wrong = Tensor::Allocate(DataType::kFp32, {4, 1, 20, 20});
  ASSERT_TRUE(WriteNpz(Path("wrong.npz"), {{"image", *wrong}}, false).ok());
  ExpectUsageError(Hone({"quantize", kModel, "-o", Path("q.onnx"), "--mode", "static", "--calibration-data",
                         Path("wrong.npz"), "--no-verify"}),
                   "'image'");
  // Static verification needs rows calibration did not use.
  ExpectUsageError(Hone({"quantize", kModel, "-o", Path("q.onnx"), "--mode", "static", "--calibration-data", kData}),
                   "held-out data");
}

}  // namespace
}  // namespace hone
