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

TEST(CompareOutputs, NonFiniteNumbersAreStringsInJson) {
  auto r = CompareOutputs({Make("x", {2}, {0, 1})}, {Make("x", {2}, {1, 1})}, {});
  ASSERT_TRUE(r.ok());
  auto j = CompareReportToJson(*r);
  EXPECT_EQ(j["outputs"][0]["rel_error"]["max"], "inf");
  EXPECT_FALSE(j.dump().empty());
}

}  // namespace
}  // namespace hone::check
