#include "check/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "check/compare_report.h"

namespace hone::check {
namespace {

using ::testing::HasSubstr;

NamedTensor Make(const std::string& name, Shape shape, std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DataType::kFp32, shape);
  std::copy(values.begin(), values.end(), t.mutable_values<float>().begin());
  return {name, t};
}

TEST(CompareOutputs, SameOutputsPass) {
  std::vector<NamedTensor> a = {Make("logits", {2, 2}, {1, 2, 3, 4})};
  auto r = CompareOutputs(a, a, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->passed());
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].errors.max_abs, 0);
  EXPECT_DOUBLE_EQ(r->outputs[0].errors.cosine_similarity, 1);
  ASSERT_TRUE(r->outputs[0].classifier);
  EXPECT_EQ(r->outputs[0].classifier->argmax_agreement, 1);
  EXPECT_THAT(CompareReportToText(*r), HasSubstr("result     PASS: 1 of 1 outputs matched"));
  EXPECT_EQ(CompareReportToJson(*r)["passed"], true);
}

TEST(CompareOutputs, PerOutputToleranceDecides) {
  std::vector<NamedTensor> ref = {Make("a", {2}, {1, 2}), Make("b", {2}, {1, 2})};
  std::vector<NamedTensor> cand = {Make("a", {2}, {1, 2.001f}), Make("b", {2}, {1, 2.001f})};
  CompareSettings s;
  ASSERT_TRUE(s.tolerances.ParseAtol("1e-5").ok());
  ASSERT_TRUE(s.tolerances.ParseAtol("b:1e-2").ok());
  auto r = CompareOutputs(ref, cand, s);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->passed());
  EXPECT_FALSE(r->outputs[0].passed);
  EXPECT_THAT(r->outputs[0].failure, HasSubstr("1 of 2 elements beyond atol 1e-05 and rtol 1e-05"));
  EXPECT_TRUE(r->outputs[1].passed);
  auto j = CompareReportToJson(*r);
  EXPECT_EQ(j["outputs"][0]["mismatched"], 1);
  EXPECT_NEAR(j["outputs"][0]["min_passing"]["atol"].get<double>(), 0.001, 1e-6);
  EXPECT_EQ(j["outputs"][0]["largest_error"]["index"], nlohmann::json::parse("[1]"));
}

// The default rule: what hone compare and every variant's verification apply when no --atol/--rtol is given.
TEST(CompareOutputs, DefaultRuleForgivesRoundingButNotNewInfinities) {
  std::vector<NamedTensor> ref = {Make("y", {4}, {1000, 20000, 60000, 90000})};
  // An FP16 round trip: small relative rounding everywhere, and Inf beyond 65504.
  std::vector<NamedTensor> cand = {Make("y", {4}, {1000, 20000, 60000, INFINITY})};
  auto r = CompareOutputs(ref, cand, {});
  ASSERT_TRUE(r.ok());
  const OutputComparison& o = r->outputs[0];
  EXPECT_EQ(o.tolerance.rule, ToleranceRule::kSimilarity);
  EXPECT_FALSE(o.passed);
  EXPECT_EQ(o.match.non_finite_mismatches, 1);
  // Over the finite pairs alone the candidate looks perfect: that is why the count is shown first.
  EXPECT_EQ(o.errors.max_abs, 0);
  EXPECT_DOUBLE_EQ(o.errors.cosine_similarity, 1);
  EXPECT_THAT(o.failure, ::testing::StartsWith("1 of 4 elements are NaN or Inf"));
  std::string text = CompareReportToText(*r);
  EXPECT_LT(text.find("NaN/Inf MISMATCH"), text.find("  absolute error     max")) << text;
  EXPECT_EQ(CompareReportToJson(*r)["outputs"][0]["tolerance"]["rule"], "similarity");

  std::vector<NamedTensor> rounded = {Make("y", {4}, {1000.5f, 19995, 60010, 89990})};
  auto ok = CompareOutputs(ref, rounded, {});
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->passed()) << ok->outputs[0].failure;
}

TEST(CompareOutputs, DefaultRuleCatchesOneBadElementThatCosineHides) {
  std::vector<float> r(1000, 1.0f), c(1000, 1.0f);
  for (int i = 0; i < 1000; ++i) r[i] = c[i] = static_cast<float>(i % 10);  // range 9
  c[500] += 0.9f;  // 10% of the range, at one element of 1000: cosine stays above 0.9999
  auto result = CompareOutputs({Make("y", {1000}, r)}, {Make("y", {1000}, c)}, {});
  ASSERT_TRUE(result.ok());
  const OutputComparison& o = result->outputs[0];
  EXPECT_GT(o.errors.cosine_similarity, 0.9999);
  EXPECT_FALSE(o.passed);
  EXPECT_TRUE(o.match.range_error_failed);
  EXPECT_FALSE(o.match.cosine_failed);
  EXPECT_THAT(o.failure, HasSubstr("of the reference's range"));
  CompareSettings loose;
  ASSERT_TRUE(loose.tolerances.SetSimilarity(0.999, 0.2).ok());
  EXPECT_TRUE(CompareOutputs({Make("y", {1000}, r)}, {Make("y", {1000}, c)}, loose)->passed());
}

