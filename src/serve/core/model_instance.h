// One instance of a model, as the scheduler runs it: an ONNX Runtime session, or one of hone's processing stages
// (a tokenizer, pooling, image decoding: process/stage.h) that a repository serves like any model.
//
// The scheduler needs only the model's inputs and outputs and a way to run a batch, so that is all this says.
// Run is const and may be called from the instance's thread and from a caller's thread (never at once: the
// scheduler claims an instance before it runs on it).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/model_metadata.h"
#include "tensor/tensor.h"

namespace hone::runtime {
class Session;
}
namespace hone::process {
class Stage;
}

namespace hone::serve {

class ModelInstance {
 public:
  virtual ~ModelInstance() = default;
  virtual const runtime::ModelMetadata& metadata() const = 0;
  // Inputs in metadata().inputs order; outputs in metadata().outputs order. Errors name the input at fault.
  virtual Result<std::vector<Tensor>> Run(std::span<const Tensor> inputs) const = 0;
  // What the instance runs, for errors: the model file, or the stage and its files.
  virtual const std::string& source() const = 0;
};

std::unique_ptr<ModelInstance> SessionInstance(std::unique_ptr<runtime::Session> session);
std::unique_ptr<ModelInstance> StageInstance(std::unique_ptr<process::Stage> stage);

// SessionInstance of each.
std::vector<std::unique_ptr<ModelInstance>> SessionInstances(std::vector<std::unique_ptr<runtime::Session>> sessions);

}  // namespace hone::serve
