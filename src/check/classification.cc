#include "check/classification.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hone::check {
namespace {

bool RowFinite(std::span<const double> row) {
  return std::all_of(row.begin(), row.end(), [](double v) { return std::isfinite(v); });
}

int64_t ArgMax(std::span<const double> row) {
  return std::max_element(row.begin(), row.end()) - row.begin();  // the first of equal maxima
}

}  // namespace

std::string_view ScoreKindName(ScoreKind kind) {
  switch (kind) {
    case ScoreKind::kAuto: return "auto";
    case ScoreKind::kLogits: return "logits";
    case ScoreKind::kProbabilities: return "probabilities";
  }
  return "?";
}

std::optional<ScoreKind> ParseScoreKind(std::string_view text) {
  for (ScoreKind k : {ScoreKind::kAuto, ScoreKind::kLogits, ScoreKind::kProbabilities})
    if (text == ScoreKindName(k)) return k;
  return std::nullopt;
}

ScoreKind DetectScoreKind(std::span<const double> scores, int64_t classes) {
  if (classes <= 0) return ScoreKind::kLogits;
  const size_t c = static_cast<size_t>(classes);
  for (size_t start = 0; start + c <= scores.size(); start += c) {
    double sum = 0;
    for (double v : scores.subspan(start, c)) {
      if (!(v >= 0 && v <= 1)) return ScoreKind::kLogits;  // also NaN
      sum += v;
    }
    if (std::fabs(sum - 1) > 1e-3) return ScoreKind::kLogits;
  }
  return ScoreKind::kProbabilities;
}

void ToProbabilities(std::span<double> scores, int64_t classes, ScoreKind kind) {
  if (kind != ScoreKind::kLogits || classes <= 0) return;
  const size_t c = static_cast<size_t>(classes);
  for (size_t start = 0; start + c <= scores.size(); start += c) {
    std::span<double> row = scores.subspan(start, c);
    const double top = *std::max_element(row.begin(), row.end());
    double sum = 0;
    for (double& v : row) sum += (v = std::exp(v - top));
    for (double& v : row) v /= sum;
  }
}

Result<ClassificationMetrics> ComputeClassification(std::span<const double> scores, int64_t classes,
                                                    std::span<const int64_t> labels,
                                                    const ClassificationOptions& options) {
  if (classes < 2)
    return Status::InvalidArgument(fmt::format("classification needs scores for >= 2 classes, got {}", classes));
  if (scores.size() != labels.size() * static_cast<size_t>(classes))
    return Status::InvalidArgument(fmt::format("{} labels need {} x {} scores, got {} values", labels.size(),
                                               labels.size(), classes, scores.size()));
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] < 0 || labels[i] >= classes)
      return Status::InvalidArgument(fmt::format(
          "sample {} has label {}, expected 0..{} (the output scores {} classes)", i, labels[i], classes - 1, classes));
  ClassificationMetrics m;
  m.samples = static_cast<int64_t>(labels.size());
  m.classes = classes;
  m.k = static_cast<int>(std::clamp<int64_t>(options.top_k, 1, classes));
  m.scores = options.scores == ScoreKind::kAuto ? DetectScoreKind(scores, classes) : options.scores;
  const size_t c = static_cast<size_t>(classes);
  std::vector<double> probabilities(scores.begin(), scores.end());
  ToProbabilities(probabilities, classes, m.scores);

  std::vector<int64_t> true_positives(c, 0), predicted(c, 0);
  m.support.assign(c, 0);
  std::vector<double> confidence;
  std::vector<uint8_t> correct_flags;
  int64_t correct = 0, top_k_correct = 0;
  double nll_sum = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    std::span<const double> row = scores.subspan(i * c, c);
    const size_t label = static_cast<size_t>(labels[i]);
    ++m.support[label];
    if (!RowFinite(row)) {
      ++m.non_finite_rows;
      continue;
    }
    const int64_t guess = ArgMax(row);
    ++predicted[guess];
    const bool right = static_cast<size_t>(guess) == label;
    correct += right;
    true_positives[label] += right;
    const int64_t above = std::count_if(row.begin(), row.end(), [&](double v) { return v > row[label]; });
    top_k_correct += above < m.k;
    std::span<const double> p = std::span<const double>(probabilities).subspan(i * c, c);
    nll_sum -= std::log(std::max(p[label], 1e-12));
    confidence.push_back(p[guess]);
    correct_flags.push_back(right);
  }
  const double n = static_cast<double>(m.samples);
  if (m.samples > 0) {
    m.accuracy = static_cast<double>(correct) / n;
    m.top_k_accuracy = static_cast<double>(top_k_correct) / n;
  }
  if (!confidence.empty()) m.nll = nll_sum / static_cast<double>(confidence.size());
  m.calibration = ComputeCalibration(confidence, correct_flags, options.ece_bins);

  double f1_sum = 0;
  int counted = 0;
  m.recall.resize(c);
  for (size_t k = 0; k < c; ++k) {
    if (m.support[k] > 0) m.recall[k] = static_cast<double>(true_positives[k]) / static_cast<double>(m.support[k]);
    if (m.support[k] == 0 && predicted[k] == 0) continue;  // a class nobody has or predicts
    ++counted;
    const double precision = predicted[k] ? static_cast<double>(true_positives[k]) / predicted[k] : 0;
    const double recall = m.recall[k].value_or(0);
    if (precision + recall > 0) f1_sum += 2 * precision * recall / (precision + recall);
  }
  if (counted > 0) m.macro_f1 = f1_sum / counted;
  return m;
}

}  // namespace hone::check
