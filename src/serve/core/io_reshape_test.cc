#include "serve/core/io_reshape.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/config_text.h"
#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

inference::ModelConfig Config(const std::string& text) {
  auto config = ParseModelConfig(text, "config.pbtxt");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? *config : inference::ModelConfig();
}

const char kScalars[] = R"pb(
  max_batch_size: 4
  input [ { name: "sr" data_type: TYPE_INT64 dims: [ 1 ] reshape: { } },
          { name: "x" data_type: TYPE_FP32 dims: [ 2 ] } ]
  output [ { name: "n" data_type: TYPE_INT64 dims: [ 1 ] reshape: { } },
           { name: "y" data_type: TYPE_FP32 dims: [ 2 ] } ]
)pb";

TEST(IoReshapeTest, InputsTakeTheModelsShapeOverTheSameBytes) {
  IoReshape reshape(Config(kScalars));
  EXPECT_FALSE(reshape.empty());
  InferenceRequest request;
  request.inputs.push_back({"x", test::Make<float>({3, 2}, {1, 2, 3, 4, 5, 6})});
  request.inputs.push_back({"sr", test::Make<int64_t>({3, 1}, {7, 8, 9})});
  const std::byte* bytes = request.inputs[1].tensor.data();
  ASSERT_TRUE(reshape.Inputs(request).ok());
  EXPECT_EQ(request.inputs[0].tensor.shape(), (Shape{3, 2}));  // no reshape: untouched
  EXPECT_EQ(request.inputs[1].tensor.shape(), Shape{3});
  EXPECT_EQ(request.inputs[1].tensor.data(), bytes);  // a view, not a copy
  EXPECT_EQ(request.inputs[1].tensor.values<int64_t>()[2], 9);

  InferenceRequest wrong;
  wrong.inputs.push_back({"sr", test::Make<int64_t>({3, 2}, {1, 2, 3, 4, 5, 6})});
  Status s = reshape.Inputs(wrong);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("input 'sr': expected shape [-1, 1]"));
}

TEST(IoReshapeTest, OutputsGoBackToDimsAndKeepTheirBytesAlive) {
  IoReshape reshape(Config(kScalars));
  InferenceResponse response;
  response.outputs.push_back({"n", test::Make<int64_t>({2}, {5, 6})});
  response.outputs.push_back({"y", test::Make<float>({2, 2}, {1, 2, 3, 4})});
  reshape.Outputs(response);
  // The reshaped output now holds the only reference to the model's buffer: it must keep it alive.
  Tensor n = response.outputs[0].tensor;
  response = InferenceResponse{};
  EXPECT_EQ(n.shape(), (Shape{2, 1}));
  EXPECT_TRUE(n.owns_data());
  EXPECT_EQ(n.values<int64_t>()[1], 6);
}

TEST(IoReshapeTest, AConfigWithoutReshapesIsEmpty) {
  EXPECT_TRUE(IoReshape(Config("input [ { name: 'x' data_type: TYPE_FP32 dims: [ 2 ] } ]")).empty());
}

}  // namespace
}  // namespace hone::serve
