#include "tune/candidate.h"

#include <fmt/format.h>

#include <filesystem>

#include "base/atomic_file.h"
#include "serve/config/batch_timing.h"
#include "serve/config/config_complete.h"
#include "serve/config/config_text.h"
#include "serve/config/config_types.h"
#include "serve/config/onnx_parameters.h"

namespace hone::tune {
namespace fs = std::filesystem;

std::string Candidate::Describe() const {
  std::string batching = max_batch_size == 0 ? std::string("no batching")
                         : dynamic_batching
                             ? (max_queue_delay_us > 0
                                   ? fmt::format("max_batch_size {}, wait {} us (Triton's timing)", max_batch_size,
                                                 max_queue_delay_us)
                                   : fmt::format("max_batch_size {}, no wait", max_batch_size))
                             : fmt::format("max_batch_size {}, no dynamic batching", max_batch_size);
  if (!preferred_batch_sizes.empty()) batching += fmt::format(", preferred {}", fmt::join(preferred_batch_sizes, "/"));
  std::string threads = threads_set ? fmt::format("intra {}", session.intra_op_threads) : "threads split by hone serve";
  return fmt::format("{}, {} instance{}, {}, spin {}, graph {}, {}", batching, instances, instances == 1 ? "" : "s",
                     threads, session.allow_spinning ? "on" : "off",
                     runtime::GraphOptimizationName(session.graph_optimization),
                     compression.empty() ? precision : precision + ", " + compression);
}

nlohmann::json CandidateSettingsJson(const Candidate& c) {
  return {{"model_path", c.model_path},
          {"precision", c.precision},
          {"compression", c.compression.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.compression)},
          {"max_batch_size", c.max_batch_size},
          {"dynamic_batching", c.dynamic_batching},
          {"max_queue_delay_us", c.dynamic_batching ? nlohmann::json(c.max_queue_delay_us) : nlohmann::json()},
          {"preferred_batch_sizes", c.preferred_batch_sizes},
          {"instances", c.instances},
          {"intra_op_threads", c.threads_set ? nlohmann::json(c.session.intra_op_threads) : nlohmann::json()},
          {"allow_spinning", c.session.allow_spinning},
          {"graph_optimization", runtime::GraphOptimizationName(c.session.graph_optimization)},
          {"risk", c.risk},
          {"description", c.Describe()}};
}

namespace {

// Warm-up samples the config can describe: every input's shape fixed apart from the batch dimension.
bool AddWarmup(const Candidate& c, const runtime::ModelMetadata& metadata, inference::ModelConfig& config) {
  if (metadata.inputs.empty()) return false;  // nothing known of the inputs: hone serve's own warm-up
  inference::ModelWarmup warmup;
  warmup.set_name("hone tune: random samples");
  warmup.set_batch_size(c.max_batch_size > 0 ? static_cast<uint32_t>(std::min<int64_t>(c.max_batch_size, 8)) : 1);
  warmup.set_count(5);
  for (const runtime::IoSpec& input : metadata.inputs) {
    inference::ModelWarmup::Input w;
    w.set_data_type(serve::ToConfigDataType(input.type));
    if (w.data_type() == inference::TYPE_INVALID || input.type == DataType::kBytes) return false;
    size_t first = c.max_batch_size > 0 ? 1 : 0;
    for (size_t d = first; d < input.shape.size(); ++d) {
      if (input.shape[d] < 0) {
        if (d == 0 && c.max_batch_size == 0) {
          w.add_dims(1);  // one sample along a dynamic first dimension
          continue;
        }
        return false;
      }
      w.add_dims(input.shape[d]);
    }
    w.set_random_data(true);
    (*warmup.mutable_inputs())[input.name] = std::move(w);
  }
  *config.add_model_warmup() = std::move(warmup);
  return true;
}

}  // namespace

