// Known-answer tests for the quality metrics on small hand-checked arrays.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "check/calibration.h"
#include "check/classification.h"
#include "check/embedding.h"
#include "check/regression.h"
#include "check/task.h"

namespace hone::check {
namespace {

using ::testing::HasSubstr;

TEST(Calibration, FifteenBinEce) {
  // Bins (lower, upper] of width 1/15: 0.9 and 0.91 fall in bin 13, 0.82 in 12, 0.3 in 4, 0.95 in 14.
  std::vector<double> confidence = {0.9, 0.82, 0.3, 0.95, 0.91};
  std::vector<uint8_t> correct = {1, 0, 1, 1, 0};
  Calibration c = ComputeCalibration(confidence, correct, 15);
  ASSERT_EQ(c.reliability.size(), 15u);
  EXPECT_EQ(c.reliability[13].count, 2);
  EXPECT_DOUBLE_EQ(c.reliability[13].mean_confidence, 0.905);
  EXPECT_DOUBLE_EQ(c.reliability[13].accuracy, 0.5);
  EXPECT_EQ(c.reliability[12].count, 1);
  EXPECT_EQ(c.reliability[4].count, 1);
  EXPECT_EQ(c.reliability[14].count, 1);
  EXPECT_EQ(c.reliability[0].count, 0);
  EXPECT_NEAR(c.reliability[13].lower, 13.0 / 15, 1e-15);
  // 2/5 * |0.5 - 0.905| + 1/5 * (0.82 + 0.7 + 0.05)
  EXPECT_NEAR(c.ece, 0.4 * 0.405 + 0.2 * (0.82 + 0.7 + 0.05), 1e-12);
  EXPECT_NEAR(c.max_gap, 0.82, 1e-12);
}

TEST(Calibration, PerfectlyCalibratedAndEdges) {
  // Confidence 1 always right, confidence 0 (bin 0) never.
  Calibration c = ComputeCalibration(std::vector<double>{1.0, 1.0, 0.0}, std::vector<uint8_t>{1, 1, 0}, 15);
  EXPECT_EQ(c.reliability[14].count, 2);
  EXPECT_EQ(c.reliability[0].count, 1);
  EXPECT_DOUBLE_EQ(c.ece, 0);
  EXPECT_DOUBLE_EQ(ComputeCalibration({}, {}, 15).ece, 0);
}

// Six samples, three classes, given as probabilities. Predictions (argmax): 0, 1, 1, 1, 2, 0.
const std::vector<double> kProbabilities = {0.7, 0.2, 0.1,  //
                                            0.3, 0.6, 0.1,  //
                                            0.1, 0.8, 0.1,  //
                                            0.2, 0.5, 0.3,  //
                                            0.1, 0.1, 0.8,  //
                                            0.5, 0.1, 0.4};
const std::vector<int64_t> kLabels = {0, 0, 1, 1, 2, 2};

TEST(Classification, KnownAnswers) {
  auto m = ComputeClassification(kProbabilities, 3, kLabels, {ScoreKind::kAuto, 2, 15});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->scores, ScoreKind::kProbabilities);
  EXPECT_DOUBLE_EQ(m->accuracy, 4.0 / 6);
  EXPECT_DOUBLE_EQ(m->top_k_accuracy, 1.0);  // every label is in its row's top 2
  // F1 per class: 0: P 1/2 R 1/2 -> 0.5; 1: P 2/3 R 1 -> 0.8; 2: P 1 R 1/2 -> 2/3.
  EXPECT_NEAR(m->macro_f1, (0.5 + 0.8 + 2.0 / 3) / 3, 1e-12);
  ASSERT_EQ(m->recall.size(), 3u);
  EXPECT_DOUBLE_EQ(*m->recall[0], 0.5);
  EXPECT_DOUBLE_EQ(*m->recall[1], 1.0);
  EXPECT_DOUBLE_EQ(*m->recall[2], 0.5);
  EXPECT_EQ(m->support, (std::vector<int64_t>{2, 2, 2}));
  const double nll = -(std::log(0.7) + std::log(0.3) + std::log(0.8) + std::log(0.5) + std::log(0.8) +
                       std::log(0.4)) / 6;
  EXPECT_NEAR(m->nll, nll, 1e-12);
  EXPECT_EQ(m->calibration.samples, 6);
  auto top1 = ComputeClassification(kProbabilities, 3, kLabels, {ScoreKind::kAuto, 1, 15});
  EXPECT_DOUBLE_EQ(top1->top_k_accuracy, 4.0 / 6);
}

TEST(Classification, LogitsGoThroughSoftmax) {
  // logits [0, ln 3] -> probabilities [0.25, 0.75]
  std::vector<double> logits = {0, std::log(3.0)};
  auto m = ComputeClassification(logits, 2, std::vector<int64_t>{0}, {});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->scores, ScoreKind::kLogits);
  EXPECT_NEAR(m->nll, std::log(4.0), 1e-12);
  EXPECT_DOUBLE_EQ(m->accuracy, 0);
  EXPECT_NEAR(m->calibration.reliability[11].mean_confidence, 0.75, 1e-12);  // 0.75 * 15 = 11.25 -> bin 11
}

TEST(Classification, ClassesNobodyHasOrPredictsAreLeftOutOfMacroF1) {
  // Class 2 never occurs: macro-F1 is over classes 0 and 1, both perfect.
  std::vector<double> scores = {5, 1, 0, 1, 5, 0};
  auto m = ComputeClassification(scores, 3, std::vector<int64_t>{0, 1}, {});
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->macro_f1, 1.0);
  EXPECT_FALSE(m->recall[2].has_value());
}

