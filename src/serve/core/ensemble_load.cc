#include "serve/core/ensemble_load.h"

#include <fmt/format.h>

#include "base/log.h"
#include "serve/config/config_types.h"
#include "serve/config/ensemble_config.h"
#include "serve/core/ensemble_scheduler.h"

namespace hone::serve {
namespace {

template <typename Io>
runtime::IoSpec SpecFromConfig(const Io& io, int64_t max_batch_size) {
  runtime::IoSpec spec;
  spec.name = io.name();
  spec.type = FromConfigDataType(io.data_type());
  spec.onnx_type = std::string(DataTypeName(spec.type));
  if (max_batch_size > 0) {
    spec.shape.push_back(-1);
    spec.symbols.push_back("batch");
  }
  for (int64_t d : io.dims()) {
    spec.shape.push_back(d);
    spec.symbols.push_back("");
  }
  return spec;
}

const runtime::IoSpec* FindSpec(const std::vector<runtime::IoSpec>& specs, const std::string& name) {
  for (const auto& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

// A step's maps against its model's inputs and outputs, and the types of the tensors the ensemble declares.
Status CheckStep(const EnsembleStep& step, size_t index, const runtime::ModelMetadata& model,
                 const runtime::ModelMetadata& ensemble, const std::string& where) {
  const std::string label = fmt::format("{}: ensemble step {} (model '{}')", where, index, step.model_name);
  auto names = [](const std::vector<runtime::IoSpec>& specs) {
    std::string out;
    for (const auto& s : specs) out += (out.empty() ? "" : ", ") + s.name;
    return out;
  };
  for (const auto& [model_input, tensor] : step.inputs) {
    const runtime::IoSpec* in = FindSpec(model.inputs, model_input);
    if (!in)
      return Status::InvalidArgument(fmt::format("{}: input_map '{}': the model has no input '{}' (its inputs: {})",
                                                 label, model_input, model_input, names(model.inputs)));
    const runtime::IoSpec* declared = FindSpec(ensemble.inputs, tensor);
    if (declared && declared->type != in->type)
      return Status::InvalidArgument(fmt::format("{}: input_map '{}' <- '{}': the ensemble declares {} but the "
                                                 "model takes {}",
                                                 label, model_input, tensor, DataTypeName(declared->type),
                                                 DataTypeName(in->type)));
  }
  for (const auto& input : model.inputs) {
    bool mapped = false;
    for (const auto& [model_input, tensor] : step.inputs) mapped |= model_input == input.name;
    if (!mapped)
      return Status::InvalidArgument(
          fmt::format("{}: input_map: the model's input '{}' is not mapped (every input needs a tensor)", label,
                      input.name));
  }
  for (const auto& [model_output, tensor] : step.outputs) {
    const runtime::IoSpec* out = FindSpec(model.outputs, model_output);
    if (!out)
      return Status::InvalidArgument(fmt::format("{}: output_map '{}': the model has no output '{}' (its outputs: {})",
                                                 label, model_output, model_output, names(model.outputs)));
    const runtime::IoSpec* declared = FindSpec(ensemble.outputs, tensor);
    if (declared && declared->type != out->type)
      return Status::InvalidArgument(fmt::format("{}: output_map '{}' -> '{}': the ensemble declares {} but the "
                                                 "model gives {}",
                                                 label, model_output, tensor, DataTypeName(declared->type),
                                                 DataTypeName(out->type)));
  }
  return Status::Ok();
}

}  // namespace

Status LoadEnsemble(const LoadVersionRequest& request, LoadedVersion& loaded) {
  const inference::ModelConfig& config = loaded.config;
  HONE_ASSIGN_OR_RETURN(EnsemblePlan plan, PlanEnsemble(config, request.source));
  if (!request.dispatch || !request.step_metadata)
    return Status::Internal(request.source.where + ": an ensemble needs the server to reach its steps");
  for (const auto& in : config.input()) loaded.metadata.inputs.push_back(SpecFromConfig(in, config.max_batch_size()));
  for (const auto& out : config.output())
    loaded.metadata.outputs.push_back(SpecFromConfig(out, config.max_batch_size()));
  loaded.metadata.producer = "hone ensemble";
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const EnsembleStep& step = plan.steps[i];
    Result<runtime::ModelMetadata> model = request.step_metadata(step.model_name, step.model_version);
    if (!model.ok())
      return Status::Unavailable(fmt::format("{}: ensemble step {} (model '{}'): {}", request.source.where, i,
                                             step.model_name, model.status().message()));
    HONE_RETURN_IF_ERROR(CheckStep(step, i, *model, loaded.metadata, request.source.where));
  }
  loaded.reshape = std::make_shared<const IoReshape>(config);
  loaded.stats = std::make_unique<ModelStats>(loaded.name, loaded.version, config.max_batch_size(), request.metrics);
  EnsembleOptions options;
  options.model_name = loaded.name;
  options.model_version = loaded.version;
  options.max_batch_size = config.max_batch_size();
  options.metadata = loaded.metadata;
  std::string steps;
  for (const auto& s : plan.steps) steps += (steps.empty() ? "" : " -> ") + s.model_name;
  options.plan = std::move(plan);
  loaded.scheduler = CreateEnsembleScheduler(std::move(options), request.dispatch, loaded.stats.get());
  Log(LogLevel::kInfo, {{"model", loaded.name}, {"version", loaded.version}},
      "model '{}' version {}: ensemble of {} step(s): {}", loaded.name, loaded.version,
      config.ensemble_scheduling().step_size(), steps);
  return Status::Ok();
}

}  // namespace hone::serve
