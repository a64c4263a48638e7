#include "serve/core/generative_model.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <chrono>

#include "serve/core/metrics.h"

namespace hone::serve {
namespace {

double Seconds(generate::Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

GenerativeModel::GenerativeModel(std::string name, int64_t version, std::unique_ptr<generate::Engine> engine,
                                 std::shared_ptr<LlmMetrics> metrics, int64_t default_max_tokens)
    : name_(std::move(name)),
      version_(version),
      created_(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                   .count()),
      engine_(std::move(engine)),
      metrics_(std::move(metrics)),
      default_max_tokens_(default_max_tokens) {
  RefreshGauges();
}

GenerativeModel::~GenerativeModel() { engine_->Stop(generate::Clock::now()); }

void GenerativeModel::Stop(generate::Clock::time_point deadline) {
  engine_->Stop(deadline);
  RefreshGauges();
}

void GenerativeModel::RefreshGauges() const {
  if (!metrics_) return;
  const generate::EngineStats s = engine_->Stats();
  metrics_->running.Set(static_cast<double>(s.running));
  metrics_->waiting.Set(static_cast<double>(s.waiting));
  metrics_->kv_blocks_total.Set(static_cast<double>(s.kv_blocks_total));
  metrics_->kv_blocks_reserved.Set(static_cast<double>(s.kv_blocks_reserved));
  metrics_->kv_blocks_used.Set(static_cast<double>(s.kv_blocks_used));
  metrics_->kv_blocks_cached.Set(static_cast<double>(s.kv_blocks_cached));
  metrics_->kv_bytes_total.Set(static_cast<double>(s.kv_blocks_total * s.kv_bytes_per_block));
}

Result<std::shared_ptr<generate::Generation>> GenerativeModel::Submit(generate::GenerationRequest request,
                                                                      generate::UpdateCallback on_update) {
  if (!request.max_tokens && default_max_tokens_ > 0) request.max_tokens = default_max_tokens_;
  if (!metrics_) return engine_->Submit(std::move(request), std::move(on_update));
  // The callback runs on the engine thread only, one request at a time: `last` needs no lock.
  auto last = std::make_shared<generate::Clock::time_point>();
  auto recorded = [this, last, inner = std::move(on_update)](const generate::GenerationUpdate& u) {
    LlmMetrics& m = *metrics_;
    if (u.new_token) {
      m.generation_tokens.Increment();
      if (last->time_since_epoch().count() != 0) m.inter_token_latency.Observe(Seconds(u.time - *last));
      *last = u.time;
    }
    if (u.finish) {
      const generate::GenerationTimes& t = u.times;
      if (u.completion_tokens > 0) {
        m.time_to_first_token.Observe(Seconds(t.first_token - t.arrival));
        m.e2e_latency.Observe(Seconds(t.last_token - t.arrival));
        if (u.completion_tokens > 1)
          m.time_per_output_token.Observe(Seconds(t.last_token - t.first_token) / double(u.completion_tokens - 1));
      }
      if (t.admitted.time_since_epoch().count() != 0) {
        m.queue_time.Observe(Seconds(t.admitted - t.arrival));
        m.prompt_tokens.Increment(static_cast<double>(u.prompt_tokens));
        m.prompt_tokens_cached.Increment(static_cast<double>(u.cached_tokens));
      }
      switch (*u.finish) {
        case generate::FinishReason::kStop: m.finished_stop.Increment(); break;
        case generate::FinishReason::kLength: m.finished_length.Increment(); break;
        case generate::FinishReason::kCancelled: m.finished_cancelled.Increment(); break;
        case generate::FinishReason::kError: m.finished_error.Increment(); break;
      }
    }
    inner(u);
    if (u.finish || u.completion_tokens <= 1) RefreshGauges();
  };
  auto submitted = engine_->Submit(std::move(request), std::move(recorded));
  if (!submitted.ok()) metrics_->finished_error.Increment();
  RefreshGauges();
  return submitted;
}

}  // namespace hone::serve
