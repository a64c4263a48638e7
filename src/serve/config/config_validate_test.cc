#include "serve/config/config_validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

const ConfigSource kSource{"models/m/config.pbtxt", "m"};

Status Validate(const std::string& text) { return ValidateModelConfig(testing::ParseOrFail(text), kSource); }

// The error for `text`: its code and message, which must start with the source.
void ExpectError(const std::string& text, StatusCode code, const std::string& expect) {
  Status s = Validate(text);
  ASSERT_FALSE(s.ok()) << text;
  EXPECT_EQ(s.code(), code) << text << "\n" << s.ToString();
  EXPECT_THAT(s.message(), ::testing::StartsWith("models/m/config.pbtxt: ")) << text;
  EXPECT_THAT(s.message(), HasSubstr(expect)) << text;
}

void ExpectInvalid(const std::string& text, const std::string& expect) {
  ExpectError(text, StatusCode::kInvalidArgument, expect);
}

TEST(ConfigValidateTest, EmptyAndTypicalConfigsPass) {
  EXPECT_TRUE(Validate("").ok());
  Status s = Validate(R"pb(
    name: "m" platform: "onnxruntime_onnx" max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    dynamic_batching { preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 100 }
    instance_group [ { kind: KIND_CPU count: 2 }, { kind: KIND_AUTO } ]
    version_policy { latest { num_versions: 2 } }
    optimization { graph { level: -1 } }
    parameters { key: "execution_mode" value { string_value: "1" } }
  )pb");
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(ConfigValidateTest, NameMustMatchTheDirectory) {
  ExpectInvalid("name: \"other\"", "name 'other' does not match the model directory 'm'");
  EXPECT_TRUE(ValidateModelConfig(testing::ParseOrFail("name: \"other\""), {"x.pbtxt", ""}).ok());
}

TEST(ConfigValidateTest, OnlyOnnxRuntime) {
  ExpectError("platform: \"tensorrt_plan\"", StatusCode::kUnimplemented, "platform 'tensorrt_plan'");
  ExpectError("backend: \"python\"", StatusCode::kUnimplemented,
              "hone does not support backend 'python' (Triton's Python backend) yet");
  ExpectInvalid("platform: \"ensemble\"", "platform 'ensemble': expected ensemble_scheduling with at least one step");
  ExpectError("backend: \"hone_nothing\"", StatusCode::kUnimplemented,
              "its processing stages (hone_classify, hone_ctc, hone_image, hone_pooling, hone_tokenizer)");
  EXPECT_TRUE(Validate("backend: \"onnxruntime\"").ok());
}

TEST(ConfigValidateTest, MaxBatchSize) {
  ExpectInvalid("max_batch_size: -1", "max_batch_size: expected >= 0, got -1");
}

TEST(ConfigValidateTest, InputsAndOutputs) {
  ExpectInvalid("input [ { data_type: TYPE_FP32 dims: [ 1 ] } ]", "input[0]: name: expected a name");
  ExpectInvalid("input [ { name: \"x\" dims: [ 1 ] } ]", "input 'x': data_type: expected one of");
  ExpectInvalid("input [ { name: \"x\" data_type: 99 dims: [ 1 ] } ]", "TYPE_99");
  ExpectInvalid("input [ { name: \"x\" data_type: TYPE_FP32 } ]", "input 'x': dims: expected at least one");
  ExpectInvalid("input [ { name: \"x\" data_type: TYPE_FP32 dims: [ 3, -2 ] } ]",
                "input 'x': dims[1]: expected >= -1, got -2");
  ExpectInvalid("input [ { name: \"x\" data_type: TYPE_FP32 dims: [ 1 ] format: 7 } ]",
                "input 'x': format: unknown value 7");
  ExpectInvalid(R"pb(input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] },
                             { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ])pb",
                "input 'x': declared twice");
  ExpectInvalid("input [ { name: \"x\" data_type: TYPE_FP32 dims: [ 2, 3 ] reshape: { shape: [ 5 ] } } ]",
                "input 'x': reshape.shape [5] holds 5 elements, dims [2, 3] hold 6");
  ExpectInvalid("input [ { name: \"x\" data_type: TYPE_FP32 dims: [ 1 ] reshape: { shape: [ -3 ] } } ]",
                "input 'x': reshape.shape[0]: expected >= -1");
  EXPECT_TRUE(Validate("input [ { name: \"x\" data_type: TYPE_FP32 dims: [ 1 ] reshape: { } } ]").ok());
  EXPECT_TRUE(Validate("input [ { name: \"x\" data_type: TYPE_FP32 dims: [ -1, 4 ] reshape: { shape: [ 2, -1 ] } } ]")
                  .ok());

  ExpectInvalid("output [ { name: \"y\" data_type: TYPE_FP32 dims: [ -5 ] } ]", "output 'y': dims[0]");
  ExpectInvalid("output [ { name: \"y\" dims: [ 1 ] } ]", "output 'y': data_type");
  ExpectInvalid(R"pb(output [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] label_filename: "../labels.txt" } ])pb",
                "output 'y': label_filename '../labels.txt': starts with '.'");
  ExpectInvalid(R"pb(output [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] label_filename: "a/b.txt" } ])pb",
                "holds a path separator");
}

