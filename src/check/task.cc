#include "check/task.h"

#include <fmt/format.h>

#include "check/report_format.h"

namespace hone::check {
namespace {

// The values of `rows` (each `row_size` wide) gathered from `values`; all of them when rows is empty.
template <typename T>
std::vector<T> Gather(std::span<const T> values, int64_t row_size, std::span<const int64_t> rows) {
  if (rows.empty()) return {values.begin(), values.end()};
  std::vector<T> out;
  out.reserve(rows.size() * static_cast<size_t>(row_size));
  for (int64_t r : rows) {
    auto row = values.subspan(static_cast<size_t>(r * row_size), static_cast<size_t>(row_size));
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

}  // namespace

std::string_view TaskName(Task task) {
  switch (task) {
    case Task::kAuto: return "auto";
    case Task::kClassification: return "classification";
    case Task::kEmbedding: return "embedding";
    case Task::kRegression: return "regression";
  }
  return "?";
}

std::optional<Task> ParseTask(std::string_view text) {
  for (Task t : {Task::kAuto, Task::kClassification, Task::kEmbedding, Task::kRegression})
    if (text == TaskName(t)) return t;
  return std::nullopt;
}

Metric TaskMetrics::Primary() const {
  if (classification) return {"accuracy", classification->accuracy, Better::kHigher, "ratio"};
  if (embedding) return {"cosine_mean", embedding->cosine_mean, Better::kHigher, "ratio"};
  if (regression) return {"mae", regression->mae, Better::kLower, "output units"};
  return {};
}

std::vector<Metric> TaskMetrics::Flat() const {
  std::vector<Metric> out;
  if (const auto& c = classification) {
    out.push_back({"accuracy", c->accuracy, Better::kHigher, "ratio"});
    out.push_back({fmt::format("top{}_accuracy", c->k), c->top_k_accuracy, Better::kHigher, "ratio"});
    out.push_back({"macro_f1", c->macro_f1, Better::kHigher, "ratio"});
    out.push_back({"ece", c->calibration.ece, Better::kLower, "ratio"});
    out.push_back({"nll", c->nll, Better::kLower, "nats"});
  }
  if (const auto& e = embedding) {
    out.push_back({"cosine_mean", e->cosine_mean, Better::kHigher, "ratio"});
    out.push_back({"cosine_min", e->cosine_min, Better::kHigher, "ratio"});
    out.push_back({fmt::format("recall_at_{}", e->k), e->recall_at_k, Better::kHigher, "ratio"});
    out.push_back({"similarity_mean_shift", e->similarity_mean_candidate - e->similarity_mean_reference,
                   Better::kNeither, "cosine"});
    out.push_back({"similarity_mean_abs_change", e->similarity_mean_abs_change, Better::kLower, "cosine"});
    out.push_back({"similarity_wasserstein", e->similarity_wasserstein, Better::kLower, "cosine"});
  }
  if (const auto& r = regression) {
    out.push_back({"mae", r->mae, Better::kLower, "output units"});
    out.push_back({"rmse", r->rmse, Better::kLower, "output units"});
    out.push_back({"max_abs_error", r->max_abs_error, Better::kLower, "output units"});
  }
  return out;
}

Result<TaskMetrics> ComputeTaskMetrics(const TaskTruth& truth, std::span<const double> output, const Shape& shape,
                                       const TaskOptions& options, std::span<const int64_t> rows) {
  if (shape.empty() || shape[0] != truth.samples)
    return Status::InvalidArgument(fmt::format("output of shape {}: expected {} samples along the first axis",
                                               ShapeText(shape), truth.samples));
  const int64_t row_size = truth.samples ? static_cast<int64_t>(output.size()) / truth.samples : 0;
  for (int64_t r : rows)
    if (r < 0 || r >= truth.samples)
      return Status::Internal(fmt::format("sample index {} outside 0..{}", r, truth.samples - 1));
  TaskMetrics m;
  m.task = truth.task;
  m.samples = rows.empty() ? truth.samples : static_cast<int64_t>(rows.size());
  std::vector<double> out = Gather(output, row_size, rows);
  switch (truth.task) {
    case Task::kClassification: {
      std::vector<int64_t> labels = Gather<int64_t>(truth.labels, 1, rows);
      HONE_ASSIGN_OR_RETURN(m.classification, ComputeClassification(out, row_size, labels, options.classification));
      break;
    }
    case Task::kEmbedding: {
      if (truth.row_size != row_size)
        return Status::InvalidArgument(fmt::format("embeddings of {} values per sample against a reference of {}",
                                                   row_size, truth.row_size));
      std::vector<double> reference = Gather<double>(truth.values, truth.row_size, rows);
      HONE_ASSIGN_OR_RETURN(m.embedding, ComputeEmbedding(out, reference, m.samples, row_size, options.embedding));
      break;
    }
    case Task::kRegression: {
      std::vector<double> targets = Gather<double>(truth.values, truth.row_size, rows);
      HONE_ASSIGN_OR_RETURN(m.regression, ComputeRegression(out, targets));
      break;
    }
    case Task::kAuto: return Status::Internal("ComputeTaskMetrics: the task must be resolved first");
  }
  return m;
}

}  // namespace hone::check
