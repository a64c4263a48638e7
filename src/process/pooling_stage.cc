#include "process/pooling_stage.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "process/stage_parameters.h"

namespace hone::process {
namespace {

enum class Mode { kMean, kCls, kMax };

class PoolingStage final : public Stage {
 public:
  PoolingStage(Mode mode, bool normalize, std::string description)
      : mode_(mode), normalize_(normalize), description_(std::move(description)) {}

  const std::vector<StageTensorSpec>& inputs() const override { return inputs_; }
  const std::vector<StageTensorSpec>& outputs() const override { return outputs_; }
  const std::string& description() const override { return description_; }

  Result<std::vector<Tensor>> Run(std::span<const Tensor> in) const override {
    const Tensor& tokens = in[0];
    const Tensor& mask = in[1];
    const Shape& t = tokens.shape();
    if (t.size() != 3 || mask.shape().size() != 2 || mask.shape()[0] != t[0] || mask.shape()[1] != t[1])
      return Status::InvalidArgument("hone_pooling: token_embeddings " + ShapeToString(t) +
                                     " and attention_mask " + ShapeToString(mask.shape()) +
                                     ": expected [batch, sequence, hidden] and [batch, sequence] of the same batch "
                                     "and sequence");
    const int64_t batch = t[0], sequence = t[1], hidden = t[2];
    HONE_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(DataType::kFp32, {batch, hidden}));
    std::span<const float> x = tokens.values<float>();
    std::span<const int64_t> m = mask.values<int64_t>();
    std::span<float> y = out.mutable_values<float>();
    for (int64_t b = 0; b < batch; ++b) {
      float* row = y.data() + b * hidden;
      const float* first = x.data() + b * sequence * hidden;
      const int64_t* row_mask = m.data() + b * sequence;
      Pool(first, row_mask, sequence, hidden, row);
      if (normalize_) Normalize(row, hidden);
    }
    std::vector<Tensor> result;
    result.push_back(std::move(out));
    return result;
  }

 private:
  void Pool(const float* x, const int64_t* mask, int64_t sequence, int64_t hidden, float* out) const {
    if (mode_ == Mode::kCls) {
      std::copy(x, x + hidden, out);
      return;
    }
    if (mode_ == Mode::kMax) {
      // sentence-transformers sets masked tokens to -1e9 before the maximum: a row with no token pools to that.
      std::fill(out, out + hidden, -1e9f);
      for (int64_t s = 0; s < sequence; ++s)
        if (mask[s] != 0)
          for (int64_t h = 0; h < hidden; ++h) out[h] = std::max(out[h], x[s * hidden + h]);
      return;
    }
    // Summed in double: a long sequence of float sums would drift from the reference's.
    std::vector<double> sum(static_cast<size_t>(hidden), 0.0);
    double count = 0;
    for (int64_t s = 0; s < sequence; ++s) {
      if (mask[s] == 0) continue;
      count += 1;
      for (int64_t h = 0; h < hidden; ++h) sum[static_cast<size_t>(h)] += x[s * hidden + h];
    }
    // The reference divides by the count clamped to 1e-9: a row with no token pools to zeros.
    const double divisor = std::max(count, 1e-9);
    for (int64_t h = 0; h < hidden; ++h) out[h] = static_cast<float>(sum[static_cast<size_t>(h)] / divisor);
  }

  static void Normalize(float* v, int64_t n) {
    double squares = 0;
    for (int64_t i = 0; i < n; ++i) squares += static_cast<double>(v[i]) * v[i];
    // torch.nn.functional.normalize's eps: a zero vector stays zero.
    const double scale = 1.0 / std::max(std::sqrt(squares), 1e-12);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(v[i] * scale);
  }

  Mode mode_;
  bool normalize_;
  std::string description_;
  std::vector<StageTensorSpec> inputs_ = {{"token_embeddings", DataType::kFp32, {-1, -1, -1}},
                                          {"attention_mask", DataType::kInt64, {-1, -1}}};
  std::vector<StageTensorSpec> outputs_ = {{"embedding", DataType::kFp32, {-1, -1}}};
};

}  // namespace

Result<std::unique_ptr<Stage>> CreatePoolingStage(const StageConfig& config) {
  StageParameters params(config.kind, config.parameters);
  HONE_ASSIGN_OR_RETURN(std::string mode, params.Choice("mode", "mean", {"mean", "cls", "max"}));
  HONE_ASSIGN_OR_RETURN(bool normalize, params.Bool("normalize", true));
  HONE_RETURN_IF_ERROR(params.CheckAllRead());
  const Mode m = mode == "cls" ? Mode::kCls : mode == "max" ? Mode::kMax : Mode::kMean;
  return std::unique_ptr<Stage>(std::make_unique<PoolingStage>(
      m, normalize, config.kind + " (" + mode + (normalize ? ", L2-normalised)" : ")")));
}

}  // namespace hone::process
