#include "onnx/model_info.h"

#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/onnx_pb.h"
#include "onnx/test_models.h"

namespace hone::onnx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using testing::AddFloatInitializer;
using testing::AddNode;
using testing::SetTensorType;
using testing::TempDir;

// y = FusedGelu(x @ W + B), then If(cond) picks Identity or Relu+Add in its branches. It carries every case
// ReadModelInfo distinguishes: a named and an unnamed dynamic dim, an initializer listed as an input (IR < 4 style),
// external data, a Constant node, a subgraph initializer, two opset domains, and non-FP32 outputs.
::onnx::ModelProto RichModel() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("hone-test");
  m.set_producer_version("1.0");
  m.set_domain("ai.hone.test");
  m.set_model_version(3);
  m.set_doc_string("a model for tests\nsecond line");
  m.add_opset_import()->set_version(17);
  auto* ms = m.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  auto* prop = m.add_metadata_props();
  prop->set_key("author");
  prop->set_value("hone");
  prop = m.add_metadata_props();
  prop->set_key("license");
  prop->set_value("MIT");

  auto* g = m.mutable_graph();
  g->set_name("rich");
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"batch", 4});
  SetTensorType(g->add_input(), "W", ::onnx::TensorProto::FLOAT, {4, 3});  // also an initializer
  SetTensorType(g->add_input(), "mask", ::onnx::TensorProto::INT64, {-1, 3});
  SetTensorType(g->add_input(), "cond", ::onnx::TensorProto::BOOL, {});

  AddFloatInitializer(g, "W", {4, 3});  // 12 FP32 = 48 B
  auto* b = g->add_initializer();       // 3 FP32 as float_data = 12 B
  b->set_name("B");
  b->set_data_type(::onnx::TensorProto::FLOAT);
  b->add_dims(3);
  for (float v : {1.f, 2.f, 3.f}) b->add_float_data(v);
  auto* e = g->add_initializer();  // 10,000 FP16 in an external file = 20,000 B
  e->set_name("E");
  e->set_data_type(::onnx::TensorProto::FLOAT16);
  e->add_dims(1000);
  e->add_dims(10);
  e->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* where = e->add_external_data();
  where->set_key("location");
  where->set_value("weights.bin");

  AddNode(g, "MatMul", {"x", "W"}, {"h"});
  AddNode(g, "Add", {"h", "B"}, {"y"});
  AddNode(g, "FusedGelu", {"y"}, {"z"}, "com.microsoft");
  auto* constant = AddNode(g, "Constant", {}, {"c"});  // 2 INT64 = 16 B
  auto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(::onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(2);
  value->mutable_t()->add_int64_data(1);
  value->mutable_t()->add_int64_data(-1);

  auto* if_node = AddNode(g, "If", {"cond"}, {"out"});
  auto* then_attr = if_node->add_attribute();
  then_attr->set_name("then_branch");
  then_attr->set_type(::onnx::AttributeProto::GRAPH);
  auto* then_graph = then_attr->mutable_g();
  auto* t = then_graph->add_initializer();  // 5 INT8 = 5 B, inside a subgraph
  t->set_name("T");
  t->set_data_type(::onnx::TensorProto::INT8);
  t->add_dims(5);
  t->set_raw_data(std::string(5, '\0'));
  AddNode(then_graph, "Identity", {"z"}, {"then_out"});
  SetTensorType(then_graph->add_output(), "then_out", ::onnx::TensorProto::FLOAT, {"batch", 3});
  auto* else_attr = if_node->add_attribute();
  else_attr->set_name("else_branch");
  else_attr->set_type(::onnx::AttributeProto::GRAPH);
  auto* else_graph = else_attr->mutable_g();
  AddNode(else_graph, "Relu", {"z"}, {"r"});
  AddNode(else_graph, "Add", {"r", "B"}, {"else_out"});
  SetTensorType(else_graph->add_output(), "else_out", ::onnx::TensorProto::FLOAT, {"batch", 3});

  SetTensorType(g->add_output(), "out", ::onnx::TensorProto::FLOAT, {"batch", 3});
  auto* scores = g->add_output();  // complex64, no shape declared
  scores->set_name("scores");
  scores->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::COMPLEX64);
  auto* seq = g->add_output();  // a sequence of tensors
  seq->set_name("pieces");
  seq->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
      ::onnx::TensorProto::FLOAT);
  return m;
}

