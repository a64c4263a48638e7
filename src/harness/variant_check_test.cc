// CheckVariant's verdicts on small models built here: a variant whose outputs overflow to Inf, one that is a copy
// of its source, one that does not load, and one that matches.
#include "harness/variant_check.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "onnx/quantize_test_models.h"
#include "onnx/test_models.h"

namespace hone::harness {
namespace {

using onnx::testing::AddNode;
using onnx::testing::EmptyModel;
using onnx::testing::IntAttribute;
using onnx::testing::SetTensorType;

// y = x * scale, x FP32 [N, 8]; with through_fp16, the product is rounded through FP16 (as a careless FP16
// conversion does), which overflows to Inf beyond 65504.
::onnx::ModelProto ScaleModel(float scale, bool through_fp16) {
  auto m = EmptyModel("scale");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 8});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 8});
  auto* s = g->add_initializer();
  s->set_name("scale");
  s->set_data_type(::onnx::TensorProto::FLOAT);
  s->add_float_data(scale);
  if (!through_fp16) {
    AddNode(g, "Mul", {"x", "scale"}, {"y"}, "")->set_name("mul");
    return m;
  }
  AddNode(g, "Mul", {"x", "scale"}, {"product"}, "")->set_name("mul");
  IntAttribute(AddNode(g, "Cast", {"product"}, {"half"}, ""), "to", ::onnx::TensorProto::FLOAT16);
  IntAttribute(AddNode(g, "Cast", {"half"}, {"y"}, ""), "to", ::onnx::TensorProto::FLOAT);
  return m;
}

class VariantCheckTest : public ::testing::Test {
 protected:
  VariantCheck Check(const std::string& variant) {
    VariantCheck c;
    c.source_path = source_;
    c.variant_path = variant;
    c.data.ranges["x"] = {0, 100};  // realistic values: x * 1000 reaches 1e5, beyond FP16's range
    c.data.generated_samples = 16;
    c.session.intra_op_threads = 1;
    c.bench = false;
    return c;
  }
  void SetUp() override { source_ = dir_.WriteModel("source.onnx", ScaleModel(1000, false)); }
  onnx::testing::TempDir dir_;
  std::string source_;
};

TEST_F(VariantCheckTest, InfWhereTheSourceIsFiniteFailsAndIsShownFirst) {
  auto c = Check(dir_.WriteModel("fp16.onnx", ScaleModel(1000, true)));
  auto outcome = CheckVariant(c);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_FALSE(outcome->passed());
  ASSERT_EQ(outcome->compare.outputs.size(), 1u);
  const auto& o = outcome->compare.outputs[0];
  EXPECT_GT(o.match.non_finite_mismatches, 0);
  ASSERT_FALSE(outcome->failures.empty());
  EXPECT_NE(outcome->failures[0].find("NaN or Inf"), std::string::npos) << outcome->failures[0];
  std::string text = VariantOutcomeToText(c, *outcome);
  EXPECT_NE(text.find("NaN or Inf where the source disagrees"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: FAILED"), std::string::npos) << text;
  EXPECT_EQ(text.find("PASSED"), std::string::npos) << text;
}

TEST_F(VariantCheckTest, ACopyOfTheSourceIsNotAPass) {
  std::filesystem::copy_file(source_, dir_.File("copy.onnx"));
  auto outcome = CheckVariant(Check(dir_.File("copy.onnx")));
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->identical);
  EXPECT_FALSE(outcome->passed());
  EXPECT_NE(outcome->failures[0].find("nothing changed"), std::string::npos);
}

TEST_F(VariantCheckTest, AVariantThatDoesNotLoadFailsNamingTheNode) {
  auto m = ScaleModel(1000, false);
  auto* node = m.mutable_graph()->mutable_node(0);
  node->set_op_type("NoSuchOperator");
  node->set_name("user_node_7");
  auto outcome = CheckVariant(Check(dir_.WriteModel("broken.onnx", m)));
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_FALSE(outcome->passed());
  EXPECT_FALSE(outcome->load_error.empty());
  EXPECT_NE(outcome->failures[0].find("does not load"), std::string::npos) << outcome->failures[0];
  EXPECT_NE(outcome->failures[0].find("NoSuchOperator"), std::string::npos) << outcome->failures[0];
}

TEST_F(VariantCheckTest, AMatchingVariantPassesButSaysSpeedWasNotMeasured) {
  auto c = Check(dir_.WriteModel("close.onnx", ScaleModel(1000.01f, false)));
  auto outcome = CheckVariant(c);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_TRUE(outcome->passed()) << (outcome->failures.empty() ? "" : outcome->failures[0]);
  std::string text = VariantOutcomeToText(c, *outcome);
  EXPECT_NE(text.find("speed NOT MEASURED"), std::string::npos) << text;
  EXPECT_NE(text.find("rule: similarity"), std::string::npos) << text;
}

TEST_F(VariantCheckTest, SpeedIsMeasuredInAlternatingRounds) {
  auto c = Check(dir_.WriteModel("close.onnx", ScaleModel(1000.01f, false)));
  c.bench = true;
  c.bench_rounds = 2;
  c.bench_window_s = 0.02;
  auto outcome = CheckVariant(c);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  ASSERT_TRUE(outcome->speed.has_value());
  ASSERT_EQ(outcome->speed->rounds.size(), 2u);
  EXPECT_FALSE(outcome->speed->rounds[0].variant_first);
  EXPECT_TRUE(outcome->speed->rounds[1].variant_first);
  EXPECT_GT(outcome->speed->source_sps, 0);
  EXPECT_GT(outcome->speed->variant_sps, 0);
  // Whatever the noise made of the ratio, a slower verdict is a failure and anything else is not.
  bool slower = outcome->speed->verdict == SpeedVerdict::kSlower;
  EXPECT_EQ(outcome->passed(), !slower);
  c.allow_slower = true;
  auto allowed = CheckVariant(c);
  ASSERT_TRUE(allowed.ok());
  EXPECT_TRUE(allowed->passed());
}

}  // namespace
}  // namespace hone::harness