std::string CandidateConfigText(const Candidate& c, const std::string& model_name,
                                const runtime::ModelMetadata& metadata) {
  inference::ModelConfig config;
  config.set_name(model_name);
  config.set_platform("onnxruntime_onnx");
  config.set_max_batch_size(static_cast<int32_t>(c.max_batch_size));
  if (c.max_batch_size > 0 && c.dynamic_batching) {
    auto* batching = config.mutable_dynamic_batching();
    batching->set_max_queue_delay_microseconds(static_cast<uint64_t>(c.max_queue_delay_us));
    for (int64_t size : c.preferred_batch_sizes) batching->add_preferred_batch_size(static_cast<int32_t>(size));
  }
  auto* group = config.add_instance_group();
  group->set_kind(inference::ModelInstanceGroup::KIND_CPU);
  group->set_count(c.instances);
  auto& parameters = *config.mutable_parameters();
  if (c.threads_set) {
    parameters[std::string(serve::kIntraOpThreadCount)].set_string_value(std::to_string(c.session.intra_op_threads));
  }
  if (c.spinning_set) {
    parameters[std::string(serve::kAllowSpinning)].set_string_value(c.session.allow_spinning ? "1" : "0");
  }
  // hone serve's batcher is work-conserving: a delay means something only with Triton's timing, which waits for it.
  if (c.max_batch_size > 0 && c.dynamic_batching && c.max_queue_delay_us > 0) {
    parameters[std::string(serve::kBatchTiming)].set_string_value(
        std::string(serve::BatchTimingName(serve::BatchTiming::kTriton)));
  }
  if (c.graph_level_set) {
    config.mutable_optimization()->mutable_graph()->set_level(
        serve::GraphLevelFromOptimization(c.session.graph_optimization));
  }
  // Inputs and outputs declared from the model, so the file says what runs: without them hone serve (as Triton)
  // would give a batchable model max_batch_size 4 and a dynamic batcher, and "no batching" would not be what served.
  if (!metadata.inputs.empty()) {
    serve::CompletionOptions no_default_batching;
    no_default_batching.default_max_batch_size = 0;
    inference::ModelConfig completed = config;
    if (serve::CompleteFromModel(metadata, no_default_batching, {"tune candidate " + c.id, ""}, &completed).ok()) {
      config = std::move(completed);
    }
  }
  AddWarmup(c, metadata, config);
  return serve::ModelConfigToText(config);
}

Status WriteRepository(const Candidate& c, const std::string& model_name, const runtime::ModelMetadata& metadata,
                       const std::string& repository) {
  std::error_code ec;
  if (fs::exists(repository, ec)) {
    return Status::InvalidArgument(fmt::format("repository '{}' exists already", repository));
  }
  fs::path version_dir = fs::path(repository) / model_name / "1";
  fs::create_directories(version_dir, ec);
  if (ec) return Status::NotFound(fmt::format("cannot create '{}': {}", version_dir.string(), ec.message()));
  fs::copy_file(c.model_path, version_dir / "model.onnx", ec);
  if (ec) return Status::NotFound(fmt::format("cannot copy '{}': {}", c.model_path, ec.message()));
  // External weights keep the name the graph refers to.
  fs::path data = fs::path(c.model_path).string() + ".data";
  if (fs::exists(data, ec)) {
    fs::copy_file(data, version_dir / data.filename(), ec);
    if (ec) return Status::NotFound(fmt::format("cannot copy '{}': {}", data.string(), ec.message()));
  }
  std::string text = CandidateConfigText(c, model_name, metadata);
  fs::path config_path = fs::path(repository) / model_name / "config.pbtxt";
  return WriteFileAtomically(config_path.string(), text);
}

std::string ModelNameFromPath(const std::string& path) {
  std::string stem = fs::path(path).stem().string();
  std::string name;
  for (char ch : stem) {
    bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                ch == '-';
    name += keep ? ch : '_';
  }
  while (!name.empty() && (name.front() == '_' || name.front() == '-')) name.erase(name.begin());
  return name.empty() ? "model" : name;
}

}  // namespace hone::tune
