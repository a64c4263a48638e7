// Embedding quality against a reference model's embeddings of the same samples: how close each embedding stays
// (cosine similarity), whether nearest-neighbour retrieval finds the same neighbours (recall@k), and how the
// distribution of pairwise similarities shifts.
#pragma once

#include <cstdint>
#include <span>

#include "base/result.h"

namespace hone::check {

struct EmbeddingOptions {
  int recall_k = 10;  // neighbours per query; min(recall_k, samples - 1) is used
  // Retrieval and pairwise similarities are O(samples^2): only the first this many samples take part.
  int64_t max_retrieval_samples = 2000;
};

struct EmbeddingMetrics {
  int64_t samples = 0;
  int64_t dims = 0;
  // Per sample cosine(candidate_i, reference_i): mean and min, ratios in [-1, 1]. A zero vector on one side has
  // cosine 0; on both sides, 1.
  double cosine_mean = 0, cosine_min = 0;
  // Retrieval over the first `retrieval_samples`: for each, its k nearest others by cosine in the reference's
  // space and in the candidate's; recall@k is the mean share of the reference's neighbours the candidate finds.
  int k = 0;
  int64_t retrieval_samples = 0;
  double recall_at_k = 0;
  // Pairwise cosine similarities (every pair i < j of those samples) on each side: means, standard deviations,
  // the mean |change| of a pair's similarity, and the 1-Wasserstein distance between the two distributions.
  double similarity_mean_reference = 0, similarity_mean_candidate = 0;
  double similarity_std_reference = 0, similarity_std_candidate = 0;
  double similarity_mean_abs_change = 0;
  double similarity_wasserstein = 0;
};

// `candidate` and `reference`: [samples, dims] row-major each. InvalidArgument unless both hold samples * dims
// values with samples >= 1 and dims >= 1.
Result<EmbeddingMetrics> ComputeEmbedding(std::span<const double> candidate, std::span<const double> reference,
                                          int64_t samples, int64_t dims, const EmbeddingOptions& options);

}  // namespace hone::check