TEST(ConfigValidateTest, InstanceGroups) {
  ExpectInvalid("instance_group [ { count: -1 } ]", "instance_group[0]: count: expected >= 1, got -1");
  ExpectError("instance_group [ { kind: KIND_GPU count: 1 } ]", StatusCode::kUnimplemented,
              "instance_group[0]: kind KIND_GPU: this build runs on CPU");
  ExpectError("instance_group [ { kind: KIND_CPU }, { kind: KIND_MODEL } ]", StatusCode::kUnimplemented,
              "instance_group[1]: kind KIND_MODEL: this build runs on CPU");
  ExpectInvalid("instance_group [ { kind: 9 } ]", "instance_group[0]: kind: unknown value 9");
  EXPECT_TRUE(Validate("instance_group [ { count: 0 } ]").ok());  // 0: the default, 1
}

TEST(ConfigValidateTest, DynamicBatching) {
  ExpectInvalid("dynamic_batching { preferred_batch_size: [ 4, 0 ] }",
                "dynamic_batching.preferred_batch_size[1]: expected > 0, got 0");
  ExpectInvalid("dynamic_batching { priority_levels: 2 }",
                "dynamic_batching.default_priority_level: expected in [1, 2], got 0");
  ExpectInvalid("dynamic_batching { priority_levels: 2 default_priority_level: 3 }",
                "dynamic_batching.default_priority_level: expected in [1, 2], got 3");
  ExpectInvalid("dynamic_batching { default_priority_level: 1 }", "needs priority_levels >= 1");
  ExpectInvalid("dynamic_batching { priority_queue_policy { key: 1 value { } } }",
                "dynamic_batching.priority_queue_policy: needs priority_levels > 0");
  ExpectInvalid(R"pb(dynamic_batching { priority_levels: 2 default_priority_level: 1
                                        priority_queue_policy { key: 3 value { } } })pb",
                "dynamic_batching.priority_queue_policy[3]: priority level expected in [1, 2]");
  ExpectInvalid("dynamic_batching { priority_levels: 5000000000 default_priority_level: 1 }",
                "dynamic_batching.priority_levels: expected <= 4294967295");
  ExpectInvalid("dynamic_batching { default_queue_policy { timeout_action: 4 } }",
                "dynamic_batching.default_queue_policy.timeout_action: unknown value 4");
  EXPECT_TRUE(Validate(R"pb(dynamic_batching { priority_levels: 3 default_priority_level: 2
                            priority_queue_policy { key: 3 value { timeout_action: DELAY } } })pb")
                  .ok());
}

TEST(ConfigValidateTest, VersionPolicy) {
  ExpectInvalid("version_policy { latest { } }", "version_policy.latest.num_versions: expected >= 1, got 0");
  ExpectInvalid("version_policy { specific { } }", "version_policy.specific.versions: expected at least one");
  ExpectInvalid("version_policy { specific { versions: [ 1, 0 ] } }", "expected versions >= 1, got 0");
  EXPECT_TRUE(Validate("version_policy { all { } }").ok());
}

