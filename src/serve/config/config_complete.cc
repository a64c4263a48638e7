#include "serve/config/config_complete.h"

#include <algorithm>
#include <limits>
#include <thread>

#include "serve/config/config_types.h"
#include "serve/config/ensemble_config.h"
#include "serve/config/llm_config.h"
#include "serve/config/onnx_parameters.h"

namespace hone::serve {
namespace {

Status Bad(const ConfigSource& src, const std::string& message) {
  return Status::InvalidArgument(src.where + ": " + message);
}

std::string Q(const std::string& s) { return "'" + s + "'"; }

bool HasBatchDim(const runtime::IoSpec& spec) { return !spec.shape.empty() && spec.shape[0] < 0; }

bool CanBatch(const runtime::ModelMetadata& model) {
  for (const auto& spec : model.inputs)
    if (!HasBatchDim(spec)) return false;
  for (const auto& spec : model.outputs)
    if (!HasBatchDim(spec)) return false;
  return true;
}

// Triton's ONNX auto-complete of max_batch_size and the default dynamic batcher.
void CompleteBatching(const runtime::ModelMetadata& model, const CompletionOptions& options,
                      inference::ModelConfig* config) {
  if (config->input_size() > 0 || config->output_size() > 0 || !CanBatch(model)) return;
  if (config->max_batch_size() == 0) config->set_max_batch_size(std::max(options.default_max_batch_size, 0));
  if (config->max_batch_size() > 1 && !config->has_dynamic_batching()) config->mutable_dynamic_batching();
}

Status ConfigTypeOf(const ConfigSource& src, const std::string& what, const runtime::IoSpec& spec,
                    inference::DataType* type) {
  *type = ToConfigDataType(spec.type);
  if (*type == inference::TYPE_INVALID)
    return Status::Unimplemented(src.where + ": " + what + ": the model's element type '" + spec.onnx_type +
                                 "' has no config data type");
  return Status::Ok();
}

template <typename Io>
Status FillFromModel(const ConfigSource& src, const std::string& what, const runtime::IoSpec& spec,
                     int32_t max_batch, Io* io) {
  inference::DataType type;
  HONE_RETURN_IF_ERROR(ConfigTypeOf(src, what, spec, &type));
  io->set_name(spec.name);
  io->set_data_type(type);
  Shape dims = spec.shape;
  if (max_batch > 0 && !dims.empty()) dims.erase(dims.begin());
  if (dims.empty()) {
    io->add_dims(1);
    io->mutable_reshape();  // empty shape: a scalar (per batch row)
  }
  for (int64_t d : dims) io->add_dims(d);
  return Status::Ok();
}

// The config's shape (model side) against the model's.
template <typename Io>
Status CheckAgainstModel(const ConfigSource& src, const std::string& what, const Io& io, const runtime::IoSpec& spec,
                         int32_t max_batch) {
  inference::DataType model_type;
  HONE_RETURN_IF_ERROR(ConfigTypeOf(src, what, spec, &model_type));
  if (io.data_type() != model_type)
    return Bad(src, what + ": data_type " + ConfigDataTypeName(io.data_type()) + " does not match the model's " +
                        std::string(DataTypeName(spec.type)) + " (" + ConfigDataTypeName(model_type) + ")");
  Shape model = spec.shape;
  if (max_batch > 0) {
    if (!HasBatchDim(spec))
      return Bad(src, what + ": max_batch_size " + std::to_string(max_batch) +
                          " needs a dynamic first (batch) dimension, but the model's shape is " +
                          DimsToString(model) + " (set max_batch_size: 0 and give the full shape in dims)");
    model.erase(model.begin());
  }
  const Shape config = ModelSideShape(io);
  const std::string field = io.has_reshape() ? "reshape.shape " : "dims ";
  const std::string batch_note = max_batch > 0 ? " without its batch dimension" : "";
  bool match = config.size() == model.size();
  for (size_t i = 0; match && i < model.size(); ++i) match = model[i] < 0 || model[i] == config[i];
  if (!match)
    return Bad(src, what + ": " + field + DimsToString(config) + " do not match the model's shape" + batch_note +
                        " " + DimsToString(model) + " (-1 is dynamic)");
  return Status::Ok();
}

Status CompleteInputs(const runtime::ModelMetadata& model, const ConfigSource& src, inference::ModelConfig* config) {
  const int32_t max_batch = config->max_batch_size();
  if (config->input_size() == 0) {
    for (const auto& spec : model.inputs)
      HONE_RETURN_IF_ERROR(FillFromModel(src, "input " + Q(spec.name), spec, max_batch, config->add_input()));
  }
  for (const auto& in : config->input()) {
    std::string what = "input " + Q(in.name());
    int index = model.FindInput(in.name());
    if (index < 0) {
      std::string names;
      for (const auto& spec : model.inputs) names += (names.empty() ? "" : ", ") + spec.name;
      return Bad(src, what + ": the model has no such input (its inputs: " + names + ")");
    }
    HONE_RETURN_IF_ERROR(CheckAgainstModel(src, what, in, model.inputs[index], max_batch));
  }
  for (const auto& spec : model.inputs) {
    bool declared = std::any_of(config->input().begin(), config->input().end(),
                                [&](const inference::ModelInput& in) { return in.name() == spec.name; });
    if (!declared) return Bad(src, "input: the model's input " + Q(spec.name) + " is not declared");
  }
  return Status::Ok();
}

Status CompleteOutputs(const runtime::ModelMetadata& model, const ConfigSource& src, inference::ModelConfig* config) {
  const int32_t max_batch = config->max_batch_size();
  if (config->output_size() == 0) {
    for (const auto& spec : model.outputs)
      HONE_RETURN_IF_ERROR(FillFromModel(src, "output " + Q(spec.name), spec, max_batch, config->add_output()));
  }
  for (const auto& out : config->output()) {
    std::string what = "output " + Q(out.name());
    int index = model.FindOutput(out.name());
    if (index < 0) {
      std::string names;
      for (const auto& spec : model.outputs) names += (names.empty() ? "" : ", ") + spec.name;
      return Bad(src, what + ": the model has no such output (its outputs: " + names + ")");
    }
    HONE_RETURN_IF_ERROR(CheckAgainstModel(src, what, out, model.outputs[index], max_batch));
  }
  return Status::Ok();
}

}  // namespace

int TotalInstanceCount(const inference::ModelConfig& config) {
  if (config.instance_group_size() == 0) return 1;
  int64_t total = 0;
  for (const auto& g : config.instance_group()) total += std::max(g.count(), 1);
  return static_cast<int>(std::min<int64_t>(total, std::numeric_limits<int>::max()));
}

void ApplyConfigDefaults(const ConfigSource& source, const CompletionOptions& options,
                         inference::ModelConfig* config) {
  if (config->name().empty()) config->set_name(source.model_name);
  if (IsEnsemble(*config)) return;  // no backend, no instances: its steps' models have them
  if (config->backend().empty()) config->set_backend("onnxruntime");
  // A processing stage (backend hone_tokenizer, ...) has no platform.
  if (config->platform().empty() && config->backend() == "onnxruntime") config->set_platform("onnxruntime_onnx");
  if (config->instance_group_size() == 0) {
    auto* group = config->add_instance_group();
    group->set_name(config->name());
    group->set_kind(inference::ModelInstanceGroup::KIND_CPU);
    group->set_count(1);
  }
  for (int i = 0; i < config->instance_group_size(); ++i) {
    auto* group = config->mutable_instance_group(i);
    if (group->kind() == inference::ModelInstanceGroup::KIND_AUTO)
      group->set_kind(inference::ModelInstanceGroup::KIND_CPU);
    if (group->count() == 0) group->set_count(1);
    if (group->name().empty()) group->set_name(config->name() + "_" + std::to_string(i));
  }
  if (config->version_policy().policy_choice_case() == inference::ModelVersionPolicy::POLICY_CHOICE_NOT_SET)
    config->mutable_version_policy()->mutable_latest()->set_num_versions(1);
  const std::string intra(kIntraOpThreadCount);
  // ONNX Runtime's threads; a processing stage's parameters are its own.
  if ((config->backend() == "onnxruntime" || IsLlm(*config)) && config->parameters().count(intra) == 0) {
    int cores = options.cores > 0 ? options.cores : static_cast<int>(std::thread::hardware_concurrency());
    int threads = std::max(1, std::max(cores, 1) / TotalInstanceCount(*config));
    (*config->mutable_parameters())[intra].set_string_value(std::to_string(threads));
  }
}

Status CompleteFromModel(const runtime::ModelMetadata& model, const CompletionOptions& options,
                         const ConfigSource& source, inference::ModelConfig* config) {
  CompleteBatching(model, options, config);
  HONE_RETURN_IF_ERROR(CompleteInputs(model, source, config));
  HONE_RETURN_IF_ERROR(CompleteOutputs(model, source, config));
  return ValidateBatching(*config, source);
}

Status CompleteModelConfig(const runtime::ModelMetadata& model, const CompletionOptions& options,
                           const ConfigSource& source, inference::ModelConfig* config) {
  ApplyConfigDefaults(source, options, config);
  return CompleteFromModel(model, options, source, config);
}

}  // namespace hone::serve
