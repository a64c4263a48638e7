#include "serve/config/config_text.h"

#include <gmock/gmock.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

// Every field hone serves, written the way Triton's documentation writes configs.
constexpr char kFullConfig[] = R"pb(
name: "full"
platform: "onnxruntime_onnx"
backend: "onnxruntime"
max_batch_size: 8
version_policy: { specific: { versions: [ 1, 3 ] } }
input [
  {
    name: "image"
    data_type: TYPE_FP32
    format: FORMAT_NCHW
    dims: [ 1, 28, 28 ]
    reshape: { shape: [ 1, 784 ] }
    optional: false
  },
  {
    name: "mask"
    data_type: TYPE_INT64
    dims: [ -1 ]
    optional: true
  }
]
output [
  {
    name: "logits"
    data_type: TYPE_FP32
    dims: [ 10 ]
    label_filename: "labels.txt"
  }
]
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
  max_queue_delay_microseconds: 100
  preserve_ordering: true
  priority_levels: 2
  default_priority_level: 2
  default_queue_policy {
    timeout_action: DELAY
    default_timeout_microseconds: 5000
    allow_timeout_override: true
    max_queue_size: 16
  }
  priority_queue_policy {
    key: 1
    value: { timeout_action: REJECT default_timeout_microseconds: 1000 max_queue_size: 4 }
  }
}
instance_group [ { name: "cpus" kind: KIND_CPU count: 2 } ]
optimization { graph { level: 1 } }
default_model_filename: "net.onnx"
parameters { key: "intra_op_thread_count" value: { string_value: "2" } }
parameters { key: "execution_mode" value: { string_value: "0" } }
model_warmup [
  {
    name: "zeros"
    batch_size: 2
    count: 3
    inputs { key: "image" value: { data_type: TYPE_FP32 dims: [ 1, 28, 28 ] zero_data: true } }
    inputs { key: "mask" value: { data_type: TYPE_INT64 dims: [ 5 ] input_data_file: "mask.bin" } }
  },
  {
    name: "noise"
    batch_size: 1
    inputs { key: "image" value: { data_type: TYPE_FP32 dims: [ 1, 28, 28 ] random_data: true } }
  }
]
)pb";

