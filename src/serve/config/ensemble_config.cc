#include "serve/config/ensemble_config.h"

#include <algorithm>
#include <map>
#include <set>

namespace hone::serve {
namespace {

Status Bad(const ConfigSource& src, const std::string& message) {
  return Status::InvalidArgument(src.where + ": " + message);
}

std::string Q(const std::string& s) { return "'" + s + "'"; }

std::string StepLabel(size_t i, const std::string& model) {
  return "ensemble_scheduling.step[" + std::to_string(i) + "] (model " + Q(model) + ")";
}

Status CheckEnsembleFields(const inference::ModelConfig& config, const ConfigSource& src) {
  if (!config.name().empty() && !src.model_name.empty() && config.name() != src.model_name)
    return Bad(src, "name " + Q(config.name()) + " does not match the model directory " + Q(src.model_name));
  if (!config.has_ensemble_scheduling() || config.ensemble_scheduling().step_size() == 0)
    return Bad(src, "platform 'ensemble': expected ensemble_scheduling with at least one step");
  if (config.max_batch_size() < 0)
    return Bad(src, "max_batch_size: expected >= 0, got " + std::to_string(config.max_batch_size()));
  if (!config.backend().empty())
    return Bad(src, "backend " + Q(config.backend()) + ": an ensemble takes none (its steps name their models)");
  if (config.model_warmup_size() > 0)
    return Bad(src, "model_warmup: an ensemble has nothing to warm up; give its steps' models their warm-up");
  if (!config.parameters().empty())
    return Bad(src, "parameters: an ensemble takes none (parameter " + Q(config.parameters().begin()->first) + ")");
  if (config.input_size() == 0) return Bad(src, "input: an ensemble must declare its inputs");
  if (config.output_size() == 0) return Bad(src, "output: an ensemble must declare its outputs");
  for (const auto& in : config.input())
    if (in.data_type() == inference::TYPE_INVALID || in.dims_size() == 0)
      return Bad(src, "input " + Q(in.name()) + ": an ensemble input needs data_type and dims");
  for (const auto& out : config.output())
    if (out.data_type() == inference::TYPE_INVALID || out.dims_size() == 0)
      return Bad(src, "output " + Q(out.name()) + ": an ensemble output needs data_type and dims");
  return Status::Ok();
}

// Orders the steps so that each comes after the steps it reads from (Kahn's algorithm; the input order breaks
// ties, so that a config's order is kept where it already works). A cycle is named by the steps left over.
Result<std::vector<size_t>> TopologicalOrder(const std::vector<EnsembleStep>& steps, const ConfigSource& src) {
  std::vector<size_t> order, waiting(steps.size());
  std::vector<std::vector<size_t>> readers(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    waiting[i] = steps[i].after.size();
    for (size_t dep : steps[i].after) readers[dep].push_back(i);
  }
  std::vector<bool> done(steps.size(), false);
  while (order.size() < steps.size()) {
    size_t next = steps.size();
    for (size_t i = 0; i < steps.size() && next == steps.size(); ++i)
      if (!done[i] && waiting[i] == 0) next = i;
    if (next == steps.size()) {
      std::string cycle;
      for (size_t i = 0; i < steps.size(); ++i)
        if (!done[i]) cycle += (cycle.empty() ? "" : ", ") + StepLabel(i, steps[i].model_name);
      return Bad(src, "ensemble_scheduling: the steps form a cycle (each reads what another writes): " + cycle);
    }
    done[next] = true;
    order.push_back(next);
    for (size_t r : readers[next]) --waiting[r];
  }
  return order;
}

}  // namespace

bool IsEnsemble(const inference::ModelConfig& config) { return config.platform() == kEnsemblePlatform; }

Result<EnsemblePlan> PlanEnsemble(const inference::ModelConfig& config, const ConfigSource& src) {
  HONE_RETURN_IF_ERROR(CheckEnsembleFields(config, src));
  const std::string own_name = config.name().empty() ? src.model_name : config.name();

  // Who writes each tensor: the ensemble's inputs (writer -1), or a step.
  std::map<std::string, int64_t> writer;
  for (const auto& in : config.input()) writer[in.name()] = -1;
  std::vector<EnsembleStep> steps;
  const auto& spec = config.ensemble_scheduling().step();
  for (int i = 0; i < spec.size(); ++i) {
    const auto& s = spec[i];
    const std::string label = StepLabel(static_cast<size_t>(i), s.model_name());
    if (s.model_name().empty())
      return Bad(src, "ensemble_scheduling.step[" + std::to_string(i) + "]: model_name: expected a model");
    if (s.model_name() == own_name) return Bad(src, label + ": an ensemble cannot run itself");
    if (!s.model_namespace().empty())
      return Bad(src, label + ": model_namespace " + Q(s.model_namespace()) + ": hone has one namespace");
    if (s.model_version() < -1)
      return Bad(src, label + ": model_version: expected -1 (the latest) or a version, got " +
                          std::to_string(s.model_version()));
    if (s.input_map().empty()) return Bad(src, label + ": input_map: expected at least one input");
    if (s.output_map().empty()) return Bad(src, label + ": output_map: expected at least one output");
    EnsembleStep step;
    step.model_name = s.model_name();
    step.model_version = std::max<int64_t>(s.model_version(), 0);
    for (const auto& [model_output, tensor] : s.output_map()) {
      if (tensor.empty()) return Bad(src, label + ": output_map " + Q(model_output) + ": expected a tensor name");
      auto [it, fresh] = writer.emplace(tensor, i);
      if (!fresh)
        return Bad(src, label + ": output_map " + Q(model_output) + " -> " + Q(tensor) + ": " +
                            (it->second < 0 ? std::string("the ensemble's input of that name")
                                            : StepLabel(static_cast<size_t>(it->second), spec[static_cast<int>(
                                                                                             it->second)].model_name())) +
                            " already writes it");
      step.outputs.emplace_back(model_output, tensor);
    }
    for (const auto& [model_input, tensor] : s.input_map()) step.inputs.emplace_back(model_input, tensor);
    std::sort(step.inputs.begin(), step.inputs.end());
    std::sort(step.outputs.begin(), step.outputs.end());
    steps.push_back(std::move(step));
  }

  std::set<std::string> read;
  for (size_t i = 0; i < steps.size(); ++i) {
    std::set<size_t> after;
    for (const auto& [model_input, tensor] : steps[i].inputs) {
      auto it = writer.find(tensor);
      if (it == writer.end())
        return Bad(src, StepLabel(i, steps[i].model_name) + ": input_map " + Q(model_input) + " <- " + Q(tensor) +
                            ": no ensemble input or step output is called " + Q(tensor));
      if (it->second == static_cast<int64_t>(i))
        return Bad(src, StepLabel(i, steps[i].model_name) + ": input_map " + Q(model_input) + " <- " + Q(tensor) +
                            ": the step reads its own output");
      if (it->second >= 0) after.insert(static_cast<size_t>(it->second));
      read.insert(tensor);
    }
    steps[i].after.assign(after.begin(), after.end());
  }
  for (const auto& out : config.output()) {
    auto it = writer.find(out.name());
    if (it == writer.end() || it->second < 0)
      return Bad(src, "output " + Q(out.name()) + ": no step's output_map writes it");
    read.insert(out.name());
  }
  for (const auto& in : config.input())
    if (!read.count(in.name())) return Bad(src, "input " + Q(in.name()) + ": no step reads it (input_map)");

  HONE_ASSIGN_OR_RETURN(std::vector<size_t> order, TopologicalOrder(steps, src));
  // Renumber the dependencies for the new order.
  std::vector<size_t> position(steps.size());
  for (size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  EnsemblePlan plan;
  for (size_t k : order) {
    EnsembleStep step = steps[k];
    for (size_t& dep : step.after) dep = position[dep];
    std::sort(step.after.begin(), step.after.end());
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

}  // namespace hone::serve
