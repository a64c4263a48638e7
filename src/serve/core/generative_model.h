// A loaded text-generation model version (backend hone_llm) as the front ends see it: its generation engine, with
// every request's tokens and timings recorded in the Prometheus series (metrics.h, LlmMetrics) on the way.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "generate/engine.h"

namespace hone::serve {

struct LlmMetrics;

class GenerativeModel {
 public:
  // `metrics` may be null.
  GenerativeModel(std::string name, int64_t version, std::unique_ptr<generate::Engine> engine,
                  std::shared_ptr<LlmMetrics> metrics, int64_t default_max_tokens);
  ~GenerativeModel();

  const std::string& name() const { return name_; }
  int64_t version() const { return version_; }
  int64_t created_unix_seconds() const { return created_; }
  generate::Engine& engine() const { return *engine_; }
  // max_tokens for a request that names none (0: up to the context's end).
  int64_t default_max_tokens() const { return default_max_tokens_; }

  // Engine::Submit, recording the request in the metrics (a refused request is counted as finished with error).
  Result<std::shared_ptr<generate::Generation>> Submit(generate::GenerationRequest request,
                                                       generate::UpdateCallback on_update);
  // Stops the engine (see Engine::Stop).
  void Stop(generate::Clock::time_point deadline);

  // Sets the running/waiting/KV-cache gauges from the engine's stats now (the server calls it before every scrape;
  // they are also set as requests arrive and finish).
  void RefreshGauges() const;

 private:
  std::string name_;
  int64_t version_;
  int64_t created_;
  std::unique_ptr<generate::Engine> engine_;
  std::shared_ptr<LlmMetrics> metrics_;
  int64_t default_max_tokens_;
};

}  // namespace hone::serve
