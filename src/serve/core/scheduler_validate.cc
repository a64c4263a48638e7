#include "serve/core/scheduler_validate.h"

#include <algorithm>
#include <utility>

namespace hone::serve {
namespace {

std::string Names(const std::vector<runtime::IoSpec>& specs) {
  std::string s;
  for (const auto& spec : specs) s += (s.empty() ? "" : ", ") + spec.name;
  return s;
}

std::string Quoted(const std::string& what, const std::string& name) { return what + " '" + name + "'"; }

bool SameSpecs(const std::vector<runtime::IoSpec>& a, const std::vector<runtime::IoSpec>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.type == y.type && x.shape == y.shape;
  });
}

Status CheckBatchDimension(const runtime::IoSpec& spec, const std::string& what, int64_t max_batch_size) {
  if (!spec.shape.empty() && spec.shape[0] < 0) return Status::Ok();
  return Status::InvalidArgument(Quoted(what, spec.name) + ": max_batch_size " + std::to_string(max_batch_size) +
                                 " needs a dynamic first (batch) dimension, the model declares " + spec.ToString());
}

Status CheckPriorities(const DynamicBatchingPolicy& b) {
  if (b.priority_levels == 0) {
    if (b.default_priority_level != 0)
      return Status::InvalidArgument("default_priority_level " + std::to_string(b.default_priority_level) +
                                     ": expected 0 when priority_levels is 0");
    if (!b.priority_queue_policy.empty())
      return Status::InvalidArgument("priority_queue_policy: expected none when priority_levels is 0");
    return Status::Ok();
  }
  const std::string range = "[1, " + std::to_string(b.priority_levels) + "]";
  if (b.default_priority_level < 1 || b.default_priority_level > b.priority_levels)
    return Status::InvalidArgument("default_priority_level " + std::to_string(b.default_priority_level) +
                                   ": expected a level in " + range);
  for (const auto& [level, policy] : b.priority_queue_policy)
    if (level < 1 || level > b.priority_levels)
      return Status::InvalidArgument("priority_queue_policy for level " + std::to_string(level) +
                                     ": expected a level in " + range);
  return Status::Ok();
}

Status CheckBatching(const SchedulerOptions& o) {
  if (o.max_batch_size < 0)
    return Status::InvalidArgument("max_batch_size " + std::to_string(o.max_batch_size) + ": expected >= 0");
  if (!o.dynamic_batching) return Status::Ok();
  if (o.max_batch_size == 0)
    return Status::InvalidArgument("dynamic batching needs max_batch_size > 0 (the model has no batch dimension)");
  const DynamicBatchingPolicy& b = o.batching;
  for (int64_t size : b.preferred_batch_sizes)
    if (size < 1 || size > o.max_batch_size)
      return Status::InvalidArgument("preferred batch size " + std::to_string(size) + ": expected 1 to " +
                                     std::to_string(o.max_batch_size) + " (max_batch_size)");
  if (b.max_queue_delay.count() < 0) return Status::InvalidArgument("max_queue_delay: expected >= 0");
  return CheckPriorities(b);
}

}  // namespace

std::string ModelLabel(const SchedulerOptions& options) {
  return "model '" + options.model_name + "' version " + std::to_string(options.model_version);
}

Status ValidateSchedulerOptions(const SchedulerOptions& options,
                                const std::vector<std::unique_ptr<ModelInstance>>& instances) {
  if (instances.empty()) return Status::InvalidArgument("expected at least one instance, got none");
  for (const auto& instance : instances)
    if (!instance) return Status::InvalidArgument("instance: expected a model instance, got null");
  const runtime::ModelMetadata& model = instances.front()->metadata();
  for (const auto& instance : instances)
    if (!SameSpecs(instance->metadata().inputs, model.inputs) ||
        !SameSpecs(instance->metadata().outputs, model.outputs))
      return Status::InvalidArgument("instance '" + instance->source() +
                                     "': expected the same inputs and outputs as '" +
                                     instances.front()->source() + "'");
  HONE_RETURN_IF_ERROR(CheckBatching(options));
  if (options.max_batch_size > 0 && model.inputs.empty())
    return Status::InvalidArgument("max_batch_size " + std::to_string(options.max_batch_size) +
                                   ": the model has no inputs to carry a batch dimension");
  for (const auto& input : model.inputs) {
    if (input.type == DataType::kInvalid)
      return Status::Unimplemented(Quoted("input", input.name) + ": element type " + input.onnx_type +
                                   " is not supported by the scheduler");
    if (options.max_batch_size > 0) HONE_RETURN_IF_ERROR(CheckBatchDimension(input, "input", options.max_batch_size));
  }
  if (options.max_batch_size > 0)
    for (const auto& output : model.outputs)
      HONE_RETURN_IF_ERROR(CheckBatchDimension(output, "output", options.max_batch_size));
  return Status::Ok();
}

