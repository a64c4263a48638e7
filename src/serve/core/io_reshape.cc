#include "serve/core/io_reshape.h"

#include <memory>

#include "serve/config/reshape.h"

namespace hone::serve {

Result<Tensor> WithShape(const Tensor& tensor, Shape shape) {
  if (shape == tensor.shape()) return tensor;
  if (tensor.byte_size() == 0) return Tensor::Allocate(tensor.type(), std::move(shape));
  // The holder keeps whatever keeps the bytes alive (an owned buffer, or nothing extra for a view).
  auto holder = std::make_shared<Tensor>(tensor);
  return Tensor::Share(tensor.type(), std::move(shape), holder, holder->mutable_data(), holder->byte_size());
}

IoReshape::IoReshape(const inference::ModelConfig& config) : batched_(config.max_batch_size() > 0) {
  for (const auto& in : config.input())
    if (in.has_reshape()) inputs_.push_back(in);
  for (const auto& out : config.output())
    if (out.has_reshape()) outputs_.push_back(out);
}

Status IoReshape::Inputs(InferenceRequest& request) const {
  for (const auto& in : inputs_) {
    for (NamedTensor& given : request.inputs) {
      if (given.name != in.name()) continue;
      HONE_ASSIGN_OR_RETURN(Shape shape, ToModelShape(in, batched_, given.tensor.shape()));
      HONE_ASSIGN_OR_RETURN(given.tensor, WithShape(given.tensor, std::move(shape)));
    }
  }
  return Status::Ok();
}

void IoReshape::Outputs(InferenceResponse& response) const {
  for (const auto& out : outputs_) {
    for (NamedTensor& made : response.outputs) {
      if (made.name != out.name()) continue;
      Shape shape = ToClientShape(out, batched_, made.tensor.shape());
      // Same element count by construction, so this cannot fail; keep the model's shape if it somehow did.
      if (Result<Tensor> reshaped = WithShape(made.tensor, std::move(shape)); reshaped.ok())
        made.tensor = std::move(*reshaped);
    }
  }
}

}  // namespace hone::serve
