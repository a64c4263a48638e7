// Static QDQ quantization end to end on small graphs: plan (what gets pairs), calibration over a dataset written
// here, the rewrite, and the result run in ONNX Runtime; plus the errors for bad calibration data.
#include "onnx/quantize_static.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize.h"
#include "onnx/quantize_test_models.h"
#include "tensor/npz.h"

namespace hone::onnx {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::OpTypes;

int Count(const ::onnx::ModelProto& m, const std::string& op) {
  auto ops = OpTypes(m);
  return static_cast<int>(std::count(ops.begin(), ops.end(), op));
}

class QuantizeStaticTest : public ::testing::Test {
 protected:
  // A calibration set of `rows` samples for input "x" of `sample_shape`, values in [low, high).
  std::string WriteData(const std::string& name, Shape shape, float low = 0, float high = 1) {
    std::vector<NamedTensor> arrays{{"x", testing::RandomTensor(std::move(shape), 99, low, high)}};
    std::string path = dir_.File(name);
    EXPECT_TRUE(WriteNpz(path, arrays, false).ok());
    return path;
  }

  QuantizeOptions Static(const std::string& data, CalibrationMethod method = CalibrationMethod::kMinMax) {
    QuantizeOptions o;
    o.mode = QuantizeMode::kStatic;
    o.calibration = method;
    o.calibration_inputs.data_path = data;
    o.calibration_threads = 1;
    return o;
  }

