#include "serve/config/config_validate.h"

#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "process/stage.h"
#include "serve/config/batch_timing.h"
#include "serve/config/config_types.h"
#include "serve/config/ensemble_config.h"
#include "serve/config/llm_config.h"
#include "serve/config/model_name.h"
#include "serve/config/onnx_parameters.h"

namespace hone::serve {
namespace {

constexpr std::string_view kPlatform = "onnxruntime_onnx";
constexpr std::string_view kBackend = "onnxruntime";

Status Bad(const ConfigSource& src, const std::string& message) {
  return Status::InvalidArgument(src.where + ": " + message);
}

std::string Q(const std::string& s) { return "'" + s + "'"; }

// " (Triton's ensembles)" for a platform or backend Triton users know by another name, else "".
std::string KnownAs(const std::string& name) {
  if (name == "ensemble") return " (Triton's ensembles)";
  if (name == "python") return " (Triton's Python backend)";
  if (name == "tensorrt_plan" || name == "tensorrt") return " (TensorRT engines)";
  if (name == "pytorch_libtorch" || name == "pytorch") return " (TorchScript models)";
  if (name == "tensorflow_savedmodel" || name == "tensorflow_graphdef" || name == "tensorflow")
    return " (TensorFlow models)";
  if (name == "openvino") return " (OpenVINO models)";
  return "";
}

// Each dimension >= -1 (or >= `min` for warm-up dims, which must be concrete).
Status CheckDims(const ConfigSource& src, const std::string& what, const std::string& field, const Shape& dims,
                 int64_t min) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < min)
      return Bad(src, what + ": " + field + "[" + std::to_string(i) + "]: expected >= " + std::to_string(min) +
                          ", got " + std::to_string(dims[i]));
  return Status::Ok();
}

bool AllFixed(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) return false;
  return true;
}

// dims and reshape as Triton requires them: at least one dim, every dim >= -1, equal element counts when both
// are fully fixed.
Status CheckShapes(const ConfigSource& src, const std::string& what, const Shape& dims, bool has_reshape,
                   const Shape& reshape) {
  if (dims.empty())
    return Bad(src, what + ": dims: expected at least one dimension (for a scalar use dims: [ 1 ] with "
                           "reshape: { shape: [ ] })");
  HONE_RETURN_IF_ERROR(CheckDims(src, what, "dims", dims, -1));
  if (!has_reshape) return Status::Ok();
  HONE_RETURN_IF_ERROR(CheckDims(src, what, "reshape.shape", reshape, -1));
  if (AllFixed(dims) && AllFixed(reshape)) {
    auto a = ElementCount(dims), b = ElementCount(reshape);
    if (!a || !b || *a != *b)
      return Bad(src, what + ": reshape.shape " + DimsToString(reshape) + " holds " + (b ? std::to_string(*b) : "?") +
                          " elements, dims " + DimsToString(dims) + " hold " + (a ? std::to_string(*a) : "?"));
  }
  return Status::Ok();
}

Status CheckDataType(const ConfigSource& src, const std::string& what, inference::DataType type) {
  if (type == inference::TYPE_INVALID || !inference::DataType_IsValid(type))
    return Bad(src, what + ": data_type: expected one of TYPE_BOOL .. TYPE_BF16, got " + ConfigDataTypeName(type));
  return Status::Ok();
}

Status CheckIo(const inference::ModelConfig& config, const ConfigSource& src) {
  std::set<std::string> names;
  for (int i = 0; i < config.input_size(); ++i) {
    const auto& in = config.input(i);
    if (in.name().empty()) return Bad(src, "input[" + std::to_string(i) + "]: name: expected a name");
    std::string what = "input " + Q(in.name());
    if (!names.insert(in.name()).second) return Bad(src, what + ": declared twice");
    HONE_RETURN_IF_ERROR(CheckDataType(src, what, in.data_type()));
    if (!inference::ModelInput::Format_IsValid(in.format()))
      return Bad(src, what + ": format: unknown value " + std::to_string(in.format()));
    HONE_RETURN_IF_ERROR(
        CheckShapes(src, what, ToShape(in.dims()), in.has_reshape(), ToShape(in.reshape().shape())));
  }
  names.clear();
  for (int i = 0; i < config.output_size(); ++i) {
    const auto& out = config.output(i);
    if (out.name().empty()) return Bad(src, "output[" + std::to_string(i) + "]: name: expected a name");
    std::string what = "output " + Q(out.name());
    if (!names.insert(out.name()).second) return Bad(src, what + ": declared twice");
    HONE_RETURN_IF_ERROR(CheckDataType(src, what, out.data_type()));
    HONE_RETURN_IF_ERROR(
        CheckShapes(src, what, ToShape(out.dims()), out.has_reshape(), ToShape(out.reshape().shape())));
    if (!out.label_filename().empty()) {
      Status s = ValidateFileName(out.label_filename(), "label_filename");
      if (!s.ok()) return s.WithContext(src.where + ": " + what);
    }
  }
  return Status::Ok();
}