TEST(ConfigValidateTest, ParametersAndGraphLevel) {
  ExpectInvalid(R"pb(parameters { key: "intra_op_threads" value { string_value: "2" } })pb",
                "parameter 'intra_op_threads': unknown (supported: intra_op_thread_count");
  ExpectError(R"pb(parameters { key: "enable_mem_pattern" value { string_value: "1" } })pb",
              StatusCode::kUnimplemented, "parameter 'enable_mem_pattern'");
  ExpectInvalid(R"pb(parameters { key: "execution_mode" value { string_value: "2" } })pb",
                "parameter 'execution_mode': expected 0 (sequential) or 1 (parallel), got '2'");
  ExpectInvalid("optimization { graph { level: 3 } }", "optimization.graph.level: expected 0 (all)");
}

TEST(ConfigValidateTest, DefaultModelFilename) {
  ExpectInvalid("default_model_filename: \"../../etc/passwd\"", "default_model_filename '../../etc/passwd'");
  ExpectInvalid("default_model_filename: \"sub/model.onnx\"", "holds a path separator");
  EXPECT_TRUE(Validate("default_model_filename: \"net.onnx\"").ok());
}

TEST(ConfigValidateTest, Warmup) {
  ExpectInvalid("model_warmup [ { name: \"w\" inputs { key: \"x\" value { data_type: TYPE_FP32 zero_data: true } } } ]",
                "model_warmup[0] 'w': batch_size: expected >= 1, got 0");
  ExpectInvalid("model_warmup [ { batch_size: 1 } ]", "model_warmup[0]: inputs: expected at least one input");
  ExpectInvalid("model_warmup [ { batch_size: 1 inputs { key: \"x\" value { dims: [ 1 ] zero_data: true } } } ]",
                "model_warmup[0]: input 'x': data_type");
  ExpectInvalid(
      "model_warmup [ { batch_size: 1 inputs { key: \"x\" value { data_type: TYPE_FP32 dims: [ -1 ] zero_data: true } "
      "} } ]",
      "model_warmup[0]: input 'x': dims[0]: expected >= 0, got -1");
  ExpectInvalid("model_warmup [ { batch_size: 1 inputs { key: \"x\" value { data_type: TYPE_FP32 dims: [ 1 ] } } } ]",
                "expected one of zero_data, random_data or input_data_file");
  ExpectInvalid(
      "model_warmup [ { batch_size: 1 inputs { key: \"x\" value { data_type: TYPE_FP32 dims: [ 1 ] "
      "input_data_file: \"../secret\" } } } ]",
      "input_data_file '../secret'");
}

TEST(ConfigValidateTest, BatchingNeedsTheFinalMaxBatchSize) {
  auto check = [](const std::string& text) { return ValidateBatching(testing::ParseOrFail(text), kSource); };
  Status s = check("dynamic_batching { }");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("models/m/config.pbtxt: dynamic_batching: needs max_batch_size > 0"));
  s = check("max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 2, 8 ] }");
  EXPECT_THAT(s.message(), HasSubstr("dynamic_batching.preferred_batch_size: 8 exceeds max_batch_size 4"));
  EXPECT_TRUE(check("max_batch_size: 8 dynamic_batching { preferred_batch_size: [ 2, 8 ] }").ok());
  s = check("model_warmup [ { batch_size: 2 } ]");
  EXPECT_THAT(s.message(), HasSubstr("model_warmup[0].batch_size: expected 1 (max_batch_size is 0), got 2"));
  s = check("max_batch_size: 4 model_warmup [ { batch_size: 5 } ]");
  EXPECT_THAT(s.message(), HasSubstr("model_warmup[0].batch_size: 5 exceeds max_batch_size 4"));
  EXPECT_TRUE(check("max_batch_size: 4 model_warmup [ { batch_size: 4 } ]").ok());
}

}  // namespace
}  // namespace hone::serve
