#include "serve/config/config_complete.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/session.h"
#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The metadata ONNX Runtime reports for a model in the source tree.
runtime::ModelMetadata MetadataOf(const std::string& relative) {
  auto session = runtime::Session::Open(testing::SourcePath(relative), {});
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  return session.ok() ? (*session)->metadata() : runtime::ModelMetadata{};
}

const runtime::ModelMetadata& Affine() {
  static const runtime::ModelMetadata m = MetadataOf("src/runtime/testdata/affine.onnx");
  return m;
}
const runtime::ModelMetadata& TwoInputs() {
  static const runtime::ModelMetadata m = MetadataOf("src/runtime/testdata/two_inputs.onnx");
  return m;
}
const runtime::ModelMetadata& FashionMnist() {
  static const runtime::ModelMetadata m = MetadataOf("models/fashion_mnist/model.onnx");
  return m;
}

// A model without a batch dimension: x FP32 [2, 3] -> y FP32 [6].
runtime::ModelMetadata Fixed() {
  runtime::ModelMetadata m;
  m.inputs.push_back({"x", DataType::kFp32, "float", {2, 3}, {"", ""}});
  m.outputs.push_back({"y", DataType::kFp32, "float", {6}, {""}});
  return m;
}

struct Completed {
  Status status;
  inference::ModelConfig config;
};

Completed Complete(const runtime::ModelMetadata& model, const std::string& text, int cores = 8,
                   const std::string& name = "m") {
  Completed c{Status::Ok(), testing::ParseOrFail(text)};
  CompletionOptions options;
  options.cores = cores;
  c.status = CompleteModelConfig(model, options, {"models/" + name + "/config.pbtxt", name}, &c.config);
  return c;
}

void ExpectInvalid(const Completed& c, const std::string& expect) {
  ASSERT_FALSE(c.status.ok()) << expect;
  EXPECT_EQ(c.status.code(), StatusCode::kInvalidArgument) << c.status.ToString();
  EXPECT_THAT(c.status.message(), ::testing::StartsWith("models/m/config.pbtxt: "));
  EXPECT_THAT(c.status.message(), HasSubstr(expect));
}

TEST(ConfigCompleteTest, AffineWithoutConfigGetsTritonsDefaults) {
  Completed c = Complete(Affine(), "", 8, "affine");
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  const auto& k = c.config;
  EXPECT_EQ(k.name(), "affine");
  EXPECT_EQ(k.platform(), "onnxruntime_onnx");
  EXPECT_EQ(k.backend(), "onnxruntime");
  EXPECT_EQ(k.max_batch_size(), 4);        // Triton's onnxruntime default-max-batch-size
  EXPECT_TRUE(k.has_dynamic_batching());   // enabled because max_batch_size > 1 and no scheduler was set
  EXPECT_EQ(k.dynamic_batching().ByteSizeLong(), 0u);
  ASSERT_EQ(k.input_size(), 1);
  EXPECT_EQ(k.input(0).name(), "x");
  EXPECT_EQ(k.input(0).data_type(), inference::TYPE_FP32);
  EXPECT_THAT(k.input(0).dims(), ElementsAre(4));
  EXPECT_FALSE(k.input(0).has_reshape());
  ASSERT_EQ(k.output_size(), 1);
  EXPECT_EQ(k.output(0).name(), "y");
  EXPECT_THAT(k.output(0).dims(), ElementsAre(4));
  ASSERT_EQ(k.instance_group_size(), 1);
  EXPECT_EQ(k.instance_group(0).name(), "affine");
  EXPECT_EQ(k.instance_group(0).kind(), inference::ModelInstanceGroup::KIND_CPU);
  EXPECT_EQ(k.instance_group(0).count(), 1);
  ASSERT_TRUE(k.version_policy().has_latest());
  EXPECT_EQ(k.version_policy().latest().num_versions(), 1u);
  EXPECT_EQ(k.parameters().at("intra_op_thread_count").string_value(), "8");
}

TEST(ConfigCompleteTest, TwoInputsKeepsDynamicDimsAndReshapesPerRowScalars) {
  Completed c = Complete(TwoInputs(), "");
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  const auto& k = c.config;
  EXPECT_EQ(k.max_batch_size(), 4);
  ASSERT_EQ(k.input_size(), 2);
  EXPECT_EQ(k.input(0).name(), "ids");
  EXPECT_EQ(k.input(0).data_type(), inference::TYPE_INT64);
  EXPECT_THAT(k.input(0).dims(), ElementsAre(-1));
  EXPECT_EQ(k.input(1).name(), "mask");
  ASSERT_EQ(k.output_size(), 2);
  EXPECT_EQ(k.output(0).name(), "sum");
  EXPECT_THAT(k.output(0).dims(), ElementsAre(-1));
  // count: INT64 [batch] has nothing but the batch dimension: dims [1] with an empty reshape, as Triton does.
  EXPECT_EQ(k.output(1).name(), "count");
  EXPECT_THAT(k.output(1).dims(), ElementsAre(1));
  EXPECT_TRUE(k.output(1).has_reshape());
  EXPECT_EQ(k.output(1).reshape().shape_size(), 0);
}

