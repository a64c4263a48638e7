// The task an output serves and its quality metrics in one shape: classification, embedding or regression, each
// measured against its truth (labels, a reference's embeddings, targets), over all samples or a subset (a slice).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "check/classification.h"
#include "check/embedding.h"
#include "check/metric.h"
#include "check/regression.h"
#include "tensor/shape.h"

namespace hone::check {

enum class Task { kAuto, kClassification, kEmbedding, kRegression };
std::string_view TaskName(Task task);
std::optional<Task> ParseTask(std::string_view text);

struct TaskOptions {
  ClassificationOptions classification;
  EmbeddingOptions embedding;
};

// What an output is measured against, one row per sample.
struct TaskTruth {
  Task task = Task::kClassification;  // never kAuto
  int64_t samples = 0;
  std::vector<int64_t> labels;  // classification: one class id per sample
  std::vector<double> values;   // regression: the targets; embedding: the reference's embeddings
  int64_t row_size = 0;         // values per sample in `values`
};

// One model's quality on some samples. Exactly the member for `task` is set.
struct TaskMetrics {
  Task task = Task::kClassification;
  int64_t samples = 0;
  std::optional<ClassificationMetrics> classification;
  std::optional<EmbeddingMetrics> embedding;
  std::optional<RegressionMetrics> regression;

  // The headline number: accuracy, cosine_mean or mae.
  Metric Primary() const;
  // Every scalar by name: accuracy, top5_accuracy, macro_f1, ece, nll | cosine_mean, cosine_min, recall_at_10,
  // similarity_mean_shift, similarity_mean_abs_change, similarity_wasserstein | mae, rmse, max_abs_error.
  std::vector<Metric> Flat() const;
};

// Measures `output` ([samples, ...] row-major, `shape` its shape; the row size must match the truth's) on `rows`
// (sample indices; empty: every sample). InvalidArgument when sizes disagree or a label is out of range.
Result<TaskMetrics> ComputeTaskMetrics(const TaskTruth& truth, std::span<const double> output, const Shape& shape,
                                       const TaskOptions& options, std::span<const int64_t> rows = {});

}  // namespace hone::check
