// For classifier-like outputs (rank >= 2, the last axis holding >= 2 class scores): do both sides predict the same
// classes? Informational in a comparison; it never decides pass or fail.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tensor/shape.h"

namespace hone::check {

struct ClassifierAgreement {
  int64_t rows = 0;             // predictions compared: every index but the last axis
  int64_t classes = 0;          // the last axis
  int k = 0;                    // top-k size: min(requested k, classes)
  int64_t argmax_agreements = 0;
  double argmax_agreement = 0;  // ratio of rows whose argmax is the same on both sides
  double topk_overlap = 0;      // mean over rows of |top-k(reference) ∩ top-k(candidate)| / k, a ratio
};

// nullopt unless `shape` is classifier-like. Ties go to the lower class index; a row holding NaN has no argmax
// and agrees with nothing.
std::optional<ClassifierAgreement> CompareClassifierOutputs(std::span<const double> reference,
                                                            std::span<const double> candidate, const Shape& shape,
                                                            int k);

// The indices of the k largest values of `row`, largest first, ties to the lower index; NaN ranks below all.
std::vector<int64_t> TopK(std::span<const double> row, int k);

}  // namespace hone::check
