#include "onnx/prune_repair.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hone::onnx {
namespace {
constexpr int64_t kBatchRows = 256;  // rows per rank update: large enough for a blocked product

// The `keep` units (neurons, or heads: `group` consecutive rows each) to keep, ascending, chosen greedily as Optimal
// Brain Surgeon does for whole rows (Hassibi and Stork 1993; structured, as in Kwon et al. 2022 and SparseGPT):
// with H = (G + ridge)^-1 over the rows still kept, removing unit u (rows g) and letting the others compensate costs
// tr(W_g' (H_gg)^-1 W_g) of output energy; the cheapest goes, the others' weights take up what it did, and H is
// updated for the smaller set. Unlike ranking by E[h_j^2] |W_j|^2 once, this sees that a unit whose work another
// can take over is cheap to remove however large it is. On all-MiniLM-L6-v2 at a quarter of the feed-forward
// neurons it kept embeddings closer (cosine 0.989 against 0.987).
std::vector<int64_t> SelectUnits(const Eigen::MatrixXd& gram, Eigen::MatrixXd w, int64_t keep, int64_t group,
                                 bool has_bias, double ridge) {
  const int64_t f = gram.rows() - 1;
  const int64_t units = f / group;
  // The constant column takes part only with a bias; without one it is left out of the system entirely.
  const Eigen::Index n = has_bias ? f + 1 : f;
  Eigen::MatrixXd a = gram.topLeftCorner(n, n);
  a.diagonal().head(f).array() += ridge * gram.diagonal().head(f).mean();
  Eigen::MatrixXd h = a.ldlt().solve(Eigen::MatrixXd::Identity(n, n));
  w.conservativeResize(n, Eigen::NoChange);
  std::vector<bool> alive(static_cast<size_t>(units), true);
  for (int64_t removed = 0; removed < units - keep; ++removed) {
    int64_t best = -1;
    double best_cost = std::numeric_limits<double>::infinity();
    for (int64_t u = 0; u < units; ++u) {
      if (!alive[static_cast<size_t>(u)]) continue;
      const Eigen::Index g = u * group;
      Eigen::LLT<Eigen::MatrixXd> block(h.block(g, g, group, group));
      if (block.info() != Eigen::Success) continue;
      const double cost = (w.middleRows(g, group).transpose() * block.solve(w.middleRows(g, group))).trace();
      if (cost < best_cost) best_cost = cost, best = u;
    }
    if (best < 0) break;  // numerically exhausted: the rest are chosen by their remaining energy below
    const Eigen::Index g = best * group;
    Eigen::LLT<Eigen::MatrixXd> block(h.block(g, g, group, group));
    const Eigen::MatrixXd columns = h.middleCols(g, group);                 // H[:, g]
    w -= columns * block.solve(w.middleRows(g, group));                     // the others take up its work
    h -= columns * block.solve(columns.transpose());                        // H for the smaller set
    w.middleRows(g, group).setZero();
    alive[static_cast<size_t>(best)] = false;
  }
  std::vector<int64_t> kept;
  for (int64_t u = 0; u < units; ++u)
    if (alive[static_cast<size_t>(u)]) kept.push_back(u);
  if (static_cast<int64_t>(kept.size()) > keep) {
    // Only when the inverse broke down: drop the remaining surplus by energy, least first.
    auto energy = [&](int64_t u) {
      double e = 0;
      for (int64_t j = u * group; j < (u + 1) * group; ++j) e += gram(j, j) * w.row(j).squaredNorm();
      return e;
    };
    std::stable_sort(kept.begin(), kept.end(), [&](int64_t x, int64_t y) { return energy(x) > energy(y); });
    kept.resize(static_cast<size_t>(keep));
    std::sort(kept.begin(), kept.end());
  }
  return kept;
}

}  // namespace

HiddenMoments::HiddenMoments(int64_t width)
    : width_(width),
      gram_(Eigen::MatrixXd::Zero(width + 1, width + 1)),
      batch_(Eigen::MatrixXd::Zero(kBatchRows, width + 1)) {}