Status CheckInstanceGroups(const inference::ModelConfig& config, const ConfigSource& src) {
  for (int i = 0; i < config.instance_group_size(); ++i) {
    const auto& g = config.instance_group(i);
    std::string what = "instance_group[" + std::to_string(i) + "]";
    if (g.count() < 0) return Bad(src, what + ": count: expected >= 1, got " + std::to_string(g.count()));
    switch (g.kind()) {
      case inference::ModelInstanceGroup::KIND_AUTO:
      case inference::ModelInstanceGroup::KIND_CPU:
        break;
      case inference::ModelInstanceGroup::KIND_GPU:
      case inference::ModelInstanceGroup::KIND_MODEL:
        return Status::Unimplemented(src.where + ": " + what + ": kind " +
                                     inference::ModelInstanceGroup::Kind_Name(g.kind()) +
                                     ": this build runs on CPU (use KIND_CPU or KIND_AUTO)");
      default:
        return Bad(src, what + ": kind: unknown value " + std::to_string(g.kind()));
    }
  }
  return Status::Ok();
}

Status CheckQueuePolicy(const ConfigSource& src, const std::string& what, const inference::ModelQueuePolicy& p) {
  if (!inference::ModelQueuePolicy::TimeoutAction_IsValid(p.timeout_action()))
    return Bad(src, what + ".timeout_action: unknown value " + std::to_string(p.timeout_action()));
  return Status::Ok();
}

Status CheckDynamicBatching(const inference::ModelConfig& config, const ConfigSource& src) {
  if (!config.has_dynamic_batching()) return Status::Ok();
  const auto& db = config.dynamic_batching();
  for (int i = 0; i < db.preferred_batch_size_size(); ++i)
    if (db.preferred_batch_size(i) <= 0)
      return Bad(src, "dynamic_batching.preferred_batch_size[" + std::to_string(i) + "]: expected > 0, got " +
                          std::to_string(db.preferred_batch_size(i)));
  const uint64_t levels = db.priority_levels();
  if (levels > std::numeric_limits<uint32_t>::max())
    return Bad(src, "dynamic_batching.priority_levels: expected <= 4294967295, got " + std::to_string(levels));
  if (levels == 0) {
    if (db.default_priority_level() != 0)
      return Bad(src, "dynamic_batching.default_priority_level: " + std::to_string(db.default_priority_level()) +
                          " needs priority_levels >= " + std::to_string(db.default_priority_level()) +
                          " (priority_levels is 0)");
    if (!db.priority_queue_policy().empty())
      return Bad(src, "dynamic_batching.priority_queue_policy: needs priority_levels > 0");
  } else if (db.default_priority_level() < 1 || db.default_priority_level() > levels) {
    return Bad(src, "dynamic_batching.default_priority_level: expected in [1, " + std::to_string(levels) +
                        "], got " + std::to_string(db.default_priority_level()));
  }
  HONE_RETURN_IF_ERROR(CheckQueuePolicy(src, "dynamic_batching.default_queue_policy", db.default_queue_policy()));
  for (const auto& [level, policy] : db.priority_queue_policy()) {
    std::string what = "dynamic_batching.priority_queue_policy[" + std::to_string(level) + "]";
    if (level < 1 || level > levels)
      return Bad(src, what + ": priority level expected in [1, " + std::to_string(levels) + "]");
    HONE_RETURN_IF_ERROR(CheckQueuePolicy(src, what, policy));
  }
  return Status::Ok();
}

Status CheckVersionPolicy(const inference::ModelConfig& config, const ConfigSource& src) {
  const auto& vp = config.version_policy();
  if (vp.has_latest() && vp.latest().num_versions() < 1)
    return Bad(src, "version_policy.latest.num_versions: expected >= 1, got 0");
  if (vp.has_specific()) {
    if (vp.specific().versions_size() == 0)
      return Bad(src, "version_policy.specific.versions: expected at least one version");
    for (int64_t v : vp.specific().versions())
      if (v < 1) return Bad(src, "version_policy.specific.versions: expected versions >= 1, got " + std::to_string(v));
  }
  return Status::Ok();
}

