#include "process/ctc_stage.h"

#include <cmath>

#include "process/line_file.h"
#include "process/stage_parameters.h"

namespace hone::process {
namespace {

class CtcStage final : public Stage {
 public:
  CtcStage(std::vector<std::string> dictionary, int64_t blank, std::string description)
      : dictionary_(std::move(dictionary)), blank_(blank), description_(std::move(description)) {}

  const std::vector<StageTensorSpec>& inputs() const override { return inputs_; }
  const std::vector<StageTensorSpec>& outputs() const override { return outputs_; }
  const std::string& description() const override { return description_; }

  Result<std::vector<Tensor>> Run(std::span<const Tensor> in) const override {
    const Tensor& logits = in[0];
    const Shape& shape = logits.shape();
    if (shape.size() != 3)
      return Status::InvalidArgument("input 'logits': shape " + ShapeToString(shape) +
                                     ": expected [batch, frames, classes]");
    const int64_t batch = shape[0], frames = shape[1], classes = shape[2];
    if (classes > static_cast<int64_t>(dictionary_.size()))
      return Status::FailedPrecondition(description_ + ": class " + std::to_string(dictionary_.size()) +
                                        " has no dictionary entry: the logits have " + std::to_string(classes) +
                                        " classes");
    if (blank_ >= classes)
      return Status::InvalidArgument("input 'logits': " + std::to_string(classes) + " classes, but blank_index is " +
                                     std::to_string(blank_));
    std::span<const float> x = logits.values<float>();
    std::vector<std::string> texts(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b) {
      int64_t previous = -1;
      for (int64_t t = 0; t < frames; ++t) {
        const float* row = x.data() + (b * frames + t) * classes;
        int64_t best = 0;
        for (int64_t c = 0; c < classes; ++c) {
          if (!std::isfinite(row[c]))
            return Status::InvalidArgument("input 'logits' row " + std::to_string(b) + " frame " +
                                           std::to_string(t) + ": class " + std::to_string(c) + " is " +
                                           std::to_string(row[c]));
          if (row[c] > row[best]) best = c;
        }
        // A class repeated over frames is one symbol; a blank between two equal classes separates them.
        if (best != previous && best != blank_) texts[static_cast<size_t>(b)] += dictionary_[static_cast<size_t>(best)];
        previous = best;
      }
    }
    std::vector<std::string_view> views(texts.begin(), texts.end());
    HONE_ASSIGN_OR_RETURN(Tensor out, Tensor::FromStrings({batch, 1}, views));
    std::vector<Tensor> result;
    result.push_back(std::move(out));
    return result;
  }

 private:
  std::vector<std::string> dictionary_;
  int64_t blank_;
  std::string description_;
  std::vector<StageTensorSpec> inputs_ = {{"logits", DataType::kFp32, {-1, -1, -1}}};
  std::vector<StageTensorSpec> outputs_ = {{"text", DataType::kBytes, {-1, 1}}};
};

}  // namespace

Result<std::unique_ptr<Stage>> CreateCtcStage(const StageConfig& config) {
  StageParameters params(config.kind, config.parameters);
  HONE_ASSIGN_OR_RETURN(const std::string path,
                        params.File("dictionary_file", "dictionary.txt", config.directory));
  HONE_ASSIGN_OR_RETURN(int64_t blank, params.Int("blank_index", 0, 0, 1 << 24));
  HONE_RETURN_IF_ERROR(params.CheckAllRead());
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> dictionary, ReadLineFile(path));
  if (dictionary.empty())
    return Status::InvalidArgument(config.kind + " parameter 'dictionary_file': " + path +
                                   " is empty: expected one entry a line");
  if (blank >= static_cast<int64_t>(dictionary.size()))
    return Status::InvalidArgument(config.kind + " parameter 'blank_index': " + std::to_string(blank) + " is past " +
                                   path + "'s " + std::to_string(dictionary.size()) + " entries");
  std::string description = config.kind + " (" + path + ", " + std::to_string(dictionary.size()) +
                            " entries, blank " + std::to_string(blank) + ")";
  return std::unique_ptr<Stage>(std::make_unique<CtcStage>(std::move(dictionary), blank, std::move(description)));
}

}  // namespace hone::process
