#include "check/embedding.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace hone::check {
namespace {

// Rows scaled to unit length (zero rows stay zero), for cosine as a dot product.
std::vector<double> Normalized(std::span<const double> values, int64_t rows, int64_t dims) {
  std::vector<double> out(values.begin(), values.begin() + rows * dims);
  for (int64_t r = 0; r < rows; ++r) {
    double* row = out.data() + r * dims;
    double norm = 0;
    for (int64_t d = 0; d < dims; ++d) norm += row[d] * row[d];
    norm = std::sqrt(norm);
    if (norm > 0)
      for (int64_t d = 0; d < dims; ++d) row[d] /= norm;
  }
  return out;
}

double Dot(const double* a, const double* b, int64_t dims) {
  double s = 0;
  for (int64_t d = 0; d < dims; ++d) s += a[d] * b[d];
  return s;
}

// The cosine similarity matrix of unit rows, n x n.
std::vector<double> Similarities(const std::vector<double>& unit, int64_t n, int64_t dims) {
  std::vector<double> s(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i; j < n; ++j) s[i * n + j] = s[j * n + i] = Dot(&unit[i * dims], &unit[j * dims], dims);
  return s;
}

// The k most similar others of row i, ties to the lower index.
std::vector<int64_t> Neighbours(const std::vector<double>& sim, int64_t n, int64_t i, int k) {
  std::vector<int64_t> others;
  for (int64_t j = 0; j < n; ++j)
    if (j != i) others.push_back(j);
  auto row = &sim[i * n];
  std::partial_sort(others.begin(), others.begin() + k, others.end(), [&](int64_t a, int64_t b) {
    return row[a] != row[b] ? row[a] > row[b] : a < b;
  });
  others.resize(k);
  std::sort(others.begin(), others.end());
  return others;
}

void MeanStd(const std::vector<double>& v, double& mean, double& stddev) {
  mean = stddev = 0;
  if (v.empty()) return;
  mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v) sq += (x - mean) * (x - mean);
  stddev = std::sqrt(sq / static_cast<double>(v.size()));
}

void PairwiseShift(const std::vector<double>& ref_sim, const std::vector<double>& cand_sim, int64_t n,
                   EmbeddingMetrics& m) {
  std::vector<double> ref_pairs, cand_pairs;
  double abs_change = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      ref_pairs.push_back(ref_sim[i * n + j]);
      cand_pairs.push_back(cand_sim[i * n + j]);
      abs_change += std::fabs(cand_pairs.back() - ref_pairs.back());
    }
  if (ref_pairs.empty()) return;
  MeanStd(ref_pairs, m.similarity_mean_reference, m.similarity_std_reference);
  MeanStd(cand_pairs, m.similarity_mean_candidate, m.similarity_std_candidate);
  m.similarity_mean_abs_change = abs_change / static_cast<double>(ref_pairs.size());
  // Equal-sized samples: W1 is the mean distance between the sorted values.
  std::sort(ref_pairs.begin(), ref_pairs.end());
  std::sort(cand_pairs.begin(), cand_pairs.end());
  double w = 0;
  for (size_t p = 0; p < ref_pairs.size(); ++p) w += std::fabs(ref_pairs[p] - cand_pairs[p]);
  m.similarity_wasserstein = w / static_cast<double>(ref_pairs.size());
}

}  // namespace

Result<EmbeddingMetrics> ComputeEmbedding(std::span<const double> candidate, std::span<const double> reference,
                                          int64_t samples, int64_t dims, const EmbeddingOptions& options) {
  if (samples < 1 || dims < 1)
    return Status::InvalidArgument(fmt::format("embeddings: expected >= 1 sample of >= 1 dimension, got {} x {}",
                                               samples, dims));
  const size_t want = static_cast<size_t>(samples * dims);
  if (candidate.size() != want || reference.size() != want)
    return Status::InvalidArgument(fmt::format(
        "embeddings: expected {} x {} values on each side, got {} (candidate) and {} (reference)", samples, dims,
        candidate.size(), reference.size()));
  EmbeddingMetrics m;
  m.samples = samples;
  m.dims = dims;
  std::vector<double> cand_unit = Normalized(candidate, samples, dims), ref_unit = Normalized(reference, samples, dims);
  double cosine_sum = 0;
  m.cosine_min = 1;
  for (int64_t r = 0; r < samples; ++r) {
    const double* c = &cand_unit[r * dims];
    const double* f = &ref_unit[r * dims];
    const bool c_zero = Dot(c, c, dims) == 0, f_zero = Dot(f, f, dims) == 0;
    const double cosine = c_zero && f_zero ? 1 : std::clamp(Dot(c, f, dims), -1.0, 1.0);
    cosine_sum += cosine;
    // A row with NaN or Inf has no cosine: the minimum (and mean) become NaN, which fails every gate on them,
    // instead of being skipped by std::min and reported as a perfect 1.
    m.cosine_min = std::isnan(cosine) ? cosine : std::min(m.cosine_min, cosine);
  }
  m.cosine_mean = cosine_sum / static_cast<double>(samples);

  const int64_t n = std::min(samples, std::max<int64_t>(options.max_retrieval_samples, 2));
  m.retrieval_samples = n;
  m.k = static_cast<int>(std::min<int64_t>(std::max(options.recall_k, 1), n - 1));
  if (m.k < 1) return m;  // one sample: no neighbours
  std::vector<double> ref_sim = Similarities(ref_unit, n, dims), cand_sim = Similarities(cand_unit, n, dims);
  double found = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> want_n = Neighbours(ref_sim, n, i, m.k), got_n = Neighbours(cand_sim, n, i, m.k);
    std::vector<int64_t> shared;
    std::set_intersection(want_n.begin(), want_n.end(), got_n.begin(), got_n.end(), std::back_inserter(shared));
    found += static_cast<double>(shared.size()) / m.k;
  }
  m.recall_at_k = found / static_cast<double>(n);
  PairwiseShift(ref_sim, cand_sim, n, m);
  return m;
}

}  // namespace hone::check
