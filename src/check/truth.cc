#include "check/truth.h"

#include <fmt/format.h>

#include <algorithm>

#include "check/numeric_values.h"
#include "check/report_format.h"

namespace hone::check {
namespace {

std::string ArrayNames(const std::vector<NamedTensor>& arrays) {
  std::string s;
  for (const auto& a : arrays) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

const NamedTensor* FindLabels(const TruthRequest& r) {
  auto find = [&](const std::string& key) -> const NamedTensor* {
    for (const NamedTensor& a : *r.dataset)
      if (a.name == key) return &a;
    return nullptr;
  };
  if (!r.labels_key.empty()) return find(r.labels_key);
  for (const char* key : kDefaultLabelKeys)
    if (std::find(r.input_names.begin(), r.input_names.end(), key) == r.input_names.end())
      if (const NamedTensor* a = find(key)) return a;
  return nullptr;
}

bool ClassifierShaped(const Shape& s) { return s.size() == 2 && s[1] >= 2; }

Status ClassificationLabels(const TruthRequest& r, const NamedTensor& a, TaskTruth& t) {
  const std::string what = fmt::format("labels '{}' in '{}'", a.name, r.dataset_path);
  const Shape& shape = a.tensor.shape();
  if (!IsInteger(a.tensor.type()) && a.tensor.type() != DataType::kBool)
    return Status::InvalidArgument(fmt::format("{}: expected integer class ids, got {} (for regression targets "
                                               "give --task regression)",
                                               what, DataTypeName(a.tensor.type())));
  if (!(shape.size() == 1 || (shape.size() == 2 && shape[1] == 1)))
    return Status::InvalidArgument(fmt::format("{}: expected one class id per sample, shape [{}], got {}", what,
                                               t.samples, ShapeText(shape)));
  if (shape[0] != t.samples)
    return Status::InvalidArgument(fmt::format("{}: {} labels, but the dataset's inputs have {} samples", what,
                                               shape[0], t.samples));
  if (!ClassifierShaped(r.output_shape))
    return Status::InvalidArgument(fmt::format("output '{}' has shape {}: classification expects [samples, classes] "
                                               "with >= 2 classes",
                                               r.output_name, ShapeText(r.output_shape)));
  HONE_ASSIGN_OR_RETURN(std::vector<double> values, ToDoubles(a.tensor, what));
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] >= static_cast<double>(r.output_shape[1]))
      return Status::InvalidArgument(fmt::format("{}: sample {} has label {}, but output '{}' scores {} classes "
                                                 "(0..{})",
                                                 what, i, values[i], r.output_name, r.output_shape[1],
                                                 r.output_shape[1] - 1));
    t.labels.push_back(static_cast<int64_t>(values[i]));
  }
  return Status::Ok();
}

Status RegressionTargets(const TruthRequest& r, const NamedTensor& a, TaskTruth& t) {
  const std::string what = fmt::format("targets '{}' in '{}'", a.name, r.dataset_path);
  const Shape& shape = a.tensor.shape();
  auto output_count = ElementCount(r.output_shape);
  if (shape.empty() || shape[0] != t.samples || a.tensor.element_count() != output_count.value_or(-1))
    return Status::InvalidArgument(fmt::format("{}: shape {} does not fit output '{}' of shape {}: expected the "
                                               "same number of values, {} samples along the first axis",
                                               what, ShapeText(shape), r.output_name,
                                               ShapeText(r.output_shape), t.samples));
  HONE_ASSIGN_OR_RETURN(t.values, ToDoubles(a.tensor, what));
  t.row_size = t.samples ? static_cast<int64_t>(t.values.size()) / t.samples : 0;
  return Status::Ok();
}

}  // namespace

Result<ResolvedTruth> ResolveTruth(const TruthRequest& r) {
  ResolvedTruth out;
  TaskTruth& t = out.truth;
  t.samples = r.output_shape.empty() ? 0 : r.output_shape[0];
  const NamedTensor* labels = FindLabels(r);
  if (!r.labels_key.empty() && !labels)
    return Status::InvalidArgument(fmt::format("--labels {}: dataset '{}' has no such array (arrays: {})",
                                               r.labels_key, r.dataset_path, ArrayNames(*r.dataset)));
  t.task = r.task;
  if (t.task == Task::kAuto) {
    if (labels) {
      const bool integral = IsInteger(labels->tensor.type()) || labels->tensor.type() == DataType::kBool;
      t.task = integral && ClassifierShaped(r.output_shape) ? Task::kClassification : Task::kRegression;
    } else if (r.reference) {
      t.task = Task::kEmbedding;
    } else {
      return Status::InvalidArgument(fmt::format(
          "dataset '{}' has no labels (arrays: {}; looked for label, labels, target, targets, y): give --labels KEY, "
          "or --against REFERENCE to evaluate embeddings",
          r.dataset_path, ArrayNames(*r.dataset)));
    }
  }
  if (t.task == Task::kEmbedding) {
    if (!r.reference)
      return Status::InvalidArgument("embedding evaluation needs --against REFERENCE: the model or saved outputs "
                                     "whose embeddings these are measured against");
    t.values = *r.reference;
    t.row_size = t.samples ? static_cast<int64_t>(t.values.size()) / t.samples : 0;
    out.description = fmt::format("the reference's '{}' embeddings", r.output_name);
    return out;
  }
  if (!labels)
    return Status::InvalidArgument(fmt::format(
        "{} needs labels: dataset '{}' has none of label, labels, target, targets, y (arrays: {}): give --labels KEY",
        TaskName(t.task), r.dataset_path, ArrayNames(*r.dataset)));
  if (t.task == Task::kClassification)
    HONE_RETURN_IF_ERROR(ClassificationLabels(r, *labels, t));
  else
    HONE_RETURN_IF_ERROR(RegressionTargets(r, *labels, t));
  out.description = fmt::format("{} '{}' ({} {})", t.task == Task::kClassification ? "labels" : "targets",
                                labels->name, DataTypeName(labels->tensor.type()),
                                ShapeText(labels->tensor.shape()));
  return out;
}

}  // namespace hone::check
