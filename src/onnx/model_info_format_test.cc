#include "onnx/model_info_format.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hone::onnx {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ModelInfo SampleInfo() {
  ModelInfo info;
  info.path = "models/m.onnx";
  info.file_bytes = 1700000;
  info.ir_version = 8;
  info.producer_name = "pytorch";
  info.producer_version = "2.1.0";
  info.model_version = 2;
  info.doc_string = "first line\nsecond line";
  info.opsets = {{"ai.onnx", 17}, {"com.microsoft", 1}};
  info.inputs = {{"image", DataType::kFp32, "float", {{-1, "batch"}, {1, ""}, {28, ""}, {28, ""}}, true},
                 {"mask", DataType::kInt64, "int64", {{-1, ""}}, true}};
  TensorInfo pieces{"pieces", DataType::kInvalid, "seq(tensor(float))", {}, false};
  info.outputs = {{"logits", DataType::kFp32, "float", {{-1, "batch"}, {10, ""}}, true}, pieces};
  for (int i = 0; i < 20; ++i) info.operator_counts.emplace_back("Op" + std::to_string(i), 20 - i);
  info.node_count = 210;  // 20 + 19 + ... + 1
  info.parameter_count = 421642;
  info.parameter_bytes = 1686568;
  info.initializer_count = 8;
  info.metadata_props = {{"author", "hone"}};
  return info;
}

TEST(ModelInfoToJsonTest, HasTheDocumentedKeys) {
  nlohmann::json j = ModelInfoToJson(SampleInfo());
  for (const char* key : {"path", "file_bytes", "ir_version", "producer_name", "producer_version", "domain",
                          "doc_string", "model_version", "opsets", "inputs", "outputs", "node_count", "operators",
                          "parameter_count", "parameter_bytes", "initializer_count", "uses_external_data",
                          "metadata"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["file_bytes"], 1700000);
  EXPECT_EQ(j["opsets"][1]["domain"], "com.microsoft");
  EXPECT_EQ(j["opsets"][1]["version"], 1);
  EXPECT_EQ(j["inputs"][0]["name"], "image");
  EXPECT_EQ(j["inputs"][0]["datatype"], "FP32");
  EXPECT_EQ(j["inputs"][0]["onnx_type"], "float");
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json::parse(R"(["batch", 1, 28, 28])"));
  EXPECT_EQ(j["inputs"][1]["shape"], nlohmann::json::parse("[null]"));
  EXPECT_TRUE(j["outputs"][1]["datatype"].is_null());
  EXPECT_TRUE(j["outputs"][1]["shape"].is_null());
  EXPECT_EQ(j["operators"].size(), 20u);  // all of them; only the text report cuts
  EXPECT_EQ(j["operators"][0]["op"], "Op0");
  EXPECT_EQ(j["operators"][0]["count"], 20);
  EXPECT_EQ(j["metadata"]["author"], "hone");
  EXPECT_EQ(j["uses_external_data"], false);
}

TEST(ModelInfoToTextTest, ReportsWhatAUserAsksFirst) {
  std::string text = ModelInfoToText(SampleInfo());
  EXPECT_THAT(text, HasSubstr("models/m.onnx (1.6 MiB)"));
  EXPECT_THAT(text, HasSubstr("pytorch 2.1.0"));
  EXPECT_THAT(text, HasSubstr("IR version     8"));
  EXPECT_THAT(text, HasSubstr("ai.onnx 17, com.microsoft 1"));
  EXPECT_THAT(text, HasSubstr("first line ..."));
  EXPECT_THAT(text, Not(HasSubstr("second line")));
  EXPECT_THAT(text, HasSubstr("421.6 K params, 1.6 MiB in 8 initializers"));
  EXPECT_THAT(text, HasSubstr("210 nodes, 20 operator types"));
  EXPECT_THAT(text, HasSubstr("  image  FP32   [batch, 1, 28, 28]"));
  EXPECT_THAT(text, HasSubstr("  mask   INT64  [?]"));
  EXPECT_THAT(text, HasSubstr("  pieces  seq(tensor(float))  unknown"));
  EXPECT_THAT(text, HasSubstr("operators (top 15 of 20 types)"));
  EXPECT_THAT(text, HasSubstr("Op14"));
  EXPECT_THAT(text, Not(HasSubstr("Op15")));
  EXPECT_THAT(text, HasSubstr("(others)  15"));  // 5 + 4 + 3 + 2 + 1
  EXPECT_THAT(text, HasSubstr("author  hone"));
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
}  // namespace hone::onnx
