#include "serve/core/loaded_version.h"

#include <chrono>
#include <filesystem>

#include "base/log.h"
#include "process/stage.h"
#include "runtime/session.h"
#include "serve/config/batch_timing.h"
#include "serve/config/config_complete.h"
#include "serve/config/config_types.h"
#include "serve/config/ensemble_config.h"
#include "serve/config/onnx_parameters.h"
#include "serve/config/repository.h"
#include "serve/config/warmup.h"
#include "serve/core/batch_check.h"
#include "serve/core/classification.h"
#include "serve/core/ensemble_load.h"
#include "serve/core/generator_load.h"
#include "serve/config/llm_config.h"
#include "serve/core/generative_model.h"
#include "serve/core/scheduler_config.h"

namespace hone::serve {
namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// "'x' FP32 [1, 3], 'ids' INT64 [1]": what a warm-up sample gave the model, for its errors.
std::string Describe(const std::vector<NamedTensor>& inputs) {
  std::string out;
  for (const NamedTensor& in : inputs)
    out += fmt::format("{}'{}' {} {}", out.empty() ? "" : ", ", in.name, DataTypeName(in.tensor.type()),
                       DimsToString(in.tensor.shape()));
  return out;
}

// Runs `sample` `count` times on `session`. Samples carry request-side shapes; the config's reshapes give the
// model's, exactly as for a request.
Status RunSample(const ModelInstance& session, const IoReshape& reshape, const WarmupSample& sample) {
  const runtime::ModelMetadata& model = session.metadata();
  InferenceRequest request;
  request.inputs = sample.inputs;
  const std::string what = fmt::format("warm-up sample '{}' (inputs {})", sample.name, Describe(sample.inputs));
  HONE_RETURN_IF_ERROR(reshape.Inputs(request).WithContext(what));
  std::vector<Tensor> ordered(model.inputs.size());
  for (NamedTensor& input : request.inputs) {
    int index = model.FindInput(input.name);
    if (index < 0) continue;  // an optional config input the model lacks cannot happen after completion
    ordered[static_cast<size_t>(index)] = std::move(input.tensor);
  }
  for (uint32_t i = 0; i < std::max<uint32_t>(sample.count, 1); ++i) {
    Result<std::vector<Tensor>> outputs = session.Run(ordered);
    if (!outputs.ok()) return outputs.status().WithContext(what);
  }
  return Status::Ok();
}

// hone's own warm-up on `sessions`: the first candidate that runs on the first instance, then on the others. Never
// fails: a model that takes none of the candidates loads unwarmed, and the log says why. Whether one ran.
bool DefaultWarmUp(const std::vector<std::unique_ptr<ModelInstance>>& sessions,
                   const inference::ModelConfig& config, const IoReshape& reshape, const ConfigSource& source,
                   const std::string& label) {
  std::string tried, last_error;
  for (const GeneratedSampleSpec& spec : DefaultWarmupCandidates()) {
    Result<WarmupSample> sample = GenerateSample(config, spec, "default (" + spec.ToString() + ")", source);
    if (!sample.ok()) {
      LogWarning("{}: skipping hone's default warm-up: {} (give model_warmup in config.pbtxt to warm it up)",
                 label, sample.status().message());
      return false;
    }
    Status s = RunSample(*sessions.front(), reshape, *sample);
    if (!s.ok()) {
      tried += fmt::format("{}{}", tried.empty() ? "" : "; ", spec.ToString());
      last_error = s.message();
      continue;
    }
    if (!tried.empty())
      LogInfo("{}: default warm-up: {} ran after {} failed ({})", label, sample->name, tried, last_error);
    for (size_t i = 1; i < sessions.size(); ++i) {
      if (Status other = RunSample(*sessions[i], reshape, *sample); !other.ok())
        LogWarning("{}: instance {} skipped the default warm-up: {}", label, i, other.message());
    }
    return true;
  }
  LogWarning("{}: skipping hone's default warm-up: the model ran none of the inputs hone generated (tried {}; the "
             "last: {}); the model loads, its first requests may be slower; give model_warmup in config.pbtxt, or "
             "--default-warmup=false not to try",
             label, tried, last_error);
  return false;
}

// Checks batching that hone inferred (the config set no max_batch_size) and, when the check fails, completes the
// config again without batching. `request` is what the config was completed from.
Status CheckClaimedBatching(const ModelInstance& session, const LoadVersionRequest& request,
                            const CompletionOptions& completion, const std::string& label,
                            inference::ModelConfig* config) {
  // A max_batch_size the config sets is the user's choice: checking it would cost three runs of a model that may
  // take seconds per run, at every load, to say what the user decided already.
  if (config->max_batch_size() <= 0 || request.config.max_batch_size() != 0) return Status::Ok();
  Result<BatchCheck> check = CheckBatching(session, *config, request.source);
  BatchCheck verdict = check.ok() ? *check : BatchCheck{false, "could not be checked: " + check.status().message()};
  if (verdict.safe) return Status::Ok();
  LogWarning("{}: not batching (max_batch_size 0): {}; set max_batch_size in config.pbtxt to batch anyway", label,
             verdict.why);
  *config = request.config;
  CompletionOptions no_batching = completion;
  no_batching.default_max_batch_size = 0;
  ApplyConfigDefaults(request.source, no_batching, config);
  return CompleteFromModel(session.metadata(), no_batching, request.source, config);
}

// The instances of a processing stage: its parameters are the config's, less those the scheduler reads.
Result<std::vector<std::unique_ptr<ModelInstance>>> OpenStages(const LoadVersionRequest& request,
                                                               const inference::ModelConfig& config) {
  process::StageConfig stage;
  stage.kind = config.backend();
  stage.directory = (std::filesystem::path(request.model_dir) / std::to_string(request.version)).string();
  for (const auto& [key, value] : config.parameters())
    if (key != kBatchTiming) stage.parameters[key] = value.string_value();
  std::vector<std::unique_ptr<ModelInstance>> instances;
  for (int i = 0; i < TotalInstanceCount(config); ++i) {
    Result<std::unique_ptr<process::Stage>> created = process::CreateStage(stage);
    if (!created.ok()) return created.status().WithContext(request.source.where);
    instances.push_back(StageInstance(std::move(created).value()));
  }
  return instances;
}

Result<std::vector<std::unique_ptr<ModelInstance>>> OpenSessions(const LoadVersionRequest& request,
                                                                 const inference::ModelConfig& config,
                                                                 const runtime::SessionOptions& options) {
  const std::string path = ModelFilePath(request.model_dir, request.version, config);
  std::vector<std::unique_ptr<ModelInstance>> instances;
  for (int i = 0; i < TotalInstanceCount(config); ++i) {
    HONE_ASSIGN_OR_RETURN(auto session, runtime::Session::Open(path, options));
    instances.push_back(SessionInstance(std::move(session)));
  }
  return instances;
}

}  // namespace