namespace {

// Every input named once, each a model input, none missing; then the inputs in model order.
Status CheckAndOrderInputs(const runtime::ModelMetadata& model, std::vector<NamedTensor>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (model.FindInput(inputs[i].name) < 0)
      return Status::InvalidArgument(Quoted("input", inputs[i].name) + ": the model has no such input (expected " +
                                     Names(model.inputs) + ")");
    for (size_t j = 0; j < i; ++j)
      if (inputs[j].name == inputs[i].name)
        return Status::InvalidArgument(Quoted("input", inputs[i].name) + ": given more than once");
  }
  for (const auto& spec : model.inputs) {
    bool given = std::any_of(inputs.begin(), inputs.end(), [&](const auto& in) { return in.name == spec.name; });
    if (!given)
      return Status::InvalidArgument(Quoted("input", spec.name) + ": missing (the model takes " +
                                     Names(model.inputs) + ")");
  }
  // Names are unique and complete, so this is a permutation: swap each into place.
  for (size_t k = 0; k < model.inputs.size(); ++k)
    for (size_t j = k; j < inputs.size(); ++j)
      if (inputs[j].name == model.inputs[k].name) {
        if (j != k) std::swap(inputs[j], inputs[k]);
        break;
      }
  return Status::Ok();
}

Status CheckTensor(const runtime::IoSpec& spec, const Tensor& t, int64_t max_batch_size) {
  // Built only on error: a valid request allocates nothing here.
  auto what = [&] { return Quoted("input", spec.name); };
  if (t.type() != spec.type)
    return Status::InvalidArgument(what() + ": expected " + std::string(DataTypeName(spec.type)) + ", got " +
                                   std::string(DataTypeName(t.type())));
  const Shape& shape = t.shape();
  if (shape.size() != spec.shape.size())
    return Status::InvalidArgument(what() + ": expected rank " + std::to_string(spec.shape.size()) + " (" +
                                   spec.ToString() + "), got shape " + ShapeToString(shape));
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      return Status::InvalidArgument(what() + ": dimension " + std::to_string(d) + " is negative in shape " +
                                     ShapeToString(shape));
    if (spec.shape[d] >= 0 && spec.shape[d] != shape[d])
      return Status::InvalidArgument(what() + ": dimension " + std::to_string(d) + " must be " +
                                     std::to_string(spec.shape[d]) + " (" + spec.ToString() + "), got shape " +
                                     ShapeToString(shape));
  }
  if (max_batch_size > 0 && (shape[0] < 1 || shape[0] > max_batch_size))
    return Status::InvalidArgument(what() + ": batch size " + std::to_string(shape[0]) + ", expected 1 to " +
                                   std::to_string(max_batch_size) + " (max_batch_size)");
  return Status::Ok();
}

Status CheckRequestedOutputs(const runtime::ModelMetadata& model, const std::vector<std::string>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (model.FindOutput(outputs[i]) < 0)
      return Status::InvalidArgument(Quoted("output", outputs[i]) + ": the model has no such output (expected " +
                                     Names(model.outputs) + ")");
    for (size_t j = 0; j < i; ++j)
      if (outputs[j] == outputs[i])
        return Status::InvalidArgument(Quoted("output", outputs[i]) + ": requested more than once");
  }
  return Status::Ok();
}

}  // namespace

Result<int64_t> ValidateRequest(const runtime::ModelMetadata& model, int64_t max_batch_size,
                                InferenceRequest& request) {
  HONE_RETURN_IF_ERROR(CheckAndOrderInputs(model, request.inputs));
  for (size_t k = 0; k < model.inputs.size(); ++k)
    HONE_RETURN_IF_ERROR(CheckTensor(model.inputs[k], request.inputs[k].tensor, max_batch_size));
  int64_t rows = 1;
  if (max_batch_size > 0) {
    rows = request.inputs.front().tensor.shape()[0];
    for (size_t k = 1; k < request.inputs.size(); ++k) {
      int64_t other = request.inputs[k].tensor.shape()[0];
      if (other != rows)
        return Status::InvalidArgument(Quoted("input", request.inputs[k].name) + ": batch size " +
                                       std::to_string(other) + ", expected " + std::to_string(rows) +
                                       " (the batch size of input '" + request.inputs.front().name + "')");
    }
  }
  HONE_RETURN_IF_ERROR(CheckRequestedOutputs(model, request.requested_outputs));
  return rows;
}

}  // namespace hone::serve
