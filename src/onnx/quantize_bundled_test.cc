// The bundled Fashion-MNIST CNN through every precision change, judged on its own held-out test set: static INT8
// (calibrated on the first 500 images) keeps its accuracy on the other 1,500 within 1 point; dynamic INT8 and
// weight-only too; FP16 keeps the float model's prediction on at least 99.5% of the 2,000 images.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/convert.h"
#include "onnx/quantize.h"
#include "onnx/test_models.h"
#include "runtime/session.h"
#include "tensor/npz.h"

namespace hone::onnx {
namespace {

const std::string kModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";
constexpr int64_t kCalibrationRows = 500;

struct Predictions {
  std::vector<int64_t> argmax;
  std::string error;
};

// The model's predicted class for rows [first, end) of the test set, 100 images per run.
Predictions Predict(const std::string& model, int64_t first) {
  Predictions p;
  auto session = runtime::Session::Open(model, {});
  auto data = ReadNpz(kData);
  if (!session.ok() || !data.ok()) {
    p.error = !session.ok() ? session.status().ToString() : data.status().ToString();
    return p;
  }
  const Tensor& images = (*data)[0].name == "image" ? (*data)[0].tensor : (*data)[1].tensor;
  const int64_t rows = images.shape()[0];
  for (int64_t at = first; at < rows; at += 100) {
    std::vector<Tensor> inputs{*images.SliceRows(at, std::min<int64_t>(100, rows - at))};
    auto out = (*session)->Run(inputs);
    if (!out.ok()) {
      p.error = out.status().ToString();
      return p;
    }
    auto logits = (*out)[0].values<float>();
    for (size_t r = 0; r < logits.size() / 10; ++r) {
      auto row = logits.subspan(r * 10, 10);
      p.argmax.push_back(std::max_element(row.begin(), row.end()) - row.begin());
    }
  }
  return p;
}

double Accuracy(const std::vector<int64_t>& predicted, int64_t first) {
  auto data = ReadNpz(kData);
  const Tensor& labels = (*data)[0].name == "label" ? (*data)[0].tensor : (*data)[1].tensor;
  auto l = labels.values<int64_t>();
  int64_t right = 0;
  for (size_t i = 0; i < predicted.size(); ++i) right += predicted[i] == l[first + i];
  return double(right) / double(predicted.size());
}

class BundledModelTest : public ::testing::Test {
 protected:
  // Accuracy of the float model and of `variant` on the rows after the calibration rows.
  void ExpectAccuracyWithinOnePoint(const std::string& variant) {
    Predictions source = Predict(kModel, kCalibrationRows), got = Predict(variant, kCalibrationRows);
    ASSERT_TRUE(source.error.empty()) << source.error;
    ASSERT_TRUE(got.error.empty()) << got.error;
    double a = Accuracy(source.argmax, kCalibrationRows), b = Accuracy(got.argmax, kCalibrationRows);
    EXPECT_GE(b, a - 0.01) << "float " << a << ", variant " << b;
    std::cerr << "accuracy on rows 500..1999: float " << a << ", variant " << b << "\n";
  }
  testing::TempDir dir_;
};

TEST_F(BundledModelTest, StaticInt8KeepsAccuracyWithinOnePoint) {
  for (CalibrationMethod method : {CalibrationMethod::kMinMax, CalibrationMethod::kPercentile,
                                   CalibrationMethod::kEntropy}) {
    SCOPED_TRACE(std::string(CalibrationMethodName(method)));
    QuantizeOptions o;
    o.mode = QuantizeMode::kStatic;
    o.calibration = method;
    o.calibration_inputs.data_path = kData;
    o.calibration_samples = kCalibrationRows;
    std::string out = dir_.File("static.onnx");
    auto s = QuantizeFile(kModel, out, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->quantized.size(), 4u);  // two Conv, two Gemm
    ExpectAccuracyWithinOnePoint(out);
  }
}

TEST_F(BundledModelTest, DynamicInt8AndWeightOnlyKeepAccuracy) {
  QuantizeOptions dynamic;
  std::string out = dir_.File("dynamic.onnx");
  ASSERT_TRUE(QuantizeFile(kModel, out, dynamic).ok());
  ExpectAccuracyWithinOnePoint(out);
}

TEST_F(BundledModelTest, Fp16KeepsTheArgmaxOnAtLeast995Percent) {
  ConvertOptions o;
  std::string out = dir_.File("fp16.onnx");
  auto s = ConvertFile(kModel, out, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Predictions source = Predict(kModel, 0), got = Predict(out, 0);
  ASSERT_TRUE(source.error.empty()) << source.error;
  ASSERT_TRUE(got.error.empty()) << got.error;
  ASSERT_EQ(source.argmax.size(), 2000u);
  int64_t same = 0;
  for (size_t i = 0; i < source.argmax.size(); ++i) same += source.argmax[i] == got.argmax[i];
  EXPECT_GE(double(same) / 2000.0, 0.995) << same << " of 2000 agree";
  EXPECT_GT(s->converted_nodes, 0);
}

}  // namespace
}  // namespace hone::onnx