TEST(ConfigTextTest, ParsesEveryField) {
  auto parsed = ParseModelConfig(kFullConfig, "models/full/config.pbtxt");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const inference::ModelConfig& c = *parsed;
  EXPECT_EQ(c.name(), "full");
  EXPECT_EQ(c.platform(), "onnxruntime_onnx");
  EXPECT_EQ(c.backend(), "onnxruntime");
  EXPECT_EQ(c.max_batch_size(), 8);
  ASSERT_TRUE(c.version_policy().has_specific());
  EXPECT_THAT(c.version_policy().specific().versions(), ::testing::ElementsAre(1, 3));

  ASSERT_EQ(c.input_size(), 2);
  EXPECT_EQ(c.input(0).name(), "image");
  EXPECT_EQ(c.input(0).data_type(), inference::TYPE_FP32);
  EXPECT_EQ(c.input(0).format(), inference::ModelInput::FORMAT_NCHW);
  EXPECT_THAT(c.input(0).dims(), ::testing::ElementsAre(1, 28, 28));
  EXPECT_THAT(c.input(0).reshape().shape(), ::testing::ElementsAre(1, 784));
  EXPECT_FALSE(c.input(0).optional());
  EXPECT_EQ(c.input(1).data_type(), inference::TYPE_INT64);
  EXPECT_THAT(c.input(1).dims(), ::testing::ElementsAre(-1));
  EXPECT_TRUE(c.input(1).optional());
  EXPECT_FALSE(c.input(1).has_reshape());

  ASSERT_EQ(c.output_size(), 1);
  EXPECT_EQ(c.output(0).name(), "logits");
  EXPECT_EQ(c.output(0).label_filename(), "labels.txt");

  ASSERT_TRUE(c.has_dynamic_batching());
  const auto& db = c.dynamic_batching();
  EXPECT_THAT(db.preferred_batch_size(), ::testing::ElementsAre(4, 8));
  EXPECT_EQ(db.max_queue_delay_microseconds(), 100u);
  EXPECT_TRUE(db.preserve_ordering());
  EXPECT_EQ(db.priority_levels(), 2u);
  EXPECT_EQ(db.default_priority_level(), 2u);
  EXPECT_EQ(db.default_queue_policy().timeout_action(), inference::ModelQueuePolicy::DELAY);
  EXPECT_EQ(db.default_queue_policy().default_timeout_microseconds(), 5000u);
  EXPECT_TRUE(db.default_queue_policy().allow_timeout_override());
  EXPECT_EQ(db.default_queue_policy().max_queue_size(), 16u);
  ASSERT_EQ(db.priority_queue_policy().count(1), 1u);
  EXPECT_EQ(db.priority_queue_policy().at(1).timeout_action(), inference::ModelQueuePolicy::REJECT);
  EXPECT_EQ(db.priority_queue_policy().at(1).max_queue_size(), 4u);

  ASSERT_EQ(c.instance_group_size(), 1);
  EXPECT_EQ(c.instance_group(0).name(), "cpus");
  EXPECT_EQ(c.instance_group(0).kind(), inference::ModelInstanceGroup::KIND_CPU);
  EXPECT_EQ(c.instance_group(0).count(), 2);
  EXPECT_EQ(c.optimization().graph().level(), 1);
  EXPECT_EQ(c.default_model_filename(), "net.onnx");
  EXPECT_EQ(c.parameters().at("intra_op_thread_count").string_value(), "2");
  EXPECT_EQ(c.parameters().at("execution_mode").string_value(), "0");

  ASSERT_EQ(c.model_warmup_size(), 2);
  const auto& w = c.model_warmup(0);
  EXPECT_EQ(w.name(), "zeros");
  EXPECT_EQ(w.batch_size(), 2u);
  EXPECT_EQ(w.count(), 3u);
  EXPECT_TRUE(w.inputs().at("image").has_zero_data());
  EXPECT_THAT(w.inputs().at("image").dims(), ::testing::ElementsAre(1, 28, 28));
  EXPECT_EQ(w.inputs().at("mask").input_data_file(), "mask.bin");
  EXPECT_TRUE(c.model_warmup(1).inputs().at("image").has_random_data());
}

TEST(ConfigTextTest, TextRoundTrips) {
  inference::ModelConfig c = testing::ParseOrFail(kFullConfig);
  auto again = ParseModelConfig(ModelConfigToText(c), "round-trip");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*again, c));  // maps serialize in any order
}

TEST(ConfigTextTest, EmptyTextIsAnEmptyConfig) {
  auto parsed = ParseModelConfig("", "config.pbtxt");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->ByteSizeLong(), 0u);
}

TEST(ConfigTextTest, UnknownFieldNamesFileLineColumnAndField) {
  const std::string text = "name: \"m\"\n\nplatform: \"onnxruntime_onnx\"\n\n\n\n  max_batch: 8\n";
  auto parsed = ParseModelConfig(text, "models/m/config.pbtxt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(),
            "models/m/config.pbtxt:7:3: unknown field 'max_batch' in ModelConfig (did you mean 'max_batch_size'?)");
}

TEST(ConfigTextTest, UnknownFieldSuggestsTheNearestKnownOne) {
  auto parsed = ParseModelConfig("instance_group [ { cuont: 2 } ]", "c.pbtxt");
  EXPECT_EQ(parsed.status().message(),
            "c.pbtxt:1:20: unknown field 'cuont' in ModelInstanceGroup (did you mean 'count'?)");
  parsed = ParseModelConfig("dynamic_batching { prefered_batch_size: 4 }", "c.pbtxt");
  EXPECT_THAT(parsed.status().message(), HasSubstr("(did you mean 'preferred_batch_size'?)"));
  // Nothing close: no guess.
  parsed = ParseModelConfig("bogus: 1", "c.pbtxt");
  EXPECT_EQ(parsed.status().message(), "c.pbtxt:1:1: unknown field 'bogus' in ModelConfig");
}

