// Input perturbations for robustness (--perturb) and for the numerical-stability probe. Each is deterministic:
// the noise for a sample depends only on the seed, the perturbation and the sample's index, never on batching.
//
//   gaussian:S    x + N(0, S^2), S in the input's own units (images in [0, 1]: 0.01 is 1% of the range)
//   brightness:D  x + D                                   (images only: floating-point inputs of rank >= 3)
//   contrast:F    mean + F * (x - mean), mean per sample   (images only)
// Perturbed values are clamped to the input's range in the dataset (Bounds), so that an image stays an image.
// Only floating-point (FP32, FP64) inputs are perturbed; integer inputs (token ids, say) are left alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "runtime/model_metadata.h"
#include "tensor/tensor.h"

namespace hone::check {

enum class PerturbationKind { kGaussian, kBrightness, kContrast };

struct Perturbation {
  PerturbationKind kind = PerturbationKind::kGaussian;
  double amount = 0;
  // "gaussian:0.01": how reports and metric names refer to it.
  std::string Name() const;
};

// Parses one --perturb value: "gaussian:0.01,0.05" (a kind and its amounts), several kinds comma-separated
// ("gaussian:0.01,brightness:0.1"). InvalidArgument naming the text unless every kind is known and every amount a
// finite number (gaussian >= 0, contrast >= 0).
Result<std::vector<Perturbation>> ParsePerturbations(std::string_view text);

// The range of values an input holds in the dataset, for clamping; unset: no clamping.
struct Bounds {
  double low = 0, high = 0;
};

// Whether `p` can apply to a model with `inputs`: InvalidArgument when no input is FP32/FP64, or for brightness
// and contrast when no floating-point input has rank >= 3 (naming the inputs).
Status CheckApplicable(const Perturbation& p, const std::vector<runtime::IoSpec>& inputs);

// Applies `p` in place to one input's batch (rows are samples first_sample, first_sample + 1, ...), whatever its
// kind; `stream` picks independent noise (mix in the input's index). FP32 and FP64 only; others are left alone.
void PerturbInput(const Perturbation& p, Tensor& input, const std::optional<Bounds>& bounds, int64_t first_sample,
                  uint64_t seed, uint64_t stream);

// Applies `p` in place to a batch: `batch[i]` is input `specs[i]`, rows are samples first_sample, first_sample+1...
// `bounds[i]` clamps input i (nullopt: unclamped). `seed` and `stream` (say, the perturbation's index) pick the
// noise.
void ApplyPerturbation(const Perturbation& p, std::vector<Tensor>& batch, const std::vector<runtime::IoSpec>& specs,
                       const std::vector<std::optional<Bounds>>& bounds, int64_t first_sample, uint64_t seed,
                       uint64_t stream);

}  // namespace hone::check