TEST(DimsToStringTest, ShowsFixedNamedAndUnnamedDims) {
  EXPECT_EQ(DimsToString({{-1, "batch"}, {1, ""}, {28, ""}, {28, ""}}), "[batch, 1, 28, 28]");
  EXPECT_EQ(DimsToString({{-1, ""}, {3, ""}}), "[?, 3]");
  EXPECT_EQ(DimsToString({}), "[]");
  TensorInfo unknown;
  unknown.has_shape = false;
  EXPECT_EQ(ShapeText(unknown), "unknown");
}

TEST(ReadModelInfoTest, DescribesEveryField) {
  TempDir dir;
  ::onnx::ModelProto m = RichModel();
  std::string path = dir.WriteModel("rich.onnx", m);
  Result<ModelInfo> read = ReadModelInfo(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const ModelInfo& info = *read;

  EXPECT_EQ(info.path, path);
  EXPECT_EQ(info.file_bytes, std::filesystem::file_size(path));
  EXPECT_EQ(info.file_bytes, m.ByteSizeLong());
  EXPECT_EQ(info.ir_version, 8);
  EXPECT_EQ(info.producer_name, "hone-test");
  EXPECT_EQ(info.producer_version, "1.0");
  EXPECT_EQ(info.domain, "ai.hone.test");
  EXPECT_EQ(info.doc_string, "a model for tests\nsecond line");
  EXPECT_EQ(info.model_version, 3);
  EXPECT_THAT(info.opsets, ElementsAre(Pair("ai.onnx", 17), Pair("com.microsoft", 1)));
  EXPECT_THAT(info.metadata_props, ElementsAre(Pair("author", "hone"), Pair("license", "MIT")));

  ASSERT_EQ(info.inputs.size(), 3u);  // W is an initializer, not an input to feed
  EXPECT_EQ(info.inputs[0].name, "x");
  EXPECT_EQ(info.inputs[0].type, DataType::kFp32);
  EXPECT_EQ(info.inputs[0].onnx_type, "float");
  EXPECT_TRUE(info.inputs[0].has_shape);
  ASSERT_EQ(info.inputs[0].dims.size(), 2u);
  EXPECT_TRUE(info.inputs[0].dims[0].dynamic());
  EXPECT_EQ(info.inputs[0].dims[0].symbol, "batch");
  EXPECT_EQ(info.inputs[0].dims[1].value, 4);
  EXPECT_EQ(info.inputs[0].dims[1].symbol, "");
  EXPECT_EQ(DimsToString(info.inputs[0].dims), "[batch, 4]");
  EXPECT_EQ(info.inputs[1].name, "mask");
  EXPECT_EQ(info.inputs[1].type, DataType::kInt64);
  EXPECT_EQ(info.inputs[1].onnx_type, "int64");
  ASSERT_EQ(info.inputs[1].dims.size(), 2u);
  EXPECT_EQ(info.inputs[1].dims[0].value, -1);
  EXPECT_EQ(info.inputs[1].dims[0].symbol, "");
  EXPECT_EQ(DimsToString(info.inputs[1].dims), "[?, 3]");
  EXPECT_EQ(info.inputs[2].name, "cond");
  EXPECT_EQ(info.inputs[2].type, DataType::kBool);
  EXPECT_TRUE(info.inputs[2].has_shape);
  EXPECT_TRUE(info.inputs[2].dims.empty());  // a scalar

  ASSERT_EQ(info.outputs.size(), 3u);
  EXPECT_EQ(info.outputs[0].name, "out");
  EXPECT_EQ(ShapeText(info.outputs[0]), "[batch, 3]");
  EXPECT_EQ(info.outputs[1].name, "scores");
  EXPECT_EQ(info.outputs[1].type, DataType::kInvalid);
  EXPECT_EQ(info.outputs[1].onnx_type, "complex64");
  EXPECT_FALSE(info.outputs[1].has_shape);
  EXPECT_EQ(info.outputs[2].name, "pieces");
  EXPECT_EQ(info.outputs[2].type, DataType::kInvalid);
  EXPECT_EQ(info.outputs[2].onnx_type, "seq(tensor(float))");
  EXPECT_FALSE(info.outputs[2].has_shape);

  // Subgraph nodes count; ties sort by name (ASCII, so the domain-qualified name is last).
  EXPECT_THAT(info.operator_counts,
              ElementsAre(Pair("Add", 2), Pair("Constant", 1), Pair("Identity", 1), Pair("If", 1), Pair("MatMul", 1),
                          Pair("Relu", 1), Pair("com.microsoft.FusedGelu", 1)));
  EXPECT_EQ(info.node_count, 8);

  // W 12 + B 3 + E 10,000 + T 5 initializer elements, and the Constant's 2.
  EXPECT_EQ(info.parameter_count, 12 + 3 + 10000 + 5 + 2);
  EXPECT_EQ(info.parameter_bytes, 48u + 12u + 20000u + 5u + 16u);
  EXPECT_EQ(info.initializer_count, 4);
  EXPECT_TRUE(info.uses_external_data);
}

TEST(ReadModelInfoTest, CountsSizesOfTypesHoneHasNoNameFor) {
  ::onnx::ModelProto m = testing::TinyModel();
  auto* g = m.mutable_graph();
  auto add = [&](const char* name, int32_t type, int64_t n) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    t->add_dims(n);
  };
  add("int4", 22, 5);           // 20 bits -> 3 B
  add("f8", 17, 4);             // 4 B
  add("c128", 15, 2);           // 32 B
  auto* s = g->add_initializer();  // strings count their inline bytes
  s->set_name("words");
  s->set_data_type(::onnx::TensorProto::STRING);
  s->add_dims(2);
  s->add_string_data("abc");
  s->add_string_data("de");
  Result<ModelInfo> info = DescribeModel(m);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->parameter_count, 5 + 4 + 2 + 2);
  EXPECT_EQ(info->parameter_bytes, 3u + 4u + 32u + 5u);
  EXPECT_FALSE(info->uses_external_data);
  EXPECT_EQ(info->initializer_count, 4);
}

