#include "serve/core/loaded_version.h"

#include <chrono>

#include "base/log.h"
#include "runtime/session.h"
#include "serve/config/config_complete.h"
#include "serve/config/onnx_parameters.h"
#include "serve/config/repository.h"
#include "serve/config/warmup.h"
#include "serve/core/scheduler_config.h"

namespace hone::serve {
namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Runs every warm-up sample `count` times on `session`. Samples carry config-side shapes; a config reshape
// gives the model-side shape over the same bytes.
Status WarmUp(const runtime::Session& session, const inference::ModelConfig& config,
              const std::vector<WarmupSample>& samples) {
  const runtime::ModelMetadata& model = session.metadata();
  for (const WarmupSample& sample : samples) {
    std::vector<Tensor> ordered(model.inputs.size());
    for (const NamedTensor& input : sample.inputs) {
      int index = model.FindInput(input.name);
      if (index < 0) continue;  // an optional config input the model lacks cannot happen after completion
      Tensor tensor = input.tensor;
      for (const auto& declared : config.input()) {
        if (declared.name() != input.name || !declared.has_reshape()) continue;
        Shape shape;
        if (config.max_batch_size() > 0) shape.push_back(sample.batch_size);
        shape.insert(shape.end(), declared.reshape().shape().begin(), declared.reshape().shape().end());
        HONE_ASSIGN_OR_RETURN(tensor, Tensor::Borrow(tensor.type(), shape, tensor.mutable_data(), tensor.byte_size()));
      }
      ordered[static_cast<size_t>(index)] = std::move(tensor);
    }
    for (uint32_t i = 0; i < std::max<uint32_t>(sample.count, 1); ++i) {
      Result<std::vector<Tensor>> outputs = session.Run(ordered);
      if (!outputs.ok()) return outputs.status().WithContext(fmt::format("warm-up sample '{}'", sample.name));
    }
  }
  return Status::Ok();
}

}  // namespace

LoadedVersion::~LoadedVersion() {
  if (scheduler) scheduler->Stop(Clock::now() + std::chrono::seconds(5));
}

Result<std::shared_ptr<LoadedVersion>> LoadVersion(const LoadVersionRequest& request) {
  Clock::time_point start = Clock::now();
  auto loaded = std::make_shared<LoadedVersion>();
  loaded->name = request.source.model_name;
  loaded->version = request.version;
  inference::ModelConfig& config = loaded->config;
  config = request.config;

  CompletionOptions completion;
  completion.cores = request.cores;
  ApplyConfigDefaults(request.source, completion, &config);
  HONE_ASSIGN_OR_RETURN(runtime::SessionOptions session_options, SessionOptionsFromConfig(config));

  const std::string path = ModelFilePath(request.model_dir, request.version, config);
  const int instances = TotalInstanceCount(config);
  std::vector<std::unique_ptr<runtime::Session>> sessions;
  for (int i = 0; i < instances; ++i) {
    HONE_ASSIGN_OR_RETURN(auto session, runtime::Session::Open(path, session_options));
    sessions.push_back(std::move(session));
  }
  HONE_RETURN_IF_ERROR(CompleteFromModel(sessions.front()->metadata(), completion, request.source, &config));
  loaded->metadata = sessions.front()->metadata();
  double open_ms = MillisSince(start);

  // Not ready until every instance has run the warm-up: the first requests after load are the slow ones.
  Clock::time_point warm_start = Clock::now();
  HONE_ASSIGN_OR_RETURN(std::vector<WarmupSample> samples,
                        BuildWarmupSamples(config, request.model_dir, request.source));
  for (const auto& session : sessions) HONE_RETURN_IF_ERROR(WarmUp(*session, config, samples));
  double warm_ms = MillisSince(warm_start);

  loaded->stats = std::make_unique<ModelStats>(loaded->name, request.version, config.max_batch_size(),
                                               request.metrics);
  HONE_ASSIGN_OR_RETURN(loaded->scheduler, Scheduler::Create(SchedulerOptionsFromConfig(config, request.version),
                                                             std::move(sessions), loaded->stats.get()));
  LogInfo("model '{}' version {}: {} instance(s) x {} intra-op thread(s) ({} core(s) shared), max_batch_size {}, "
          "{}; opened in {:.1f} ms, warmed up ({} sample(s)) in {:.1f} ms",
          loaded->name, request.version, instances, session_options.intra_op_threads, request.cores,
          config.max_batch_size(),
          config.has_dynamic_batching()
              ? fmt::format("dynamic batching (max_queue_delay {} us, preferred sizes [{}])",
                            config.dynamic_batching().max_queue_delay_microseconds(),
                            fmt::join(config.dynamic_batching().preferred_batch_size(), ", "))
              : std::string("no dynamic batching"),
          open_ms, samples.size(), warm_ms);
  return loaded;
}

}  // namespace hone::serve
