// A processing stage: work before or after a model (tokenising text, decoding images, pooling, top-k) that hone
// runs in C++, in the server's process, as a model of its own in the repository (config.pbtxt names its backend:
// "hone_tokenizer", "hone_pooling", ...). An ensemble chains stages and models.
//
// A stage takes and gives whole batches: dimension 0 of every input and output is the batch, so the dynamic
// batcher can stack requests in front of a stage as in front of a model. Run is const and thread-safe: a server
// may run one stage object from several threads.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tensor/data_type.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace hone::process {

// One input or output: its name, type and shape, batch dimension included (-1 for a dynamic dimension).
struct StageTensorSpec {
  std::string name;
  DataType type = DataType::kInvalid;
  Shape shape;
};

class Stage {
 public:
  virtual ~Stage() = default;
  virtual const std::vector<StageTensorSpec>& inputs() const = 0;
  virtual const std::vector<StageTensorSpec>& outputs() const = 0;
  // Inputs in inputs() order, outputs in outputs() order, every one with the same dimension 0. Bad data (invalid
  // UTF-8, a corrupt image) is InvalidArgument naming the input and the batch row.
  virtual Result<std::vector<Tensor>> Run(std::span<const Tensor> inputs) const = 0;
  // "hone_tokenizer (models/x/1/tokenizer.json)": what runs, for logs and errors.
  virtual const std::string& description() const = 0;
};

// What a repository's config gives a stage: its kind (the config's backend), its parameters (string values) and
// the version directory holding its files.
struct StageConfig {
  std::string kind;
  std::map<std::string, std::string> parameters;
  std::string directory;
};

// The stage `config` describes. InvalidArgument naming the parameter for an unknown or bad parameter, NotFound
// for a missing file, Unimplemented for an unknown kind (listing the kinds there are).
Result<std::unique_ptr<Stage>> CreateStage(const StageConfig& config);

// Whether `backend` names one of hone's stages.
bool IsStageKind(std::string_view backend);
// "hone_classify, hone_ctc, hone_image, hone_pooling, hone_tokenizer": the kinds there are, for errors.
std::string StageKinds();

}  // namespace hone::process