TEST(ConfigCompleteTest, FashionMnistWithDeclaredIoIsCheckedNotChanged) {
  Completed c = Complete(FashionMnist(), R"pb(
    max_batch_size: 16
    input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]
    output [ { name: "logits" data_type: TYPE_FP32 dims: [ 10 ] } ]
  )pb");
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_EQ(c.config.max_batch_size(), 16);
  EXPECT_FALSE(c.config.has_dynamic_batching());  // declared IO: no auto-complete of the scheduler
  EXPECT_EQ(c.config.input_size(), 1);
  EXPECT_EQ(c.config.output_size(), 1);
}

TEST(ConfigCompleteTest, FashionMnistAutoCompleteAndExplicitBatchSizes) {
  Completed c = Complete(FashionMnist(), "");
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_EQ(c.config.max_batch_size(), 4);
  EXPECT_THAT(c.config.input(0).dims(), ElementsAre(1, 28, 28));
  EXPECT_THAT(c.config.output(0).dims(), ElementsAre(10));

  c = Complete(FashionMnist(), "max_batch_size: 32");
  ASSERT_TRUE(c.status.ok());
  EXPECT_EQ(c.config.max_batch_size(), 32);
  EXPECT_TRUE(c.config.has_dynamic_batching());

  c = Complete(FashionMnist(), "max_batch_size: 1");
  ASSERT_TRUE(c.status.ok());
  EXPECT_FALSE(c.config.has_dynamic_batching());  // Triton enables it only above 1

  c = Complete(FashionMnist(), "max_batch_size: 8 dynamic_batching { max_queue_delay_microseconds: 50 }");
  ASSERT_TRUE(c.status.ok());
  EXPECT_EQ(c.config.dynamic_batching().max_queue_delay_microseconds(), 50u);
}

TEST(ConfigCompleteTest, NoBatchingWithFullDeclaredDims) {
  Completed c = Complete(FashionMnist(), R"pb(
    input [ { name: "image" data_type: TYPE_FP32 dims: [ -1, 1, 28, 28 ] } ]
    output [ { name: "logits" data_type: TYPE_FP32 dims: [ -1, 10 ] } ]
  )pb");
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_EQ(c.config.max_batch_size(), 0);
  EXPECT_FALSE(c.config.has_dynamic_batching());
}

TEST(ConfigCompleteTest, OnlyOutputsMissingAreFilledWithTheDeclaredBatchSize) {
  Completed c = Complete(FashionMnist(), R"pb(
    max_batch_size: 8
    input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]
  )pb");
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  ASSERT_EQ(c.config.output_size(), 1);
  EXPECT_THAT(c.config.output(0).dims(), ElementsAre(10));
  EXPECT_FALSE(c.config.has_dynamic_batching());
}

TEST(ConfigCompleteTest, ModelWithoutBatchDimension) {
  Completed c = Complete(Fixed(), "");
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_EQ(c.config.max_batch_size(), 0);
  EXPECT_FALSE(c.config.has_dynamic_batching());
  EXPECT_THAT(c.config.input(0).dims(), ElementsAre(2, 3));
  EXPECT_THAT(c.config.output(0).dims(), ElementsAre(6));

  ExpectInvalid(Complete(Fixed(), "max_batch_size: 4"),
                "input 'x': max_batch_size 4 needs a dynamic first (batch) dimension, but the model's shape is [2, 3]");
  ExpectInvalid(Complete(Fixed(), "dynamic_batching { }"), "dynamic_batching: needs max_batch_size > 0");
  // A reshape gives the model's side of the shape.
  c = Complete(Fixed(), R"pb(input [ { name: "x" data_type: TYPE_FP32 dims: [ 6 ] reshape { shape: [ 2, 3 ] } } ])pb");
  EXPECT_TRUE(c.status.ok()) << c.status.ToString();
}

