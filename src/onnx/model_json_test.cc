// The `model` object of every report: a model file's inputs, outputs and digest; a loaded model's specs.
#include "onnx/model_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/test_paths.h"

namespace hone::onnx {
namespace {

TEST(ModelFileJsonTest, InputsOutputsAndDigest) {
  auto j = ModelFileJson(std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx");
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ((*j)["inputs"][0]["shape"], nlohmann::json::parse(R"(["batch", 1, 28, 28])"));
  EXPECT_EQ((*j)["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(ModelFileJson("/nonexistent.onnx").status().code(), StatusCode::kNotFound);
}

TEST(IoSpecsJsonTest, TheShapeOfHoneInfo) {
  runtime::IoSpec spec;
  spec.name = "ids";
  spec.type = DataType::kInt64;
  spec.onnx_type = "int64";
  spec.shape = {-1, -1, 4};
  spec.symbols = {"batch", "", ""};
  EXPECT_EQ(IoSpecsJson({spec})[0]["shape"], nlohmann::json::parse(R"(["batch", null, 4])"));
}

}  // namespace
}  // namespace hone::onnx
