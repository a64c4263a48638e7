// The config's reshapes (see serve/config/reshape.h) applied to requests and responses on their way through the
// server: inputs from the client's shape to the model's before scheduling, outputs back after.
//
// Built once per loaded version and shared (shared_ptr) by the response callbacks, which must not hold the loaded
// version itself: the last holder of a version stops its scheduler, which cannot be done from a callback.
#pragma once

#include <vector>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "serve/core/inference.h"

namespace hone::serve {

class IoReshape {
 public:
  explicit IoReshape(const inference::ModelConfig& config);

  // No input or output has a reshape: Inputs and Outputs would change nothing.
  bool empty() const { return inputs_.empty() && outputs_.empty(); }

  // Gives each input with a reshape the model's shape (a view over the same bytes). InvalidArgument naming the
  // input for a shape that is neither the config's dims nor the model's own.
  Status Inputs(InferenceRequest& request) const;
  // Gives each output with a reshape the config's dims shape (sharing the same bytes).
  void Outputs(InferenceResponse& response) const;

 private:
  bool batched_ = false;
  std::vector<inference::ModelInput> inputs_;    // those with a reshape
  std::vector<inference::ModelOutput> outputs_;  // those with a reshape
};

// `tensor` with another shape of the same element count, sharing its bytes (and ownership, if it owns them).
Result<Tensor> WithShape(const Tensor& tensor, Shape shape);

}  // namespace hone::serve