void HiddenMoments::Add(std::span<const float> values, std::span<const uint8_t> keep_row) {
  const int64_t n = static_cast<int64_t>(values.size()) / width_;
  for (int64_t r = 0; r < n; ++r) {
    if (!keep_row.empty() && !keep_row[static_cast<size_t>(r)]) continue;
    const float* row = values.data() + r * width_;
    if (!std::all_of(row, row + width_, [](float v) { return std::isfinite(v); })) {
      ++nonfinite_rows_;
      continue;
    }
    for (int64_t j = 0; j < width_; ++j) batch_(batch_rows_, j) = row[j];
    batch_(batch_rows_, width_) = 1.0;
    ++rows_;
    if (++batch_rows_ == kBatchRows) Flush();
  }
}

void HiddenMoments::Flush() {
  if (batch_rows_ == 0) return;
  auto rows = batch_.topRows(batch_rows_);
  gram_.selfadjointView<Eigen::Lower>().rankUpdate(rows.transpose());
  batch_rows_ = 0;
}

Eigen::MatrixXd HiddenMoments::Gram() const {
  Eigen::MatrixXd g = gram_;
  if (batch_rows_ > 0) g.selfadjointView<Eigen::Lower>().rankUpdate(batch_.topRows(batch_rows_).transpose());
  return g.selfadjointView<Eigen::Lower>();
}

Refit SelectAndRefit(const Eigen::MatrixXd& gram, std::span<const float> weight, int64_t out,
                     std::span<const float> bias, int64_t keep, double ridge, int64_t group) {
  const int64_t f = gram.rows() - 1;
  const bool has_bias = !bias.empty();
  // W = [W2; b2] (the bias row zero without a bias, so that the same products hold).
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(f + 1, out);
  for (int64_t j = 0; j < f; ++j)
    for (int64_t o = 0; o < out; ++o) w(j, o) = weight[static_cast<size_t>(j * out + o)];
  if (has_bias)
    for (int64_t o = 0; o < out; ++o) w(f, o) = bias[static_cast<size_t>(o)];

  Refit refit;
  refit.kept = SelectUnits(gram, w, keep, group, has_bias, ridge);
  const int64_t rows = keep * group;  // the kept units' rows of the weight

  // The fit's columns: the kept units' rows, and the constant when there is a bias.
  std::vector<int64_t> cols;
  for (int64_t u : refit.kept)
    for (int64_t j = u * group; j < (u + 1) * group; ++j) cols.push_back(j);
  if (has_bias) cols.push_back(f);
  const auto n = static_cast<Eigen::Index>(cols.size());
  Eigen::MatrixXd a(n, n), rhs(n, out), w_kept(n, out);
  for (Eigen::Index r = 0; r < n; ++r) {
    for (Eigen::Index c = 0; c < n; ++c) a(r, c) = gram(cols[static_cast<size_t>(r)], cols[static_cast<size_t>(c)]);
    w_kept.row(r) = w.row(cols[static_cast<size_t>(r)]);
  }
  Eigen::MatrixXd g_s_all(n, f + 1);
  for (Eigen::Index r = 0; r < n; ++r) g_s_all.row(r) = gram.row(cols[static_cast<size_t>(r)]);
  rhs = g_s_all * w;
  double mean_diag = 0;
  for (Eigen::Index i = 0; i < rows; ++i) mean_diag += gram(cols[static_cast<size_t>(i)], cols[static_cast<size_t>(i)]);
  mean_diag /= static_cast<double>(std::max<int64_t>(rows, 1));
  Eigen::MatrixXd regular = a;
  for (Eigen::Index i = 0; i < rows; ++i) regular(i, i) += ridge * mean_diag;
  Eigen::MatrixXd x = regular.ldlt().solve(rhs);

  // Squared errors from the moments alone: |Y|^2 = tr(W' G W), |Y - [H_S 1] X|^2 = |Y|^2 - 2 tr(X' G_S: W) + tr(X' A X).
  const double total = (w.transpose() * gram * w).trace();
  auto error = [&](const Eigen::MatrixXd& xs) {
    const double e = total - 2 * (xs.transpose() * rhs).trace() + (xs.transpose() * a * xs).trace();
    return total > 0 ? std::max(e, 0.0) / total : 0.0;
  };
  refit.relative_error = error(x);
  refit.relative_error_unrepaired = error(w_kept);

  refit.weight.resize(static_cast<size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) refit.weight[static_cast<size_t>(r * out + o)] = static_cast<float>(x(r, o));
  if (has_bias) {
    refit.bias.resize(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) refit.bias[static_cast<size_t>(o)] = static_cast<float>(x(rows, o));
  }
  return refit;
}

}  // namespace hone::onnx
