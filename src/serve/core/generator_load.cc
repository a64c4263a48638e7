#include "serve/core/generator_load.h"

#include <filesystem>
#include <future>
#include <system_error>

#include <fmt/format.h>

#include "base/log.h"
#include "runtime/prefault.h"
#include "serve/config/llm_config.h"
#include "serve/config/onnx_parameters.h"
#include "serve/config/repository.h"
#include "serve/core/generate_scheduler.h"
#include "serve/core/generative_model.h"
#include "serve/core/metrics.h"

namespace hone::serve {
namespace {

using Clock = std::chrono::steady_clock;

// Generates two tokens, so that the first real request does not pay for ONNX Runtime's first runs (kernel
// selection, arena growth) in its time to first token.
Status WarmUp(generate::Engine& engine) {
  generate::GenerationRequest r;
  r.prompt = "Hello";
  r.max_tokens = 2;
  r.sampling.temperature = 0;
  r.ignore_eos = true;
  auto done = std::make_shared<std::promise<Status>>();
  std::future<Status> result = done->get_future();
  HONE_RETURN_IF_ERROR(engine.Submit(r, [done](const generate::GenerationUpdate& u) {
                               if (u.finish) done->set_value(u.error);
                             }).status());
  if (result.wait_for(std::chrono::minutes(5)) != std::future_status::ready)
    return Status::Internal("the warm-up generation did not finish within 5 minutes");
  return result.get();
}

// Adds a one-element TYPE_STRING tensor named `name` to a config's inputs or outputs, unless it is there already.
template <typename Io>
void AddTextTensor(google::protobuf::RepeatedPtrField<Io>* list, const std::string& name) {
  for (const auto& io : *list)
    if (io.name() == name) return;
  auto* io = list->Add();
  io->set_name(name);
  io->set_data_type(inference::TYPE_STRING);
  io->add_dims(1);
}

}  // namespace

Status LoadGenerator(const LoadVersionRequest& request, LoadedVersion& loaded) {
  const Clock::time_point start = Clock::now();
  inference::ModelConfig& config = loaded.config;
  HONE_ASSIGN_OR_RETURN(LlmParameters params, LlmParametersFromConfig(config, request.source));
  const std::filesystem::path dir = std::filesystem::path(request.model_dir) / std::to_string(request.version);
  generate::EngineOptions options;
  options.model_path = ModelFilePath(request.model_dir, request.version, config);
  options.tokenizer_path = (dir / params.tokenizer_file).string();
  options.session = ServedSessionDefaults();
  // The engine runs one step after another, each some 600 small operators: pool threads that sleep between
  // operators made a SmolLM2 decode step 12.0 ms instead of 7.8 (hone bench --spin off/on, 2 cores). They spin
  // inside a step and stop when it ends, so an idle engine burns no core.
  options.session.allow_spinning = true;
  options.session.stop_spinning_after_run = true;
  options.session.intra_op_threads = params.intra_op_threads;
  options.kv_cache_bytes = params.kv_cache_bytes;
  options.kv_cache_tokens = params.kv_cache_tokens;
  options.block_tokens = params.block_tokens;
  options.max_step_tokens = params.max_step_tokens;
  options.max_running = params.max_running;
  options.max_waiting = params.max_waiting;
  options.context_length = params.context_length;
  options.prefix_cache = params.prefix_cache;
  if (params.kv_cache_dtype) {
    switch (*params.kv_cache_dtype) {
      case serve::KvCacheDtype::kFloat32: options.kv_dtype = generate::KvDtype::kFloat32; break;
      case serve::KvCacheDtype::kFloat16: options.kv_dtype = generate::KvDtype::kFloat16; break;
      case serve::KvCacheDtype::kInt8: options.kv_dtype = generate::KvDtype::kInt8; break;
    }
  }
  Result<std::unique_ptr<generate::Engine>> engine = generate::Engine::Open(options);
  if (!engine.ok()) return engine.status().WithContext(request.source.where);
  const double open_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const Clock::time_point warm_start = Clock::now();
  if (Status warm = WarmUp(**engine); !warm.ok()) return warm.WithContext(request.source.where + ": warm-up");
  const double warm_ms = std::chrono::duration<double, std::milli>(Clock::now() - warm_start).count();
  // The weights ONNX Runtime maps from the model's folder (hone quantize --external-data) resident now, not a page
  // at a time under the first requests (runtime/prefault.h). Where the model file is a link, the folder it lies in.
  std::error_code ec;
  std::filesystem::path model_file = std::filesystem::canonical(options.model_path, ec);
  if (ec) model_file = options.model_path;
  const Result<int64_t> mapped = runtime::PrefaultMappedFiles(model_file.parent_path());

  AddTextTensor(config.mutable_input(), "text_input");
  AddTextTensor(config.mutable_output(), "text_output");
  runtime::IoSpec text_in{"text_input", DataType::kBytes, "string", {1}, {""}};
  runtime::IoSpec text_out{"text_output", DataType::kBytes, "string", {1}, {""}};
  loaded.metadata.inputs = {text_in};
  loaded.metadata.outputs = {text_out};
  loaded.metadata.producer = "hone_llm";
  loaded.reshape = std::make_shared<const IoReshape>(config);
  loaded.stats = std::make_unique<ModelStats>(loaded.name, loaded.version, 0, request.metrics);

  const generate::EngineStats stats = (*engine)->Stats();
  const generate::DecoderShape shape = (*engine)->shape();
  const int64_t context = (*engine)->context_length();
  loaded.generative = std::make_shared<GenerativeModel>(
      loaded.name, loaded.version, std::move(*engine),
      request.metrics ? request.metrics->ForLlm(loaded.name, loaded.version) : nullptr, params.default_max_tokens);
  loaded.scheduler = CreateGenerateScheduler(loaded.generative, loaded.stats.get());
  Log(LogLevel::kInfo, {{"model", loaded.name}, {"version", loaded.version}},
      "model '{}' version {}: text generation, {} layers, vocabulary {}, context {} tokens; KV cache {} blocks x {} "
      "tokens ({:.1f} MiB, {} tokens), up to {} running, {} tokens a step; {} intra-op thread(s); {:.1f} MiB of "
      "mapped weights resident; opened in {:.0f} ms, warmed up in {:.0f} ms",
      loaded.name, loaded.version, shape.layers, shape.vocab, context, stats.kv_blocks_total, stats.block_tokens,
      double(stats.kv_blocks_total * stats.kv_bytes_per_block) / (1 << 20), stats.kv_blocks_total * stats.block_tokens,
      params.max_running, params.max_step_tokens, params.intra_op_threads,
      double(mapped.ok() ? *mapped : 0) / (1 << 20), open_ms, warm_ms);
  return Status::Ok();
}

}  // namespace hone::serve
