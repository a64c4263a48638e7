#include "check/slices.h"

#include <fmt/format.h>

#include <cmath>

#include "check/numeric_values.h"
#include "check/report_format.h"

namespace hone::check {

Result<std::map<int64_t, std::vector<int64_t>>> GroupRows(const Tensor& ids, int64_t samples,
                                                          const std::string& what) {
  const Shape& shape = ids.shape();
  const bool column = shape.size() == 1 || (shape.size() == 2 && shape[1] == 1);
  if (!column)
    return Status::InvalidArgument(fmt::format("{}: expected one group id per sample, shape [{}], got shape {}",
                                               what, samples, ShapeText(shape)));
  if (shape[0] != samples)
    return Status::InvalidArgument(
        fmt::format("{}: {} group ids, but the dataset has {} samples", what, shape[0], samples));
  if (ids.type() == DataType::kFp16 || ids.type() == DataType::kBf16)
    return Status::InvalidArgument(fmt::format("{}: expected integer group ids, got {}", what,
                                               DataTypeName(ids.type())));
  HONE_ASSIGN_OR_RETURN(std::vector<double> values, ToDoubles(ids, what));
  std::map<int64_t, std::vector<int64_t>> groups;
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9e15)
      return Status::InvalidArgument(
          fmt::format("{}: sample {} has group id {}, expected a whole number", what, i, v));
    groups[static_cast<int64_t>(v)].push_back(static_cast<int64_t>(i));
  }
  return groups;
}

void SummarizeSlices(SliceReport& report) {
  const Better better = report.metric.better;
  bool first = true;
  for (const SliceResult& s : report.slices) {
    const double gap = Worsening(better, report.metric.value, s.value);
    if (first || gap > report.worst_gap) {
      report.worst_id = s.id;
      report.worst_value = s.value;
      report.worst_gap = gap;
    }
    if (s.reference_value) {
      const double drop = Worsening(better, *s.reference_value, s.value);
      if (!report.worst_drop || drop > *report.worst_drop) {
        report.worst_drop = drop;
        report.worst_drop_id = s.id;
      }
    }
    first = false;
  }
}

}  // namespace hone::check