TEST(ConfigTextTest, TritonFieldHoneLacksSaysNotSupportedYet) {
  auto parsed = ParseModelConfig("sequence_batching { }", "c.pbtxt");
  EXPECT_EQ(parsed.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(parsed.status().message(), HasSubstr("hone does not support 'sequence_batching' in ModelConfig yet"));
  parsed = ParseModelConfig("instance_group [ { count: 1 gpus: [ 0 ] } ]", "c.pbtxt");
  EXPECT_THAT(parsed.status().message(), HasSubstr("hone does not support 'gpus' in ModelInstanceGroup yet"));
}

TEST(ConfigTextTest, UnknownNestedFieldNamesItsMessage) {
  auto parsed = ParseModelConfig("dynamic_batching {\n  max_delay: 5\n}\n", "c.pbtxt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "c.pbtxt:2:3: unknown field 'max_delay' in ModelDynamicBatching");
  // A Triton field hone does not serve is an error too, not silently dropped.
  parsed = ParseModelConfig("input [ { name: \"x\" allow_ragged_batch: true } ]", "c.pbtxt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("hone does not support 'allow_ragged_batch' in ModelInput yet"));
}

TEST(ConfigTextTest, BadEnumNamesTheValueAndField) {
  auto parsed = ParseModelConfig("instance_group [ { kind: KIND_TPU } ]", "models/m/config.pbtxt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("models/m/config.pbtxt:1:"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("field 'kind': unknown enum value 'KIND_TPU'"));

  parsed = ParseModelConfig("input [ { name: \"x\" data_type: FP32 } ]", "c.pbtxt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("field 'data_type': unknown enum value 'FP32'"));
}

TEST(ConfigTextTest, MalformedValuesAndSyntaxNameThePosition) {
  struct Case {
    const char* text;
    const char* expect;
  };
  for (const Case& c : {Case{"max_batch_size: \"eight\"", "c.pbtxt:1:17: field 'max_batch_size': Expected integer"},
                        Case{"max_batch_size: 99999999999", "c.pbtxt:1:17: field 'max_batch_size': Integer out of"},
                        Case{"input [ { name: \"x\" dims: [ 1, x ] } ]", "c.pbtxt:1:"},
                        Case{"version_policy { latest { } all { } }", "another member of oneof \"policy_choice\""},
                        Case{"name: \"a\"\nname: \"b\"", "c.pbtxt:2:"},
                        Case{"input [ { name: \"x\" ", "c.pbtxt:1:21: Expected identifier, got: end of input"},
                        Case{"dynamic_batching { preserve_ordering: maybe }", "preserve_ordering"}}) {
    auto parsed = ParseModelConfig(c.text, "c.pbtxt");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.expect)) << c.text;
  }
}

TEST(ConfigTextTest, OversizedTextIsRefused) {
  auto parsed = ParseModelConfig(std::string(kMaxConfigBytes + 1, ' '), "big.pbtxt");
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("big.pbtxt: 16777217 bytes, more than a config can need"));
}

TEST(ConfigTextTest, ReadMissingFileIsNotFound) {
  auto parsed = ReadModelConfig("/nonexistent/models/m/config.pbtxt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(parsed.status().message(), HasSubstr("/nonexistent/models/m/config.pbtxt"));
}

TEST(ConfigTextTest, ReadFileNamesItInErrors) {
  testing::TempDir dir;
  std::string path = dir.Write("m/config.pbtxt", "name: \"m\"\nbogus: 1\n");
  auto parsed = ReadModelConfig(path);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), path + ":2:1: unknown field 'bogus' in ModelConfig");
}

// Wire compatibility with Triton: every field's number and type as in Triton's model_config.proto. A wrong number
// breaks tritonclient silently, so each one is pinned here.
TEST(ConfigTextTest, FieldNumbersMatchTriton) {
  using google::protobuf::FieldDescriptor;
  struct Field {
    const google::protobuf::Descriptor* message;
    const char* name;
    int number;
    FieldDescriptor::Type type;
  };
  const auto* config = inference::ModelConfig::descriptor();
  const auto* input = inference::ModelInput::descriptor();
  const auto* output = inference::ModelOutput::descriptor();
  const auto* batching = inference::ModelDynamicBatching::descriptor();
  const auto* queue = inference::ModelQueuePolicy::descriptor();
  const auto* group = inference::ModelInstanceGroup::descriptor();
  const auto* policy = inference::ModelVersionPolicy::descriptor();
  const auto* warmup = inference::ModelWarmup::descriptor();
  const auto* warmup_input = inference::ModelWarmup::Input::descriptor();
  const Field fields[] = {
      {config, "name", 1, FieldDescriptor::TYPE_STRING},
      {config, "platform", 2, FieldDescriptor::TYPE_STRING},
      {config, "backend", 17, FieldDescriptor::TYPE_STRING},
      {config, "version_policy", 3, FieldDescriptor::TYPE_MESSAGE},
      {config, "max_batch_size", 4, FieldDescriptor::TYPE_INT32},
      {config, "input", 5, FieldDescriptor::TYPE_MESSAGE},
      {config, "output", 6, FieldDescriptor::TYPE_MESSAGE},
      {config, "optimization", 12, FieldDescriptor::TYPE_MESSAGE},
      {config, "dynamic_batching", 11, FieldDescriptor::TYPE_MESSAGE},
      {config, "instance_group", 7, FieldDescriptor::TYPE_MESSAGE},
      {config, "default_model_filename", 8, FieldDescriptor::TYPE_STRING},
      {config, "parameters", 14, FieldDescriptor::TYPE_MESSAGE},
      {config, "model_warmup", 16, FieldDescriptor::TYPE_MESSAGE},
      {input, "name", 1, FieldDescriptor::TYPE_STRING},
      {input, "data_type", 2, FieldDescriptor::TYPE_ENUM},
      {input, "format", 3, FieldDescriptor::TYPE_ENUM},
      {input, "dims", 4, FieldDescriptor::TYPE_INT64},
      {input, "reshape", 5, FieldDescriptor::TYPE_MESSAGE},
      {input, "optional", 8, FieldDescriptor::TYPE_BOOL},
      {output, "name", 1, FieldDescriptor::TYPE_STRING},
      {output, "data_type", 2, FieldDescriptor::TYPE_ENUM},
      {output, "dims", 3, FieldDescriptor::TYPE_INT64},
      {output, "reshape", 5, FieldDescriptor::TYPE_MESSAGE},
      {output, "label_filename", 4, FieldDescriptor::TYPE_STRING},
      {inference::ModelTensorReshape::descriptor(), "shape", 1, FieldDescriptor::TYPE_INT64},
      {batching, "preferred_batch_size", 1, FieldDescriptor::TYPE_INT32},
      {batching, "max_queue_delay_microseconds", 2, FieldDescriptor::TYPE_UINT64},
      {batching, "preserve_ordering", 3, FieldDescriptor::TYPE_BOOL},
      {batching, "priority_levels", 4, FieldDescriptor::TYPE_UINT64},
      {batching, "default_priority_level", 5, FieldDescriptor::TYPE_UINT64},
      {batching, "default_queue_policy", 6, FieldDescriptor::TYPE_MESSAGE},
      {batching, "priority_queue_policy", 7, FieldDescriptor::TYPE_MESSAGE},
      {queue, "timeout_action", 1, FieldDescriptor::TYPE_ENUM},
      {queue, "default_timeout_microseconds", 2, FieldDescriptor::TYPE_UINT64},
      {queue, "allow_timeout_override", 3, FieldDescriptor::TYPE_BOOL},
      {queue, "max_queue_size", 4, FieldDescriptor::TYPE_UINT32},
      {group, "name", 1, FieldDescriptor::TYPE_STRING},
      {group, "kind", 4, FieldDescriptor::TYPE_ENUM},
      {group, "count", 2, FieldDescriptor::TYPE_INT32},
      {policy, "latest", 1, FieldDescriptor::TYPE_MESSAGE},
      {policy, "all", 2, FieldDescriptor::TYPE_MESSAGE},
      {policy, "specific", 3, FieldDescriptor::TYPE_MESSAGE},
      {inference::ModelVersionPolicy::Latest::descriptor(), "num_versions", 1, FieldDescriptor::TYPE_UINT32},
      {inference::ModelVersionPolicy::Specific::descriptor(), "versions", 1, FieldDescriptor::TYPE_INT64},
      {inference::ModelOptimizationPolicy::descriptor(), "graph", 1, FieldDescriptor::TYPE_MESSAGE},
      {inference::ModelOptimizationPolicy::Graph::descriptor(), "level", 1, FieldDescriptor::TYPE_INT32},
      {inference::ModelParameter::descriptor(), "string_value", 1, FieldDescriptor::TYPE_STRING},
      {warmup, "name", 1, FieldDescriptor::TYPE_STRING},
      {warmup, "batch_size", 2, FieldDescriptor::TYPE_UINT32},
      {warmup, "inputs", 3, FieldDescriptor::TYPE_MESSAGE},
      {warmup, "count", 4, FieldDescriptor::TYPE_UINT32},
      {warmup_input, "data_type", 1, FieldDescriptor::TYPE_ENUM},
      {warmup_input, "dims", 2, FieldDescriptor::TYPE_INT64},
      {warmup_input, "zero_data", 3, FieldDescriptor::TYPE_BOOL},
      {warmup_input, "random_data", 4, FieldDescriptor::TYPE_BOOL},
      {warmup_input, "input_data_file", 5, FieldDescriptor::TYPE_STRING},
  };
  for (const Field& f : fields) {
    const FieldDescriptor* d = f.message->FindFieldByName(f.name);
    ASSERT_NE(d, nullptr) << f.message->name() << "." << f.name;
    EXPECT_EQ(d->number(), f.number) << f.message->name() << "." << f.name;
    EXPECT_EQ(d->type(), f.type) << f.message->name() << "." << f.name;
  }
  // Map key types (a uint64 key encodes differently from a uint32 one).
  EXPECT_EQ(batching->FindFieldByName("priority_queue_policy")->message_type()->map_key()->type(),
            FieldDescriptor::TYPE_UINT64);
  EXPECT_EQ(config->FindFieldByName("dynamic_batching")->containing_oneof()->name(), "scheduling_choice");
  EXPECT_EQ(policy->FindFieldByName("latest")->containing_oneof()->name(), "policy_choice");
  EXPECT_EQ(warmup_input->FindFieldByName("zero_data")->containing_oneof()->name(), "input_data_type");
}

TEST(ConfigTextTest, EnumNumbersMatchTriton) {
  const std::pair<inference::DataType, int> types[] = {
      {inference::TYPE_INVALID, 0}, {inference::TYPE_BOOL, 1},   {inference::TYPE_UINT8, 2},
      {inference::TYPE_UINT16, 3},  {inference::TYPE_UINT32, 4}, {inference::TYPE_UINT64, 5},
      {inference::TYPE_INT8, 6},    {inference::TYPE_INT16, 7},  {inference::TYPE_INT32, 8},
      {inference::TYPE_INT64, 9},   {inference::TYPE_FP16, 10},  {inference::TYPE_FP32, 11},
      {inference::TYPE_FP64, 12},   {inference::TYPE_STRING, 13}, {inference::TYPE_BF16, 14}};
  for (auto [type, number] : types) EXPECT_EQ(static_cast<int>(type), number) << inference::DataType_Name(type);
  EXPECT_EQ(inference::ModelInstanceGroup::KIND_AUTO, 0);
  EXPECT_EQ(inference::ModelInstanceGroup::KIND_GPU, 1);
  EXPECT_EQ(inference::ModelInstanceGroup::KIND_CPU, 2);
  EXPECT_EQ(inference::ModelInstanceGroup::KIND_MODEL, 3);
  EXPECT_EQ(inference::ModelQueuePolicy::REJECT, 0);
  EXPECT_EQ(inference::ModelQueuePolicy::DELAY, 1);
  EXPECT_EQ(inference::ModelInput::FORMAT_NONE, 0);
  EXPECT_EQ(inference::ModelInput::FORMAT_NHWC, 1);
  EXPECT_EQ(inference::ModelInput::FORMAT_NCHW, 2);
  EXPECT_EQ(inference::ModelConfig::descriptor()->file()->package(), "inference");
}

}  // namespace
}  // namespace hone::serve