TEST(ConfigCompleteTest, DeclaredIoMustMatchTheModel) {
  ExpectInvalid(Complete(Affine(), R"pb(max_batch_size: 4
                                        input [ { name: "x" data_type: TYPE_INT64 dims: [ 4 ] } ])pb"),
                "input 'x': data_type TYPE_INT64 does not match the model's FP32 (TYPE_FP32)");
  ExpectInvalid(Complete(Affine(), R"pb(max_batch_size: 4
                                        input [ { name: "z" data_type: TYPE_FP32 dims: [ 4 ] } ])pb"),
                "input 'z': the model has no such input (its inputs: x)");
  ExpectInvalid(Complete(TwoInputs(), R"pb(max_batch_size: 4
                                           input [ { name: "ids" data_type: TYPE_INT64 dims: [ -1 ] } ])pb"),
                "input: the model's input 'mask' is not declared");
  ExpectInvalid(Complete(Affine(), R"pb(max_batch_size: 4
                                        output [ { name: "out" data_type: TYPE_FP32 dims: [ 4 ] } ])pb"),
                "output 'out': the model has no such output (its outputs: y)");
  ExpectInvalid(Complete(Affine(), R"pb(max_batch_size: 4
                                        input [ { name: "x" data_type: TYPE_FP32 dims: [ 5 ] } ])pb"),
                "input 'x': dims [5] do not match the model's shape without its batch dimension [4]");
  ExpectInvalid(Complete(Affine(), R"pb(max_batch_size: 4
                                        input [ { name: "x" data_type: TYPE_FP32 dims: [ 2, 2 ] } ])pb"),
                "input 'x': dims [2, 2] do not match");
  // -1 in the config claims any size; the model takes only 4.
  ExpectInvalid(Complete(Affine(), R"pb(max_batch_size: 4
                                        output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ])pb"),
                "output 'y': dims [-1] do not match");
  // Without max_batch_size the batch dimension belongs in dims.
  ExpectInvalid(Complete(Affine(), R"pb(input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ])pb"),
                "input 'x': dims [4] do not match the model's shape [-1, 4]");
  ExpectInvalid(Complete(Affine(), R"pb(max_batch_size: 4
             input [ { name: "x" data_type: TYPE_FP32 dims: [ 2 ] reshape { shape: [ 3 ] } } ])pb"),
                "input 'x': reshape.shape [3] do not match");
  // A dynamic model dimension accepts a fixed config one.
  Completed c = Complete(TwoInputs(), R"pb(max_batch_size: 4
    input [ { name: "ids" data_type: TYPE_INT64 dims: [ 7 ] },
            { name: "mask" data_type: TYPE_INT64 dims: [ 7 ] } ])pb");
  EXPECT_TRUE(c.status.ok()) << c.status.ToString();
}

TEST(ConfigCompleteTest, PreferredBatchSizesCheckedAgainstTheFinalMaxBatchSize) {
  // max_batch_size 0 is completed to 4 before preferred sizes are checked.
  EXPECT_TRUE(Complete(Affine(), "dynamic_batching { preferred_batch_size: [ 2, 4 ] }").status.ok());
  ExpectInvalid(Complete(Affine(), "dynamic_batching { preferred_batch_size: [ 8 ] }"),
                "dynamic_batching.preferred_batch_size: 8 exceeds max_batch_size 4");
}

TEST(ConfigCompleteTest, ModelTypeWithoutConfigTypeIsUnimplemented) {
  runtime::ModelMetadata m;
  m.inputs.push_back({"z", DataType::kInvalid, "complex64", {-1, 2}, {"batch", ""}});
  m.outputs.push_back({"y", DataType::kFp32, "float", {-1, 2}, {"batch", ""}});
  Completed c = Complete(m, "");
  EXPECT_EQ(c.status.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(c.status.message(), HasSubstr("input 'z': the model's element type 'complex64' has no config data type"));
}

TEST(ConfigCompleteTest, InstanceGroupsAndThreadSplit) {
  Completed c = Complete(Affine(), "instance_group [ { count: 3 } ]", 8);
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_EQ(c.config.instance_group(0).name(), "m_0");
  EXPECT_EQ(c.config.instance_group(0).kind(), inference::ModelInstanceGroup::KIND_CPU);  // KIND_AUTO -> CPU
  EXPECT_EQ(c.config.parameters().at("intra_op_thread_count").string_value(), "2");  // 8 cores / 3 instances

  c = Complete(Affine(), "instance_group [ { name: \"a\" count: 2 kind: KIND_CPU }, { count: 0 } ]", 8);
  ASSERT_TRUE(c.status.ok());
  EXPECT_EQ(c.config.instance_group(0).name(), "a");
  EXPECT_EQ(c.config.instance_group(1).count(), 1);
  EXPECT_EQ(TotalInstanceCount(c.config), 3);
  EXPECT_EQ(c.config.parameters().at("intra_op_thread_count").string_value(), "2");

  c = Complete(Affine(), "instance_group [ { count: 16 } ]", 2);
  EXPECT_EQ(c.config.parameters().at("intra_op_thread_count").string_value(), "1");  // never 0

  c = Complete(Affine(), R"pb(instance_group [ { count: 4 } ]
    parameters { key: "intra_op_thread_count" value { string_value: "3" } })pb", 2);
  EXPECT_EQ(c.config.parameters().at("intra_op_thread_count").string_value(), "3");  // the config's choice stays

  c = Complete(Affine(), "", 0);  // the machine's cores
  int threads = std::stoi(c.config.parameters().at("intra_op_thread_count").string_value());
  EXPECT_GE(threads, 1);
}

TEST(ConfigCompleteTest, KeepsWhatTheConfigSets) {
  Completed c = Complete(Affine(), R"pb(
    name: "m" version_policy { all { } } max_batch_size: 2
    instance_group [ { kind: KIND_CPU count: 1 name: "one" } ]
  )pb");
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_TRUE(c.config.version_policy().has_all());
  EXPECT_EQ(c.config.instance_group_size(), 1);
  EXPECT_EQ(c.config.instance_group(0).name(), "one");
  EXPECT_EQ(c.config.max_batch_size(), 2);
}

}  // namespace
}  // namespace hone::serve
