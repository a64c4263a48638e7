#include "serve/config/config_json.h"

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using Json = nlohmann::json;

constexpr char kConfig[] = R"pb(
  name: "m" platform: "onnxruntime_onnx" backend: "onnxruntime" max_batch_size: 8
  version_policy { specific { versions: [ 2, 3 ] } }
  input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 4 ] reshape { shape: [ 4, -1 ] } } ]
  output [ { name: "y" data_type: TYPE_INT64 dims: [ 4 ] } ]
  dynamic_batching {
    preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 100
    priority_levels: 2 default_priority_level: 1
    default_queue_policy { default_timeout_microseconds: 9007199254740993 }
    priority_queue_policy { key: 2 value { timeout_action: DELAY default_timeout_microseconds: 7 } }
  }
  instance_group [ { name: "m" kind: KIND_CPU count: 2 } ]
  parameters { key: "intra_op_thread_count" value { string_value: "4" } }
  model_warmup [ { name: "w" batch_size: 1
                   inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 3, 4 ] zero_data: true } } } ]
)pb";

TEST(ConfigJsonTest, LooksLikeTritonsConfigJson) {
  std::string text = ModelConfigToJson(testing::ParseOrFail(kConfig));
  Json j = Json::parse(text);
  // Proto field names, enums by name.
  EXPECT_EQ(j["max_batch_size"], 8);
  EXPECT_EQ(j["input"][0]["data_type"], "TYPE_FP32");
  EXPECT_EQ(j["input"][0]["format"], "FORMAT_NONE");  // primitive fields print even at their default
  EXPECT_EQ(j["input"][0]["optional"], false);
  EXPECT_EQ(j["instance_group"][0]["kind"], "KIND_CPU");
  EXPECT_EQ(j["default_model_filename"], "");
  EXPECT_EQ(j["parameters"]["intra_op_thread_count"]["string_value"], "4");
  // 64-bit integers as numbers, not protobuf's strings.
  EXPECT_EQ(j["input"][0]["dims"], Json::parse("[-1, 4]"));
  EXPECT_EQ(j["input"][0]["reshape"]["shape"], Json::parse("[4, -1]"));
  EXPECT_TRUE(j["output"][0]["dims"][0].is_number_integer());
  EXPECT_EQ(j["version_policy"]["specific"]["versions"], Json::parse("[2, 3]"));
  const Json& db = j["dynamic_batching"];
  EXPECT_EQ(db["max_queue_delay_microseconds"], 100);
  EXPECT_EQ(db["priority_levels"], 2);
  EXPECT_EQ(db["default_priority_level"], 1);
  EXPECT_EQ(db["default_queue_policy"]["default_timeout_microseconds"].get<uint64_t>(), 9007199254740993u);
  EXPECT_EQ(db["default_queue_policy"]["timeout_action"], "REJECT");
  EXPECT_EQ(db["priority_queue_policy"]["2"]["default_timeout_microseconds"], 7);  // map keys stay strings
  EXPECT_EQ(db["priority_queue_policy"]["2"]["timeout_action"], "DELAY");
  EXPECT_EQ(j["model_warmup"][0]["inputs"]["x"]["dims"], Json::parse("[3, 4]"));
  EXPECT_EQ(j["model_warmup"][0]["inputs"]["x"]["zero_data"], true);
  EXPECT_EQ(text.find('\n'), std::string::npos);  // compact
}

TEST(ConfigJsonTest, EmptyConfigPrintsItsPrimitiveFields) {
  Json j = Json::parse(ModelConfigToJson(inference::ModelConfig()));
  EXPECT_EQ(j["name"], "");
  EXPECT_EQ(j["max_batch_size"], 0);
  EXPECT_EQ(j["input"], Json::array());
  EXPECT_FALSE(j.contains("dynamic_batching"));  // a message that is not set stays out
  EXPECT_FALSE(j.contains("version_policy"));
}

TEST(ConfigJsonTest, ProtobufParsesItBack) {
  inference::ModelConfig c = testing::ParseOrFail(kConfig);
  inference::ModelConfig back;
  auto status = google::protobuf::util::JsonStringToMessage(ModelConfigToJson(c), &back);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, c));
}

}  // namespace
}  // namespace hone::serve
