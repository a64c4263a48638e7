// What an evaluated output is measured against, resolved from the dataset and the settings: which task, which
// array holds the labels or targets, and whether they fit the output. Every mismatch is an error that names the
// array, the output and what was expected.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "check/task.h"
#include "tensor/npz.h"

namespace hone::check {

struct TruthRequest {
  Task task = Task::kAuto;
  std::string labels_key;                // empty: the first of kDefaultLabelKeys present
  std::string dataset_path;              // for messages
  std::vector<NamedTensor> const* dataset = nullptr;
  std::vector<std::string> input_names;  // arrays that feed the model, never labels
  std::string output_name;
  Shape output_shape;                    // [samples, ...]
  std::vector<double> const* reference = nullptr;  // the reference's values of the same output; null: none
};

inline constexpr const char* kDefaultLabelKeys[] = {"label", "labels", "target", "targets", "y"};

struct ResolvedTruth {
  TaskTruth truth;
  std::string description;  // "labels 'label' (INT64 [2000])", "the reference's embeddings"
};

Result<ResolvedTruth> ResolveTruth(const TruthRequest& request);

}  // namespace hone::check