TEST(Classification, NonFiniteRowsCountWrongAndStayOutOfNll) {
  std::vector<double> scores = {5, 1, std::nan(""), 0};
  auto m = ComputeClassification(scores, 2, std::vector<int64_t>{0, 0}, {ScoreKind::kLogits, 1, 15});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->non_finite_rows, 1);
  EXPECT_DOUBLE_EQ(m->accuracy, 0.5);
  EXPECT_TRUE(std::isfinite(m->nll));
  EXPECT_EQ(m->calibration.samples, 1);
}

TEST(Classification, BadLabelsAndSizes) {
  auto out_of_range = ComputeClassification(kProbabilities, 3, std::vector<int64_t>{0, 0, 1, 3, 2, 2}, {});
  EXPECT_EQ(out_of_range.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out_of_range.status().message(), HasSubstr("sample 3 has label 3, expected 0..2"));
  EXPECT_THAT(ComputeClassification(kProbabilities, 3, std::vector<int64_t>{0, 1}, {}).status().message(),
              HasSubstr("2 labels need 2 x 3 scores, got 18"));
  EXPECT_FALSE(ComputeClassification(std::vector<double>{1, 2}, 1, std::vector<int64_t>{0, 0}, {}).ok());
}

TEST(Classification, DetectScoreKind) {
  EXPECT_EQ(DetectScoreKind(kProbabilities, 3), ScoreKind::kProbabilities);
  EXPECT_EQ(DetectScoreKind(std::vector<double>{0.5, 0.6}, 2), ScoreKind::kLogits);   // sums to 1.1
  EXPECT_EQ(DetectScoreKind(std::vector<double>{-1, 2}, 2), ScoreKind::kLogits);
}

TEST(Embedding, ANonFiniteRowIsNotAPerfectCosine) {
  std::vector<double> reference = {1, 0, 0, 1, 1, 1};
  std::vector<double> candidate = {1, 0, INFINITY, 1, 1, 1};
  auto m = ComputeEmbedding(candidate, reference, 3, 2, {1, 2000});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(std::isnan(m->cosine_min));
  EXPECT_TRUE(std::isnan(m->cosine_mean));
}

TEST(Embedding, CosineRecallAndSimilarityShift) {
  // Reference neighbours (k = 1): 0<->1, 2<->3. The candidate moves sample 3 next to sample 0, so only sample 1
  // still finds its neighbour (0); 0 now finds 3, 2 finds 1 and 3 finds 0.
  std::vector<double> reference = {1, 0, 1, 0.1, 0, 1, 0.1, 1};
  std::vector<double> candidate = {1, 0, 1, 0.1, 0, 1, 1, -0.05};
  auto m = ComputeEmbedding(candidate, reference, 4, 2, {1, 2000});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->k, 1);
  EXPECT_DOUBLE_EQ(m->recall_at_k, 0.25);
  const double moved = (0.1 * 1 + 1 * -0.05) / (std::sqrt(1.01) * std::sqrt(1.0025));
  EXPECT_NEAR(m->cosine_mean, (3 + moved) / 4, 1e-12);
  EXPECT_NEAR(m->cosine_min, moved, 1e-12);
  EXPECT_GT(m->similarity_wasserstein, 0);
  EXPECT_GT(m->similarity_mean_abs_change, 0);

  auto same = ComputeEmbedding(reference, reference, 4, 2, {2, 2000});
  EXPECT_DOUBLE_EQ(same->recall_at_k, 1);
  EXPECT_NEAR(same->cosine_mean, 1, 1e-12);
  EXPECT_DOUBLE_EQ(same->similarity_wasserstein, 0);
  EXPECT_NEAR(same->similarity_mean_reference, same->similarity_mean_candidate, 1e-15);
}

TEST(Embedding, SizesChecked) {
  EXPECT_FALSE(ComputeEmbedding(std::vector<double>{1, 2, 3}, std::vector<double>{1, 2, 3, 4}, 2, 2, {}).ok());
  EXPECT_FALSE(ComputeEmbedding({}, {}, 0, 2, {}).ok());
}

TEST(Regression, MaeAndRmse) {
  auto m = ComputeRegression(std::vector<double>{1, 2, 3, 4}, std::vector<double>{1, 3, 3, 6});
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->mae, 0.75);
  EXPECT_DOUBLE_EQ(m->rmse, std::sqrt(5.0 / 4));
  EXPECT_DOUBLE_EQ(m->max_abs_error, 2);
  EXPECT_THAT(ComputeRegression(std::vector<double>{1}, std::vector<double>{1, 2}).status().message(),
              HasSubstr("1 predicted values but 2 targets"));
}

TEST(TaskMetrics, SubsetsAndFlatNames) {
  TaskTruth truth{Task::kClassification, 6, kLabels, {}, 0};
  std::vector<int64_t> class_one = {2, 3};
  auto all = ComputeTaskMetrics(truth, kProbabilities, {6, 3}, {});
  auto slice = ComputeTaskMetrics(truth, kProbabilities, {6, 3}, {}, class_one);
  ASSERT_TRUE(all.ok() && slice.ok());
  EXPECT_DOUBLE_EQ(slice->Primary().value, 1.0);
  EXPECT_EQ(slice->samples, 2);
  std::vector<std::string> names;
  for (const Metric& m : all->Flat()) names.push_back(m.name);
  EXPECT_THAT(names, ::testing::ElementsAre("accuracy", "top3_accuracy", "macro_f1", "ece", "nll"));
  EXPECT_FALSE(ComputeTaskMetrics(truth, kProbabilities, {5, 3}, {}).ok());  // 5 samples vs 6 labels
}

}  // namespace
}  // namespace hone::check
