#include "generate/sampler.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hone::generate {

Status SamplingParams::Validate() const {
  if (!(temperature >= 0 && temperature <= 100))
    return Status::InvalidArgument(fmt::format("temperature must be in [0, 100], got {}", temperature));
  if (!(top_p > 0 && top_p <= 1)) return Status::InvalidArgument(fmt::format("top_p must be in (0, 1], got {}", top_p));
  if (top_k < 0) return Status::InvalidArgument(fmt::format("top_k must be >= 0, got {}", top_k));
  return Status::Ok();
}

Sampler::Sampler(const SamplingParams& params)
    : params_(params), rng_(params.seed ? *params.seed : std::random_device{}()) {}

int64_t Sampler::Next(std::span<const float> logits) {
  if (greedy())
    return std::max_element(logits.begin(), logits.end()) - logits.begin();
  const float max = *std::max_element(logits.begin(), logits.end());
  const double inv_t = 1.0 / params_.temperature;
  scratch_.clear();
  scratch_.reserve(logits.size());
  double sum = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    const float p = static_cast<float>(std::exp((logits[i] - max) * inv_t));
    sum += p;
    scratch_.emplace_back(p, static_cast<int64_t>(i));
  }
  // Most likely first, ties by id, so that a seed gives the same token on every machine.
  auto by_probability = [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  size_t keep = scratch_.size();
  if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) < keep) keep = static_cast<size_t>(params_.top_k);
  if (params_.top_p < 1 || keep < scratch_.size()) {
    // Sort only what top-k/top-p can keep: the head of the distribution.
    std::partial_sort(scratch_.begin(), scratch_.begin() + static_cast<ptrdiff_t>(keep), scratch_.end(), by_probability);
    if (params_.top_p < 1) {
      double mass = 0;
      for (size_t i = 0; i < keep; ++i) {
        mass += scratch_[i].first / sum;
        if (mass >= params_.top_p) {
          keep = i + 1;
          break;
        }
      }
    }
  }
  double kept = 0;
  for (size_t i = 0; i < keep; ++i) kept += scratch_[i].first;
  double u = std::uniform_real_distribution<double>(0.0, kept)(rng_);
  for (size_t i = 0; i < keep; ++i) {
    u -= scratch_[i].first;
    if (u < 0) return scratch_[i].second;
  }
  return scratch_[keep - 1].second;
}

}  // namespace hone::generate