Status CheckWarmup(const inference::ModelConfig& config, const ConfigSource& src) {
  for (int i = 0; i < config.model_warmup_size(); ++i) {
    const auto& w = config.model_warmup(i);
    std::string what = "model_warmup[" + std::to_string(i) + "]";
    if (!w.name().empty()) what.append(" ").append(Q(w.name()));
    if (w.batch_size() < 1) return Bad(src, what + ": batch_size: expected >= 1, got 0");
    if (w.inputs().empty()) return Bad(src, what + ": inputs: expected at least one input");
    for (const auto& [name, in] : w.inputs()) {
      std::string in_what = what + ": input " + Q(name);
      HONE_RETURN_IF_ERROR(CheckDataType(src, in_what, in.data_type()));
      HONE_RETURN_IF_ERROR(CheckDims(src, in_what, "dims", ToShape(in.dims()), 0));
      if (in.input_data_type_case() == inference::ModelWarmup::Input::INPUT_DATA_TYPE_NOT_SET)
        return Bad(src, in_what + ": expected one of zero_data, random_data or input_data_file");
      if (in.has_input_data_file()) {
        Status s = ValidateFileName(in.input_data_file(), "input_data_file");
        if (!s.ok()) return s.WithContext(src.where + ": " + in_what);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateModelConfig(const inference::ModelConfig& config, const ConfigSource& src) {
  if (!config.name().empty() && !src.model_name.empty() && config.name() != src.model_name)
    return Bad(src, "name " + Q(config.name()) + " does not match the model directory " + Q(src.model_name));
  if (IsEnsemble(config)) return PlanEnsemble(config, src).status();
  if (IsLlm(config)) return LlmParametersFromConfig(config, src).status();
  // A processing stage: no platform and no ONNX Runtime settings; its parameters are the stage's, which the stage
  // itself checks when it loads (it knows its keys).
  const bool stage = process::IsStageKind(config.backend());
  if (stage && !config.platform().empty())
    return Bad(src, "platform " + Q(config.platform()) + ": a model with backend " + Q(config.backend()) +
                        " (a hone processing stage) takes no platform");
  if (!stage && !config.platform().empty() && config.platform() != kPlatform)
    return Status::Unimplemented(src.where + ": hone does not support platform " + Q(config.platform()) +
                                 KnownAs(config.platform()) + " yet: it serves " + std::string(kPlatform) +
                                 " (ONNX models) only");
  if (!stage && !config.backend().empty() && config.backend() != kBackend)
    return Status::Unimplemented(src.where + ": hone does not support backend " + Q(config.backend()) +
                                 KnownAs(config.backend()) + " yet: it serves " + std::string(kBackend) +
                                 " (ONNX models), " + std::string(kLlmBackend) + " (text generation) and its processing stages (" +
                                 process::StageKinds() + ")");
  if (config.max_batch_size() < 0)
    return Bad(src, "max_batch_size: expected >= 0, got " + std::to_string(config.max_batch_size()));
  HONE_RETURN_IF_ERROR(CheckIo(config, src));
  HONE_RETURN_IF_ERROR(CheckInstanceGroups(config, src));
  HONE_RETURN_IF_ERROR(CheckDynamicBatching(config, src));
  HONE_RETURN_IF_ERROR(CheckVersionPolicy(config, src));
  if (!stage) {
    auto options = SessionOptionsFromConfig(config);
    if (!options.ok()) return options.status().WithContext(src.where);
  }
  auto timing = BatchTimingFromConfig(config);
  if (!timing.ok()) return timing.status().WithContext(src.where);
  if (!stage && !config.default_model_filename().empty()) {
    Status s = ValidateFileName(config.default_model_filename(), "default_model_filename");
    if (!s.ok()) return s.WithContext(src.where);
  }
  return CheckWarmup(config, src);
}

Status ValidateBatching(const inference::ModelConfig& config, const ConfigSource& src) {
  const int32_t max_batch = config.max_batch_size();
  if (config.has_dynamic_batching()) {
    if (max_batch == 0)
      return Bad(src, "dynamic_batching: needs max_batch_size > 0 (max_batch_size 0 means the model has no batch "
                      "dimension)");
    for (int32_t size : config.dynamic_batching().preferred_batch_size())
      if (size > max_batch)
        return Bad(src, "dynamic_batching.preferred_batch_size: " + std::to_string(size) +
                            " exceeds max_batch_size " + std::to_string(max_batch));
  }
  for (int i = 0; i < config.model_warmup_size(); ++i) {
    const auto& w = config.model_warmup(i);
    std::string what = "model_warmup[" + std::to_string(i) + "].batch_size";
    if (max_batch == 0 && w.batch_size() != 1)
      return Bad(src, what + ": expected 1 (max_batch_size is 0), got " + std::to_string(w.batch_size()));
    if (max_batch > 0 && w.batch_size() > static_cast<uint32_t>(max_batch))
      return Bad(src, what + ": " + std::to_string(w.batch_size()) + " exceeds max_batch_size " +
                          std::to_string(max_batch));
  }
  return Status::Ok();
}

}  // namespace hone::serve
