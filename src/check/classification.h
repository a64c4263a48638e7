// Classification quality from per-class scores and integer labels: accuracy, top-k accuracy, macro-F1, per-class
// recall, negative log-likelihood and calibration.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "check/calibration.h"

namespace hone::check {

// What a classifier's scores are. Auto: probabilities when every row is in [0, 1] and sums to 1 within 1e-3,
// otherwise logits (softmax is applied).
enum class ScoreKind { kAuto, kLogits, kProbabilities };
std::string_view ScoreKindName(ScoreKind kind);
std::optional<ScoreKind> ParseScoreKind(std::string_view text);
// The kind `scores` ([rows, classes] row-major) look like: never kAuto.
ScoreKind DetectScoreKind(std::span<const double> scores, int64_t classes);

struct ClassificationOptions {
  ScoreKind scores = ScoreKind::kAuto;
  int top_k = 5;      // for top-k accuracy; min(top_k, classes) is used
  int ece_bins = 15;  // equal-width confidence bins
};

struct ClassificationMetrics {
  int64_t samples = 0;
  int64_t classes = 0;
  int k = 0;                             // top-k used
  ScoreKind scores = ScoreKind::kLogits;  // what the scores were taken to be
  double accuracy = 0;                   // ratio of samples whose argmax (ties to the lower class) is the label
  double top_k_accuracy = 0;             // ratio of samples whose label has fewer than k classes scored above it
  double macro_f1 = 0;                   // mean F1 over classes that occur as a label or a prediction
  double nll = 0;                        // mean -ln p(label), in nats, over finite rows; p clamped to >= 1e-12
  std::vector<int64_t> support;          // per class: samples with that label
  std::vector<std::optional<double>> recall;  // per class: ratio; nullopt when the class has no samples
  Calibration calibration;               // over finite rows
  // Rows holding NaN or Inf: counted wrong, left out of NLL and calibration.
  int64_t non_finite_rows = 0;
};

// `scores`: [labels.size(), classes] row-major. InvalidArgument when sizes disagree, classes < 2, or a label is
// outside [0, classes) (naming the sample and the label).
Result<ClassificationMetrics> ComputeClassification(std::span<const double> scores, int64_t classes,
                                                    std::span<const int64_t> labels,
                                                    const ClassificationOptions& options);

// Per row: the probabilities (softmax of logits, or the scores themselves), in place.
void ToProbabilities(std::span<double> scores, int64_t classes, ScoreKind kind);

}  // namespace hone::check
