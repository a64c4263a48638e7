#include "serve/config/reshape.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

inference::ModelInput Input(const std::string& text) {
  inference::ModelConfig config = testing::ParseOrFail("input [ { " + text + " } ]");
  return config.input(0);
}

inference::ModelOutput Output(const std::string& text) {
  inference::ModelConfig config = testing::ParseOrFail("output [ { " + text + " } ]");
  return config.output(0);
}

TEST(ReshapeTest, ScalarInputTakesDimsOneAndTheModelsOwnScalar) {
  auto sr = Input("name: 'sr' data_type: TYPE_INT64 dims: [ 1 ] reshape: { }");
  EXPECT_EQ(*ToModelShape(sr, false, {1}), Shape{});
  EXPECT_EQ(*ToModelShape(sr, false, {}), Shape{});  // the model's own shape is accepted as it is
  EXPECT_EQ(*ToModelShape(sr, true, {3, 1}), Shape{3});
  EXPECT_EQ(*ToModelShape(sr, true, {3}), Shape{3});
  auto bad = ToModelShape(sr, false, {2});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("input 'sr': expected shape [1]"));
  EXPECT_THAT(bad.status().message(), HasSubstr("got [2]"));
}

TEST(ReshapeTest, WithoutReshapeTheShapeIsLeftToTheScheduler) {
  auto x = Input("name: 'x' data_type: TYPE_FP32 dims: [ 3 ]");
  EXPECT_EQ(*ToModelShape(x, true, {2, 7}), (Shape{2, 7}));
}

TEST(ReshapeTest, DynamicDimensionsCarryOverInOrder) {
  auto x = Input("name: 'x' data_type: TYPE_FP32 dims: [ -1, 6 ] reshape: { shape: [ -1, 2, 3 ] }");
  EXPECT_EQ(*ToModelShape(x, true, {4, 5, 6}), (Shape{4, 5, 2, 3}));
  // One hole in reshape.shape, none in dims: the element count fills it.
  auto y = Input("name: 'y' data_type: TYPE_FP32 dims: [ 6 ] reshape: { shape: [ 2, -1 ] }");
  EXPECT_EQ(*ToModelShape(y, false, {6}), (Shape{2, 3}));
}

TEST(ReshapeTest, OutputsGoBackToDims) {
  auto y = Output("name: 'y' data_type: TYPE_FP32 dims: [ 1 ] reshape: { }");
  EXPECT_EQ(ToClientShape(y, true, {5}), (Shape{5, 1}));
  EXPECT_EQ(ToClientShape(y, false, {}), Shape{1});
  // Not the reshape shape: left as the model made it.
  EXPECT_EQ(ToClientShape(y, false, {2, 2}), (Shape{2, 2}));
  auto plain = Output("name: 'z' data_type: TYPE_FP32 dims: [ 2 ]");
  EXPECT_EQ(ToClientShape(plain, true, {3, 2}), (Shape{3, 2}));
}

}  // namespace
}  // namespace hone::serve
