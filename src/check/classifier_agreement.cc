#include "check/classifier_agreement.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hone::check {

std::vector<int64_t> TopK(std::span<const double> row, int k) {
  std::vector<int64_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t n = std::min(order.size(), static_cast<size_t>(std::max(k, 0)));
  auto before = [&](int64_t a, int64_t b) {
    const double x = row[a], y = row[b];
    if (std::isnan(x) != std::isnan(y)) return std::isnan(y);  // numbers before NaN
    if (!std::isnan(x) && x != y) return x > y;
    return a < b;
  };
  std::partial_sort(order.begin(), order.begin() + n, order.end(), before);
  order.resize(n);
  return order;
}

std::optional<ClassifierAgreement> CompareClassifierOutputs(std::span<const double> reference,
                                                            std::span<const double> candidate, const Shape& shape,
                                                            int k) {
  if (shape.size() < 2 || shape.back() < 2 || reference.size() != candidate.size()) return std::nullopt;
  ClassifierAgreement a;
  a.classes = shape.back();
  a.rows = static_cast<int64_t>(reference.size()) / a.classes;
  a.k = static_cast<int>(std::min<int64_t>(std::max(k, 1), a.classes));
  if (a.rows == 0) return a;
  double overlap = 0;
  const size_t c = static_cast<size_t>(a.classes);
  for (int64_t r = 0; r < a.rows; ++r) {
    auto ref_row = reference.subspan(r * c, c), cand_row = candidate.subspan(r * c, c);
    const bool ref_nan = std::any_of(ref_row.begin(), ref_row.end(), [](double v) { return std::isnan(v); });
    const bool cand_nan = std::any_of(cand_row.begin(), cand_row.end(), [](double v) { return std::isnan(v); });
    if (ref_nan || cand_nan) continue;
    auto ref_top = TopK(ref_row, a.k), cand_top = TopK(cand_row, a.k);
    if (ref_top[0] == cand_top[0]) ++a.argmax_agreements;
    int shared = 0;
    for (int64_t i : ref_top) shared += std::count(cand_top.begin(), cand_top.end(), i) > 0;
    overlap += static_cast<double>(shared) / a.k;
  }
  a.argmax_agreement = static_cast<double>(a.argmax_agreements) / static_cast<double>(a.rows);
  a.topk_overlap = overlap / static_cast<double>(a.rows);
  return a;
}

}  // namespace hone::check