void EnqueueOn(const LoadedVersion& version, InferenceRequest request, ResponseCallback done) {
  if (!request.classifications.empty()) {
    // The classification extension: the outputs asked for come back as their top classes, after the reshapes.
    for (const auto& [name, k] : request.classifications)
      if (version.metadata.FindOutput(name) < 0) {
        version.stats->RecordFailure(0);
        return done(Status::InvalidArgument(fmt::format("model '{}' version {}: output '{}' (classification): the "
                                                        "model has no such output",
                                                        version.name, version.version, name)));
      }
    done = [classify = request.classifications, labels = version.labels,
            batched = version.config.max_batch_size() > 0,
            done = std::move(done)](Result<InferenceResponse> result) {
      if (result.ok()) {
        for (NamedTensor& out : result->outputs)
          for (const auto& [name, k] : classify) {
            if (out.name != name) continue;
            const std::vector<std::string>* names = nullptr;
            if (labels)
              if (auto it = labels->find(name); it != labels->end()) names = &it->second;
            Result<Tensor> classes = ClassifyOutput(out.tensor, k, batched, names, name);
            if (!classes.ok()) return done(classes.status());
            out.tensor = std::move(*classes);
          }
      }
      done(std::move(result));
    };
  }
  if (version.reshape && !version.reshape->empty()) {
    // Client shapes to the model's on the way in, back on the way out (serve/config/reshape.h).
    if (Status s = version.reshape->Inputs(request); !s.ok()) {
      version.stats->RecordFailure(0);
      done(s.WithContext(fmt::format("model '{}' version {}", version.name, version.version)));
      return;
    }
    done = [reshape = version.reshape, done = std::move(done)](Result<InferenceResponse> result) {
      if (result.ok()) reshape->Outputs(*result);
      done(std::move(result));
    };
  }
  version.scheduler->Enqueue(std::move(request), std::move(done));
}

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
  {
    Result<std::map<std::string, std::vector<std::string>>> labels = ReadOutputLabels(config, request.model_dir);
    if (!labels.ok()) return labels.status().WithContext(request.source.where);
    loaded->labels = std::make_shared<const std::map<std::string, std::vector<std::string>>>(std::move(*labels));
  }
  if (IsEnsemble(config)) {
    HONE_RETURN_IF_ERROR(LoadEnsemble(request, *loaded));
    return loaded;
  }
  if (IsLlm(config)) {
    HONE_RETURN_IF_ERROR(LoadGenerator(request, *loaded));
    return loaded;
  }
  // A processing stage batches by contract (process/stage.h) and runs no ONNX Runtime session.
  const bool stage = process::IsStageKind(config.backend());
  runtime::SessionOptions session_options;
  if (!stage) {
    HONE_ASSIGN_OR_RETURN(session_options, SessionOptionsFromConfig(config));
  }
  const int instances = TotalInstanceCount(config);
  std::vector<std::unique_ptr<ModelInstance>> sessions;
  if (stage) {
    HONE_ASSIGN_OR_RETURN(sessions, OpenStages(request, config));
  } else {
    HONE_ASSIGN_OR_RETURN(sessions, OpenSessions(request, config, session_options));
  }
  HONE_RETURN_IF_ERROR(CompleteFromModel(sessions.front()->metadata(), completion, request.source, &config));
  const std::string label = fmt::format("model '{}' version {}", loaded->name, request.version);
  if (!stage) HONE_RETURN_IF_ERROR(CheckClaimedBatching(*sessions.front(), request, completion, label, &config));
  loaded->metadata = sessions.front()->metadata();
  // Printing the config costs a protobuf walk: only when someone reads it.
  if (LogVerboseEnabled(1)) LogVerbose(1, "{}: completed config: {}", label, config.ShortDebugString());
  loaded->reshape = std::make_shared<const IoReshape>(config);
  double open_ms = MillisSince(start);

  // Not ready until every instance has run the warm-up: the first requests after load are the slow ones.
  Clock::time_point warm_start = Clock::now();
  HONE_ASSIGN_OR_RETURN(std::vector<WarmupSample> samples,
                        BuildWarmupSamples(config, request.model_dir, request.source));
  for (const auto& session : sessions)
    for (const WarmupSample& sample : samples) HONE_RETURN_IF_ERROR(RunSample(*session, *loaded->reshape, sample));
  std::string warmed = std::to_string(samples.size()) + " model_warmup sample(s)";
  if (samples.empty()) {
    // A stage has no kernels to compile or arenas to grow: nothing to warm.
    const bool ran = request.default_warmup && !stage &&
                     DefaultWarmUp(sessions, config, *loaded->reshape, request.source, label);
    warmed = ran ? "hone's default sample" : "no warm-up";
  }
  double warm_ms = MillisSince(warm_start);

  const std::string runs = stage ? sessions.front()->source()
                                 : fmt::format("{} intra-op thread(s)", session_options.intra_op_threads);
  loaded->stats = std::make_unique<ModelStats>(loaded->name, request.version, config.max_batch_size(),
                                               request.metrics);
  HONE_ASSIGN_OR_RETURN(loaded->scheduler, Scheduler::Create(SchedulerOptionsFromConfig(config, request.version),
                                                             std::move(sessions), loaded->stats.get()));
  Log(LogLevel::kInfo, {{"model", loaded->name}, {"version", request.version}},
      "model '{}' version {}: {} instance(s) x {} ({} core(s) shared), max_batch_size {}, "
          "{}; opened in {:.1f} ms, warmed up ({}) in {:.1f} ms",
          loaded->name, request.version, instances,
          runs,
          request.cores,
          config.max_batch_size(),
          config.has_dynamic_batching()
              ? fmt::format("dynamic batching ({}, max_queue_delay {} us, preferred sizes [{}])",
                            BatchTimingFromConfig(config).ok() && *BatchTimingFromConfig(config) == BatchTiming::kTriton
                                ? "Triton's timing: a batch waits out the delay"
                                : "work-conserving: no wait while an instance is free",
                            config.dynamic_batching().max_queue_delay_microseconds(),
                            fmt::join(config.dynamic_batching().preferred_batch_size(), ", "))
              : std::string("no dynamic batching"),
          open_ms, warmed, warm_ms);
  if (!stage)
    LogVerbose(1, "model '{}' version {}: session {}", loaded->name, request.version, session_options.ToString());
  return loaded;
}

}  // namespace hone::serve