  // Quantizes, saves, loads, and returns the largest output error relative to the largest output on `input`.
  double RelativeError(const ::onnx::ModelProto& source, ::onnx::ModelProto* quantized, const QuantizeOptions& o,
                       const Tensor& input, QuantizeSummary* summary) {
    *quantized = source;
    auto s = QuantizeModel(quantized, o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return 1e9;
    *summary = *s;
    std::string path = dir_.File("q.onnx");
    Status saved = SaveAndLoadCheck(*quantized, path);
    EXPECT_TRUE(saved.ok()) << saved.ToString();
    std::string error;
    auto ref = testing::RunFirstOutput(dir_.WriteModel("f.onnx", source), input, &error);
    auto got = testing::RunFirstOutput(path, input, &error);
    EXPECT_TRUE(error.empty()) << error;
    return testing::MaxAbsDiff(ref, got) / testing::MaxAbs(ref);
  }

  testing::TempDir dir_;
};

TEST_F(QuantizeStaticTest, PlanFoldsReluAndSharesThroughDataMovement) {
  ::onnx::ModelProto m = testing::SmallCnnModel();
  QuantizeOptions o = Static("unused.npz");
  ASSERT_TRUE(QuantizeModel(&m, QuantizeOptions{}).ok());  // names the nodes the way the pass sees them
  m = testing::SmallCnnModel();
  QuantizeSummary summary;
  StaticPlan plan = PlanStatic(m, o, &summary);
  EXPECT_EQ(plan.compute.size(), 3u);
  // x, r (conv+relu), p (maxpool, shared), f (flatten, shared), hr (gemm+relu); logits is a graph output.
  EXPECT_THAT(plan.activations, ElementsAre("x", "r", "f", "hr", "p"));
  EXPECT_THAT(plan.Calibrated(), ElementsAre("x", "r", "hr"));
  EXPECT_EQ(plan.shares.at("p"), "r");
  EXPECT_EQ(plan.folded_relu.size(), 2u);
}

TEST_F(QuantizeStaticTest, SmallCnnEveryCalibrationMethod) {
  std::string data = WriteData("cal.npz", {64, 1, 8, 8});
  for (CalibrationMethod method : {CalibrationMethod::kMinMax, CalibrationMethod::kPercentile,
                                   CalibrationMethod::kEntropy}) {
    SCOPED_TRACE(std::string(CalibrationMethodName(method)));
    ::onnx::ModelProto q;
    QuantizeSummary summary;
    double err = RelativeError(testing::SmallCnnModel(), &q, Static(data, method),
                               testing::RandomTensor({8, 1, 8, 8}, 5), &summary);
    EXPECT_LE(err, 0.1);
    EXPECT_GT(err, 0.0);
    EXPECT_EQ(Count(q, "Relu"), 0);  // both folded into their QuantizeLinear
    EXPECT_EQ(Count(q, "QuantizeLinear"), 5);
    EXPECT_THAT(summary.calibration, HasSubstr("over 64 samples"));
    EXPECT_EQ(summary.quantized.size(), 3u);
  }
}

TEST_F(QuantizeStaticTest, SymmetricActivationsKeepRelu) {
  std::string data = WriteData("cal.npz", {32, 1, 8, 8});
  QuantizeOptions o = Static(data);
  o.symmetric_activations = true;
  o.per_channel = false;
  ::onnx::ModelProto q;
  QuantizeSummary summary;
  double err = RelativeError(testing::SmallCnnModel(), &q, o, testing::RandomTensor({4, 1, 8, 8}, 6), &summary);
  EXPECT_LE(err, 0.1);
  EXPECT_EQ(Count(q, "Relu"), 2);
}

TEST_F(QuantizeStaticTest, AttentionBlockQuantizesBothActivationInputs) {
  std::string data = WriteData("cal.npz", {32, 8, 16}, -1, 1);
  ::onnx::ModelProto q;
  QuantizeSummary summary;
  double err = RelativeError(testing::AttentionModel(), &q, Static(data, CalibrationMethod::kPercentile),
                             testing::RandomTensor({2, 8, 16}, 7, -1, 1), &summary);
  EXPECT_LE(err, 0.1);
  EXPECT_EQ(summary.quantized.size(), 6u);  // four projections and both activation x activation MatMuls
}

TEST_F(QuantizeStaticTest, ExcludedOpTypeStaysFloat) {
  std::string data = WriteData("cal.npz", {16, 1, 8, 8});
  QuantizeOptions o = Static(data);
  o.exclude_op_types = {"Conv"};
  ::onnx::ModelProto q;
  QuantizeSummary summary;
  RelativeError(testing::SmallCnnModel(), &q, o, testing::RandomTensor({2, 1, 8, 8}, 8), &summary);
  EXPECT_EQ(summary.quantized.size(), 2u);
  EXPECT_TRUE(summary.warnings.empty());
  for (const auto& node : q.graph().node()) {
    if (node.op_type() == "Conv") {
      EXPECT_EQ(node.input(1), "conv_w");  // the float weight, not a DequantizeLinear
    }
  }
}

TEST_F(QuantizeStaticTest, EmptyCalibrationDataIsAnError) {
  std::string data = WriteData("empty.npz", {0, 1, 8, 8});
  ::onnx::ModelProto m = testing::SmallCnnModel();
  auto s = QuantizeModel(&m, Static(data));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("empty.npz"));
}

TEST_F(QuantizeStaticTest, CalibrationDataThatDoesNotMatchTheInputs) {
  std::string wrong_shape = WriteData("shape.npz", {4, 1, 7, 7});
  ::onnx::ModelProto m = testing::SmallCnnModel();
  auto s = QuantizeModel(&m, Static(wrong_shape));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("shape.npz"));
  EXPECT_THAT(s.status().message(), HasSubstr("'x'"));

  std::vector<NamedTensor> arrays{{"image", testing::RandomTensor({4, 1, 8, 8}, 1)}};
  std::string wrong_name = dir_.File("name.npz");
  ASSERT_TRUE(WriteNpz(wrong_name, arrays, false).ok());
  m = testing::SmallCnnModel();
  s = QuantizeModel(&m, Static(wrong_name));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'x'"));
}

TEST_F(QuantizeStaticTest, StaticWithoutCalibrationDataIsBadUsage) {
  ::onnx::ModelProto m = testing::SmallCnnModel();
  QuantizeOptions o;
  o.mode = QuantizeMode::kStatic;
  auto s = QuantizeModel(&m, o);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("--calibration-data"));
}

TEST_F(QuantizeStaticTest, NotAnOnnxFile) {
  std::string path = dir_.Write("notes.onnx", "this is not a model");
  QuantizeOptions o;
  auto s = QuantizeFile(path, dir_.File("out.onnx"), o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("is not an ONNX model"));
}

}  // namespace
}  // namespace hone::onnx