TEST(CompareOutputs, DefaultRuleFailsOnLowCosine) {
  auto r = CompareOutputs({Make("y", {4}, {1, -1, 1, -1})}, {Make("y", {4}, {1, -1, -1, 1})}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->outputs[0].match.cosine_failed);
  EXPECT_THAT(r->outputs[0].failure, HasSubstr("cosine similarity"));
}

TEST(CompareOutputs, IntegerOutputsMustBeEqualUnderTheDefault) {
  Tensor a = *Tensor::Allocate(DataType::kInt64, {3});
  Tensor b = *Tensor::Allocate(DataType::kInt64, {3});
  auto av = a.mutable_values<int64_t>(), bv = b.mutable_values<int64_t>();
  for (int i = 0; i < 3; ++i) av[i] = bv[i] = 1000 + i;
  bv[2] = 1001;  // a different class id: cosine would barely move
  auto r = CompareOutputs({{"ids", a}}, {{"ids", b}}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs[0].tolerance.rule, ToleranceRule::kExact);
  EXPECT_FALSE(r->passed());
  EXPECT_THAT(r->outputs[0].failure, HasSubstr("1 of 3 elements"));
}

TEST(Tolerances, SimilarityThresholdsAreValidated) {
  Tolerances t;
  EXPECT_FALSE(t.SetSimilarity(1.5, 0.05).ok());
  EXPECT_FALSE(t.SetSimilarity(0.99, -1).ok());
  EXPECT_TRUE(t.SetSimilarity(0.99, 0).ok());
  EXPECT_EQ(t.For("x").rule, ToleranceRule::kSimilarity);
  ASSERT_TRUE(t.ParseRtol("x:1e-3").ok());
  EXPECT_EQ(t.For("x").rule, ToleranceRule::kAtolRtol);  // named: elementwise for that output
  EXPECT_EQ(t.For("z").rule, ToleranceRule::kSimilarity);
  ASSERT_TRUE(t.ParseStatistic("max").ok());
  EXPECT_EQ(t.For("z").rule, ToleranceRule::kAtolRtol);
}

TEST(CompareOutputs, MappingAndUnpairedOutputs) {
  std::vector<NamedTensor> ref = {Make("logits", {1}, {1}), Make("extra", {1}, {0})};
  std::vector<NamedTensor> cand = {Make("output", {1}, {1}), Make("other", {1}, {0})};
  CompareSettings s;
  s.output_map["logits"] = "output";
  auto r = CompareOutputs(ref, cand, s);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->passed());
  EXPECT_EQ(r->outputs[0].candidate_name, "output");
  EXPECT_THAT(r->reference_only, ::testing::ElementsAre("extra"));
  EXPECT_THAT(r->candidate_only, ::testing::ElementsAre("other"));
  EXPECT_THAT(CompareOutputs(ref, cand, {}).status().message(),
              HasSubstr("no output to compare: the reference has logits, extra; the candidate has output, other"));
  s.output_map["missing"] = "output";
  EXPECT_THAT(CompareOutputs(ref, cand, s).status().message(), HasSubstr("the reference has no output 'missing'"));
}

TEST(CompareOutputs, ToleranceForAnOutputNotComparedIsAnError) {
  std::vector<NamedTensor> a = {Make("logits", {1}, {1})};
  CompareSettings s;
  ASSERT_TRUE(s.tolerances.ParseAtol("logitz:1e-3").ok());
  EXPECT_THAT(CompareOutputs(a, a, s).status().message(), HasSubstr("names output 'logitz', which is not compared"));
}

TEST(CompareOutputs, ShapeMismatchFailsTheOutput) {
  auto r = CompareOutputs({Make("x", {2, 2}, {1, 2, 3, 4})}, {Make("x", {4}, {1, 2, 3, 4})}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->passed());
  EXPECT_FALSE(r->outputs[0].shapes_match);
  EXPECT_THAT(r->outputs[0].failure, HasSubstr("shapes differ"));
  EXPECT_THAT(CompareReportToText(*r), HasSubstr("shapes DIFFER"));
}

TEST(CompareOutputs, ValidateFailsOnNaNOrInfAnywhere) {
  std::vector<NamedTensor> ref = {Make("x", {2}, {1, NAN})}, cand = {Make("x", {2}, {1, NAN})};
  auto plain = CompareOutputs(ref, cand, {});
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->passed());  // NaN matches NaN
  CompareSettings s;
  s.validate = true;
  auto validated = CompareOutputs(ref, cand, s);
  EXPECT_FALSE(validated->passed());
  EXPECT_THAT(validated->validation_failures,
              ::testing::ElementsAre("reference output 'x': 1 NaN, 0 Inf", "candidate output 'x': 1 NaN, 0 Inf"));
  auto j = CompareReportToJson(*validated);
  EXPECT_EQ(j["outputs"][0]["reference"]["nan"], 1);
}

TEST(CompareOutputs, NonFiniteNumbersStayNumbersForTheEnvelope) {
  auto r = CompareOutputs({Make("x", {2}, {0, 1})}, {Make("x", {2}, {1, 1})}, {});
  ASSERT_TRUE(r.ok());
  auto j = CompareReportToJson(*r);
  ASSERT_TRUE(j["outputs"][0]["rel_error"]["max"].is_number_float());
  EXPECT_TRUE(std::isinf(j["outputs"][0]["rel_error"]["max"].get<double>()));
}

}  // namespace
}  // namespace hone::check
