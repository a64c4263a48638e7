// Choosing the next token from a row of logits: greedy (temperature 0), or sampling with temperature, top-k and
// top-p (nucleus) from a per-request generator seeded by the request (reproducible) or at random.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "base/status.h"

namespace hone::generate {

struct SamplingParams {
  double temperature = 1.0;  // 0: greedy (argmax; the lowest id wins a tie)
  double top_p = 1.0;        // (0, 1]: sample from the smallest set of tokens whose probability reaches top_p
  int64_t top_k = 0;         // 0: no limit
  std::optional<uint64_t> seed;

  // InvalidArgument naming the parameter and its range.
  Status Validate() const;
};

class Sampler {
 public:
  explicit Sampler(const SamplingParams& params);
  // The chosen token id. `logits` is one row of the vocabulary.
  int64_t Next(std::span<const float> logits);
  // Next takes the most likely token (temperature 0 or top_k 1).
  bool greedy() const { return params_.temperature == 0 || params_.top_k == 1; }

 private:
  SamplingParams params_;
  std::mt19937_64 rng_;
  std::vector<std::pair<float, int64_t>> scratch_;  // (probability, id), reused between calls
};

}  // namespace hone::generate