TEST(ReadModelInfoTest, RejectsInitializersWithImpossibleDims) {
  TempDir dir;
  ::onnx::ModelProto negative = testing::TinyModel();
  auto* t = negative.mutable_graph()->add_initializer();
  t->set_name("bad");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(-4);
  std::string path = dir.WriteModel("negative.onnx", negative);
  Result<ModelInfo> info = ReadModelInfo(path);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr(path));
  EXPECT_THAT(info.status().message(), HasSubstr("initializer 'bad'"));

  ::onnx::ModelProto huge = testing::TinyModel();
  for (int i = 0; i < 3; ++i) {  // 2^62 elements each: past anything a real file holds
    auto* h = huge.mutable_graph()->add_initializer();
    h->set_name("huge");
    h->set_data_type(::onnx::TensorProto::FLOAT);
    h->add_dims(int64_t{1} << 31);
    h->add_dims(int64_t{1} << 31);
  }
  info = DescribeModel(huge);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr("'huge'"));
}

// The model models/fashion_mnist/train_export.py exported, committed with the sources (other tests of every part
// use it too): a lost fixture fails here, naming it, rather than skipping.
TEST(ReadModelInfoTest, DescribesTheFashionMnistModel) {
  std::string path = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: it is committed with the sources";
  Result<ModelInfo> info = ReadModelInfo(path);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_EQ(info->inputs.size(), 1u);
  EXPECT_EQ(info->inputs[0].name, "image");
  EXPECT_EQ(info->inputs[0].type, DataType::kFp32);
  EXPECT_EQ(DimsToString(info->inputs[0].dims), "[batch, 1, 28, 28]");
  ASSERT_EQ(info->outputs.size(), 1u);
  EXPECT_EQ(info->outputs[0].name, "logits");
  EXPECT_EQ(info->outputs[0].type, DataType::kFp32);
  EXPECT_EQ(DimsToString(info->outputs[0].dims), "[batch, 10]");
  EXPECT_THAT(info->opsets, ::testing::Contains(Pair("ai.onnx", 17)));
  EXPECT_GT(info->parameter_count, 0);
  EXPECT_GT(info->node_count, 0);
}

}  // namespace
}  // namespace hone::onnx
