// Choosing which neurons of a feed-forward block to keep, and refitting the block's second MatMul on the ones kept,
// from the second moments of the hidden activations seen on calibration data (no training, no gradients):
//
//   G = [H 1]^T [H 1] over every calibration row of the hidden value H [rows, F] (the 1 column carries the bias).
//   Neurons go one at a time, the one whose removal costs least once the others compensate (Optimal Brain Surgeon
//   on whole rows: |W_j|^2 / [(G + r)^-1]_jj), until `keep` remain.
//   For the kept set S, the refit solves min |[H 1] [W2; b2] - [H_S 1] X|^2 (+ ridge) for X = [W2'; b2'], the
//   normal equations (G_SS + r I) X = G_S,: [W2; b2]: the new weight and bias of the second MatMul.
// ThiNet (Luo et al. 2017) and He et al. 2017 refit the next layer this way; Kwon et al. 2022 do it for BERT's FFN.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

namespace hone::onnx {

// Sums [h 1]^T [h 1] over rows of a block's hidden value, in double precision.
class HiddenMoments {
 public:
  explicit HiddenMoments(int64_t width);
  // `values`: whole rows of `width` floats; `keep_row` (empty: all) says per row whether it counts (padding does
  // not). Rows holding NaN or Inf are skipped and counted.
  void Add(std::span<const float> values, std::span<const uint8_t> keep_row = {});
  int64_t width() const { return width_; }
  int64_t rows() const { return rows_; }
  int64_t nonfinite_rows() const { return nonfinite_rows_; }
  // The (width + 1) square Gram matrix, full (both triangles).
  Eigen::MatrixXd Gram() const;

 private:
  int64_t width_;
  int64_t rows_ = 0, nonfinite_rows_ = 0;
  Eigen::MatrixXd gram_;   // lower triangle accumulated
  Eigen::MatrixXd batch_;  // rows gathered before one rank update
  int64_t batch_rows_ = 0;
  void Flush();
};

struct Refit {
  std::vector<int64_t> kept;           // unit indices (neurons, or heads), ascending
  std::vector<float> weight;           // [kept x group, out] row-major: the second MatMul's new weight
  std::vector<float> bias;             // [out]: the new bias (empty when the block had none)
  double relative_error = 0;           // |Y - Y'|^2 / |Y|^2 on the calibration rows, refitted
  double relative_error_unrepaired = 0;  // the same keeping the original rows of W2 and b2
};

// One layer that reads the units: its moments (HiddenMoments::Gram), its weight [F, out] row-major and bias [out]
// (empty: none, and no intercept either), `group` rows of the weight per unit (F = units x group). Borrowed.
struct UnitSystem {
  const Eigen::MatrixXd* gram = nullptr;
  std::span<const float> weight;
  int64_t out = 0;
  std::span<const float> bias;
  int64_t group = 1;
};

// The `keep` units to keep (ascending) of the units every layer in `layers` reads (the same count in each), chosen
// one removal at a time by Optimal Brain Surgeon's cost summed over the layers, each as a share of that layer's
// output energy. With `removal_costs`, each removal's cost in the order made (as a share of the output energy; the
// sum of the first r is what r removals lose once the others compensate, before the ridge).
std::vector<int64_t> SelectUnitsJoint(const std::vector<UnitSystem>& layers, int64_t keep, double ridge,
                                      std::vector<double>* removal_costs = nullptr);

// The least-squares refit of one layer over the units `kept` (ascending): its new weight and bias, and the errors.
Refit RefitUnits(const Eigen::MatrixXd& gram, std::span<const float> weight, int64_t out, std::span<const float> bias,
                 const std::vector<int64_t>& kept, double ridge, int64_t group = 1);

// SelectUnitsJoint for one layer, then RefitUnits. `gram` from HiddenMoments; `weight` [F, out] row-major; `bias`
// [out] or empty (then the fit has no intercept either). The rows come in units of `group` consecutive rows (1: a neuron each; an attention head's size: a head
// each, F = heads x group); keeps `keep` of the F / group units (1 <= keep).
Refit SelectAndRefit(const Eigen::MatrixXd& gram, std::span<const float> weight, int64_t out,
                     std::span<const float> bias, int64_t keep, double ridge, int64_t group = 1);

}  // namespace hone::onnx
