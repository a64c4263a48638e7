// Slices: the dataset split by a group-id array (--slice KEY), the headline metric measured on each group, and
// the worst group with its gap to the whole; with a reference, each group's drop from the reference.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "check/metric.h"
#include "tensor/tensor.h"

namespace hone::check {

// Sample indices per group id, ids in increasing order. `ids`: an integer or BOOL array of [samples] or
// [samples, 1] (floating-point ids are accepted when every value is a whole number). InvalidArgument naming
// `what` otherwise, or when its row count differs from `samples`.
Result<std::map<int64_t, std::vector<int64_t>>> GroupRows(const Tensor& ids, int64_t samples,
                                                          const std::string& what);

struct SliceResult {
  int64_t id = 0;
  int64_t samples = 0;
  double value = 0;                       // the candidate's metric on this slice
  std::optional<double> reference_value;  // the reference's, when there is one
};

struct SliceReport {
  std::string key;     // the dataset array the slices come from
  Metric metric;       // the metric measured (its value: on the whole dataset)
  std::optional<double> reference_overall;
  std::vector<SliceResult> slices;
  // The slice where the candidate's metric is worst, and how much worse than on the whole it is (>= 0).
  int64_t worst_id = 0;
  double worst_value = 0;
  double worst_gap = 0;
  // With a reference: the slice whose metric worsened most from the reference to the candidate, and by how much
  // (positive = worse).
  std::optional<int64_t> worst_drop_id;
  std::optional<double> worst_drop;
};

// Fills the worst slice and the worst drop from `report.metric` and `report.slices`.
void SummarizeSlices(SliceReport& report);

}  // namespace hone::check
