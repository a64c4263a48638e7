#include "process/classify_stage.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "process/line_file.h"
#include "process/stage_parameters.h"

namespace hone::process {
namespace {

class ClassifyStage final : public Stage {
 public:
  ClassifyStage(std::vector<std::string> labels, std::string labels_file, int64_t top_k, bool softmax,
                std::string description)
      : labels_(std::move(labels)), labels_file_(std::move(labels_file)), top_k_(top_k), softmax_(softmax),
        description_(std::move(description)) {
    outputs_ = {{"class_index", DataType::kInt64, {-1, top_k_}},
                {"class_name", DataType::kBytes, {-1, top_k_}},
                {"score", DataType::kFp32, {-1, top_k_}}};
  }

  const std::vector<StageTensorSpec>& inputs() const override { return inputs_; }
  const std::vector<StageTensorSpec>& outputs() const override { return outputs_; }
  const std::string& description() const override { return description_; }

  Result<std::vector<Tensor>> Run(std::span<const Tensor> in) const override {
    const Tensor& logits = in[0];
    if (logits.type() != DataType::kFp32 || logits.shape().size() != 2)
      return Status::InvalidArgument("input 'logits': " + std::string(DataTypeName(logits.type())) + " " +
                                     ShapeToString(logits.shape()) + ": expected FP32 [batch, classes]");
    const int64_t batch = logits.shape()[0], classes = logits.shape()[1];
    if (classes < top_k_)
      return Status::InvalidArgument("input 'logits': " + std::to_string(classes) + " classes, fewer than top_k " +
                                     std::to_string(top_k_));
    if (classes > static_cast<int64_t>(labels_.size()))
      return Status::FailedPrecondition(description_ + ": class " + std::to_string(labels_.size()) +
                                        " has no name: " + labels_file_ + " has " + std::to_string(labels_.size()) +
                                        " lines, the logits " + std::to_string(classes) + " classes");
    HONE_ASSIGN_OR_RETURN(Tensor index, Tensor::Allocate(DataType::kInt64, {batch, top_k_}));
    HONE_ASSIGN_OR_RETURN(Tensor score, Tensor::Allocate(DataType::kFp32, {batch, top_k_}));
    std::vector<std::string_view> names;
    names.reserve(static_cast<size_t>(batch * top_k_));
    std::span<const float> x = logits.values<float>();
    std::vector<int64_t> order(static_cast<size_t>(classes));
    std::vector<double> scores(static_cast<size_t>(classes));
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = x.data() + b * classes;
      for (int64_t c = 0; c < classes; ++c)
        if (!std::isfinite(row[c]))
          return Status::InvalidArgument("input 'logits' row " + std::to_string(b) + ": class " + std::to_string(c) +
                                         " is " + std::to_string(row[c]) + ", expected a finite number");
      Score(row, classes, scores.data());
      std::iota(order.begin(), order.end(), 0);
      // Best first; ties keep class order, so equal scores give the same answer on every run.
      std::partial_sort(order.begin(), order.begin() + top_k_, order.end(), [&](int64_t a, int64_t c) {
        const double sa = scores[static_cast<size_t>(a)], sc = scores[static_cast<size_t>(c)];
        return sa > sc || (sa == sc && a < c);
      });
      for (int64_t k = 0; k < top_k_; ++k) {
        const int64_t cls = order[static_cast<size_t>(k)];
        index.mutable_values<int64_t>()[static_cast<size_t>(b * top_k_ + k)] = cls;
        score.mutable_values<float>()[static_cast<size_t>(b * top_k_ + k)] =
            static_cast<float>(scores[static_cast<size_t>(cls)]);
        names.push_back(labels_[static_cast<size_t>(cls)]);
      }
    }
    HONE_ASSIGN_OR_RETURN(Tensor name, Tensor::FromStrings({batch, top_k_}, names));
    std::vector<Tensor> out;
    out.push_back(std::move(index));
    out.push_back(std::move(name));
    out.push_back(std::move(score));
    return out;
  }

 private:
  // Softmax in double, shifted by the row's maximum so that no exponential overflows; or the logits as they are.
  void Score(const float* row, int64_t classes, double* out) const {
    if (!softmax_) {
      std::copy(row, row + classes, out);
      return;
    }
    const double max = *std::max_element(row, row + classes);
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c) sum += out[c] = std::exp(row[c] - max);
    for (int64_t c = 0; c < classes; ++c) out[c] /= sum;
  }

  std::vector<std::string> labels_;
  std::string labels_file_;
  int64_t top_k_;
  bool softmax_;
  std::string description_;
  std::vector<StageTensorSpec> inputs_ = {{"logits", DataType::kFp32, {-1, -1}}};
  std::vector<StageTensorSpec> outputs_;
};

}  // namespace

Result<std::unique_ptr<Stage>> CreateClassifyStage(const StageConfig& config) {
  StageParameters params(config.kind, config.parameters);
  HONE_ASSIGN_OR_RETURN(const std::string path, params.File("labels_file", "labels.txt", config.directory));
  HONE_ASSIGN_OR_RETURN(int64_t top_k, params.Int("top_k", 1, 1, 1 << 20));
  HONE_ASSIGN_OR_RETURN(bool softmax, params.Bool("softmax", true));
  HONE_RETURN_IF_ERROR(params.CheckAllRead());
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> labels, ReadLineFile(path));
  if (labels.empty())
    return Status::InvalidArgument(config.kind + " parameter 'labels_file': " + path +
                                   " is empty: expected one class name a line");
  std::string description = config.kind + " (" + path + ", " + std::to_string(labels.size()) + " labels, top " +
                            std::to_string(top_k) + (softmax ? ", softmax)" : ", logits)");
  return std::unique_ptr<Stage>(
      std::make_unique<ClassifyStage>(std::move(labels), path, top_k, softmax, std::move(description)));
}

}  // namespace hone::process
