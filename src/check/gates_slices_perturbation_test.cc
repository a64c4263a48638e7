#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check/gates.h"
#include "check/perturbation.h"
#include "check/slices.h"

namespace hone::check {
namespace {

using ::testing::HasSubstr;

Metric M(const std::string& name, double value) { return {name, value, Better::kNeither, "ratio"}; }

TEST(Gates, ParseAndCheck) {
  auto gates = ParseGates("accuracy_drop<=0.005, ece_increase<=0.01,worst_slice_drop<0.01,accuracy>=0.9,nll>2");
  ASSERT_TRUE(gates.ok()) << gates.status().ToString();
  ASSERT_EQ(gates->size(), 5u);
  EXPECT_EQ((*gates)[0].metric, "accuracy_drop");
  EXPECT_EQ((*gates)[0].op, GateOp::kLessEqual);
  EXPECT_EQ((*gates)[1].ToString(), "ece_increase<=0.01");
  EXPECT_EQ((*gates)[2].op, GateOp::kLess);
  EXPECT_EQ((*gates)[3].op, GateOp::kGreaterEqual);
  EXPECT_EQ((*gates)[4].op, GateOp::kGreater);
  std::vector<Metric> metrics = {M("accuracy_drop", 0.005), M("ece_increase", 0.02), M("worst_slice_drop", 0.01),
                                 M("accuracy", 0.91), M("nll", 0.3)};
  auto results = CheckGates(*gates, metrics);
  ASSERT_TRUE(results.ok());
  std::vector<bool> passed;
  for (const auto& r : *results) passed.push_back(r.passed);
  EXPECT_THAT(passed, ::testing::ElementsAre(true, false, false, true, false));
  EXPECT_DOUBLE_EQ((*results)[1].value, 0.02);
}

TEST(Gates, Errors) {
  for (const char* bad : {"accuracy", "<=0.1", "accuracy<=x", "accuracy<=0.1,", "a<=inf"})
    EXPECT_EQ(ParseGates(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  EXPECT_THAT(ParseGates("accuracy=0.1").status().message(), HasSubstr("--gate 'accuracy=0.1': no comparison"));
  auto unknown = CheckGates(*ParseGates("acuracy_drop<=0.1"), {M("accuracy", 1), M("ece", 0)});
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("no metric 'acuracy_drop' (metrics: accuracy, ece)"));
  auto nan = CheckGates(*ParseGates("x<=1"), {M("x", std::nan(""))});
  EXPECT_FALSE((*nan)[0].passed);
}

TEST(Slices, GroupRowsAndWorst) {
  auto ids = Tensor::Allocate(DataType::kInt64, {5});
  auto v = ids->mutable_values<int64_t>();
  v[0] = 3, v[1] = 1, v[2] = 3, v[3] = 1, v[4] = 7;
  auto groups = GroupRows(*ids, 5, "ids");
  ASSERT_TRUE(groups.ok());
  EXPECT_THAT((*groups)[1], ::testing::ElementsAre(1, 3));
  EXPECT_THAT((*groups)[3], ::testing::ElementsAre(0, 2));
  EXPECT_THAT((*groups)[7], ::testing::ElementsAre(4));
  EXPECT_THAT(GroupRows(*ids, 6, "slice array 'g'").status().message(),
              HasSubstr("slice array 'g': 5 group ids, but the dataset has 6 samples"));
  auto fractional = Tensor::Allocate(DataType::kFp32, {2});
  fractional->mutable_values<float>()[1] = 0.5f;
  EXPECT_THAT(GroupRows(*fractional, 2, "g").status().message(), HasSubstr("sample 1 has group id 0.5"));
  auto matrix = Tensor::Allocate(DataType::kInt64, {5, 2});
  EXPECT_THAT(GroupRows(*matrix, 5, "g").status().message(), HasSubstr("one group id per sample"));

  SliceReport report;
  report.metric = {"accuracy", 0.8, Better::kHigher, "ratio"};
  report.slices = {{1, 10, 0.9, 0.9}, {3, 10, 0.6, 0.8}, {7, 10, 0.9, 0.95}};
  SummarizeSlices(report);
  EXPECT_EQ(report.worst_id, 3);
  EXPECT_DOUBLE_EQ(report.worst_gap, 0.2);
  EXPECT_EQ(report.worst_drop_id, 3);
  EXPECT_NEAR(*report.worst_drop, 0.2, 1e-12);

  SliceReport lower;  // lower is better: the worst slice has the largest error
  lower.metric = {"mae", 1.0, Better::kLower, "output units"};
  lower.slices = {{0, 5, 0.5, std::nullopt}, {1, 5, 1.5, std::nullopt}};
  SummarizeSlices(lower);
  EXPECT_EQ(lower.worst_id, 1);
  EXPECT_DOUBLE_EQ(lower.worst_gap, 0.5);
  EXPECT_FALSE(lower.worst_drop);
}

TEST(Perturbation, Parse) {
  auto p = ParsePerturbations("gaussian:0.01,0.05,brightness:-0.1,contrast:0.5");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->size(), 4u);
  EXPECT_EQ((*p)[0].Name(), "gaussian:0.01");
  EXPECT_EQ((*p)[1].Name(), "gaussian:0.05");
  EXPECT_EQ((*p)[2].Name(), "brightness:-0.1");
  EXPECT_EQ((*p)[3].Name(), "contrast:0.5");
  for (const char* bad : {"0.01", "blur:1", "gaussian:", "gaussian:-1", "gaussian:0.1,x", ""})
    EXPECT_EQ(ParsePerturbations(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  EXPECT_THAT(ParsePerturbations("blur:1").status().message(), HasSubstr("unknown kind 'blur'"));
}

runtime::IoSpec Spec(const std::string& name, DataType type, Shape shape) {
  runtime::IoSpec s;
  s.name = name;
  s.type = type;
  s.shape = shape;
  s.symbols.assign(shape.size(), "");
  return s;
}

Tensor Filled(Shape shape, float value) {
  Tensor t = *Tensor::Allocate(DataType::kFp32, shape);
  for (float& v : t.mutable_values<float>()) v = value;
  return t;
}

TEST(Perturbation, GaussianIsPerSampleAndIndependentOfBatching) {
  std::vector<runtime::IoSpec> specs = {Spec("x", DataType::kFp32, {-1, 4})};
  Perturbation p{PerturbationKind::kGaussian, 0.1};
  std::vector<Tensor> whole = {Filled({2, 4}, 0.5f)};
  ApplyPerturbation(p, whole, specs, {std::nullopt}, 10, 7, 0);
  std::vector<Tensor> first = {Filled({1, 4}, 0.5f)}, second = {Filled({1, 4}, 0.5f)};
  ApplyPerturbation(p, first, specs, {std::nullopt}, 10, 7, 0);
  ApplyPerturbation(p, second, specs, {std::nullopt}, 11, 7, 0);
  auto w = whole[0].values<float>();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(w[i], first[0].values<float>()[i]);
    EXPECT_EQ(w[4 + i], second[0].values<float>()[i]);
    EXPECT_NE(w[i], 0.5f);
  }
  EXPECT_NE(w[0], w[4]);  // samples get different noise
  std::vector<Tensor> other_seed = {Filled({1, 4}, 0.5f)};
  ApplyPerturbation(p, other_seed, specs, {std::nullopt}, 10, 8, 0);
  EXPECT_NE(other_seed[0].values<float>()[0], w[0]);
}

TEST(Perturbation, BrightnessClampsAndContrastKeepsTheMean) {
  std::vector<runtime::IoSpec> specs = {Spec("image", DataType::kFp32, {-1, 1, 2, 2}),
                                        Spec("ids", DataType::kInt64, {-1, 3})};
  std::vector<Tensor> batch = {Filled({1, 1, 2, 2}, 0.0f), *Tensor::Allocate(DataType::kInt64, {1, 3})};
  auto pixels = batch[0].mutable_values<float>();
  pixels[0] = 0.2f, pixels[1] = 0.4f, pixels[2] = 0.6f, pixels[3] = 0.95f;
  std::vector<Tensor> bright = {batch[0].Clone(), batch[1].Clone()};
  ApplyPerturbation({PerturbationKind::kBrightness, 0.1}, bright, specs, {Bounds{0, 1}, std::nullopt}, 0, 1, 0);
  EXPECT_THAT(bright[0].values<float>(), ::testing::Pointwise(::testing::FloatEq(), {0.3f, 0.5f, 0.7f, 1.0f}));
  std::vector<Tensor> flat = {batch[0].Clone(), batch[1].Clone()};
  ApplyPerturbation({PerturbationKind::kContrast, 0.0}, flat, specs, {std::nullopt, std::nullopt}, 0, 1, 0);
  for (float v : flat[0].values<float>()) EXPECT_FLOAT_EQ(v, (0.2f + 0.4f + 0.6f + 0.95f) / 4);
  EXPECT_TRUE(CheckApplicable({PerturbationKind::kContrast, 0.5}, specs).ok());
  std::vector<runtime::IoSpec> tokens = {Spec("ids", DataType::kInt64, {-1, 3})};
  EXPECT_THAT(CheckApplicable({PerturbationKind::kGaussian, 0.1}, tokens).message(),
              HasSubstr("no FP32 or FP64 input"));
  std::vector<runtime::IoSpec> vectors = {Spec("x", DataType::kFp32, {-1, 3})};
  EXPECT_THAT(CheckApplicable({PerturbationKind::kBrightness, 0.1}, vectors).message(), HasSubstr("for images"));
}

}  // namespace
}  // namespace hone::check
