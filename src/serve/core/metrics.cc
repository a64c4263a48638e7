#include "serve/core/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

namespace hone::serve {
namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

Family<Counter>& CounterFamily(prometheus::Registry& r, const std::string& name, const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

Family<Histogram>& HistogramFamily(prometheus::Registry& r, const std::string& name, const std::string& help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r);
}

}  // namespace

struct MetricsRegistry::Impl {
  prometheus::Registry registry;
  // Triton's series.
  Family<Counter>& success = CounterFamily(registry, "nv_inference_request_success",
                                           "Successful inference requests (all batch sizes)");
  Family<Counter>& failure = CounterFamily(registry, "nv_inference_request_failure",
                                           "Failed inference requests (all batch sizes)");
  Family<Counter>& count = CounterFamily(registry, "nv_inference_count",
                                         "Inferences performed: batch rows of successful requests");
  Family<Counter>& exec_count = CounterFamily(registry, "nv_inference_exec_count",
                                              "Model executions (batches) performed");
  Family<Counter>& request_us = CounterFamily(registry, "nv_inference_request_duration_us",
                                              "Cumulative request duration, arrival to response, in microseconds");
  Family<Counter>& queue_us = CounterFamily(registry, "nv_inference_queue_duration_us",
                                            "Cumulative time requests spent queued, in microseconds");
  Family<Counter>& input_us = CounterFamily(registry, "nv_inference_compute_input_duration_us",
                                            "Cumulative time preparing batch inputs, per request, in microseconds");
  Family<Counter>& infer_us = CounterFamily(registry, "nv_inference_compute_infer_duration_us",
                                            "Cumulative model execution time, per request, in microseconds");
  Family<Counter>& output_us = CounterFamily(registry, "nv_inference_compute_output_duration_us",
                                             "Cumulative time splitting batch outputs, per request, in microseconds");
  Family<Gauge>& pending = prometheus::BuildGauge()
                               .Name("nv_inference_pending_request_count")
                               .Help("Requests queued or running now")
                               .Register(registry);
  // hone's histograms.
  Family<Histogram>& request_seconds = HistogramFamily(registry, "hone_request_duration_seconds",
                                                       "Request duration, arrival to response, successful requests");
  Family<Histogram>& queue_seconds = HistogramFamily(registry, "hone_queue_duration_seconds",
                                                     "Time successful requests spent queued");
  Family<Histogram>& compute_seconds = HistogramFamily(
      registry, "hone_compute_duration_seconds", "Compute time (input, infer, output) of successful requests");
  Family<Histogram>& batch_size = HistogramFamily(registry, "hone_batch_size", "Rows per model execution");

  // Text generation.
  Family<Histogram>& ttft = HistogramFamily(registry, "hone_llm_time_to_first_token_seconds",
                                            "Time from a generation request's arrival to its first token");
  Family<Histogram>& itl = HistogramFamily(registry, "hone_llm_inter_token_latency_seconds",
                                           "Time between consecutive generated tokens of a request");
  Family<Histogram>& tpot = HistogramFamily(registry, "hone_llm_time_per_output_token_seconds",
                                            "Per request: (last token - first token) / (tokens - 1)");
  Family<Histogram>& e2e = HistogramFamily(registry, "hone_llm_e2e_request_latency_seconds",
                                           "Time from a generation request's arrival to its last token");
  Family<Histogram>& llm_queue = HistogramFamily(registry, "hone_llm_queue_time_seconds",
                                                 "Time from arrival to admission into the running batch");
  Family<Counter>& prompt_tokens = CounterFamily(registry, "hone_llm_prompt_tokens_total", "Prompt tokens processed");
  Family<Counter>& prompt_tokens_cached = CounterFamily(registry, "hone_llm_prompt_tokens_cached_total",
                                                        "Prompt tokens taken from the prefix cache, not computed");
  Family<Counter>& generation_tokens = CounterFamily(registry, "hone_llm_generation_tokens_total",
                                                     "Tokens generated");
  Family<Counter>& finished = CounterFamily(registry, "hone_llm_requests_finished_total",
                                            "Generation requests finished, by finish reason");
  Family<Gauge>& running = prometheus::BuildGauge().Name("hone_llm_requests_running")
                               .Help("Requests in the running batch").Register(registry);
  Family<Gauge>& waiting = prometheus::BuildGauge().Name("hone_llm_requests_waiting")
                               .Help("Requests waiting for admission").Register(registry);
  Family<Gauge>& kv_total = prometheus::BuildGauge().Name("hone_llm_kv_cache_blocks_total")
                                .Help("KV cache blocks (the budget)").Register(registry);
  Family<Gauge>& kv_reserved = prometheus::BuildGauge().Name("hone_llm_kv_cache_blocks_reserved")
                                   .Help("KV cache blocks reserved by running requests").Register(registry);
  Family<Gauge>& kv_used = prometheus::BuildGauge().Name("hone_llm_kv_cache_blocks_used")
                               .Help("KV cache blocks holding written positions").Register(registry);
  Family<Gauge>& kv_cached = prometheus::BuildGauge().Name("hone_llm_kv_cache_blocks_cached")
                                 .Help("KV cache blocks in the prefix cache, held by a request or not")
                                 .Register(registry);
  Family<Gauge>& kv_bytes = prometheus::BuildGauge().Name("hone_llm_kv_cache_bytes_total")
                                .Help("Bytes allocated for the KV cache").Register(registry);

  std::mutex mu;  // guards models and llms
  struct Entry {
    int refs = 0;
    std::unique_ptr<ModelMetrics> metrics;
  };
  std::map<std::pair<std::string, int64_t>, Entry> models;
  struct LlmEntry {
    int refs = 0;
    std::unique_ptr<LlmMetrics> metrics;
  };
  std::map<std::pair<std::string, int64_t>, LlmEntry> llms;

  std::unique_ptr<LlmMetrics> CreateLlm(const prometheus::Labels& labels) {
    const auto& b = LlmLatencyBuckets();
    auto with = [&](std::string reason) {
      prometheus::Labels l = labels;
      l["finish_reason"] = std::move(reason);
      return l;
    };
    return std::unique_ptr<LlmMetrics>(new LlmMetrics{
        ttft.Add(labels, b), itl.Add(labels, b), tpot.Add(labels, b), e2e.Add(labels, b), llm_queue.Add(labels, b),
        prompt_tokens.Add(labels), prompt_tokens_cached.Add(labels), generation_tokens.Add(labels), finished.Add(with("stop")),
        finished.Add(with("length")), finished.Add(with("cancelled")), finished.Add(with("error")),
        running.Add(labels), waiting.Add(labels), kv_total.Add(labels), kv_reserved.Add(labels),
        kv_used.Add(labels), kv_cached.Add(labels), kv_bytes.Add(labels)});
  }
  void RemoveLlm(LlmMetrics& m) {
    ttft.Remove(&m.time_to_first_token);
    itl.Remove(&m.inter_token_latency);
    tpot.Remove(&m.time_per_output_token);
    e2e.Remove(&m.e2e_latency);
    llm_queue.Remove(&m.queue_time);
    prompt_tokens.Remove(&m.prompt_tokens);
    prompt_tokens_cached.Remove(&m.prompt_tokens_cached);
    generation_tokens.Remove(&m.generation_tokens);
    for (Counter* c : {&m.finished_stop, &m.finished_length, &m.finished_cancelled, &m.finished_error})
      finished.Remove(c);
    running.Remove(&m.running);
    waiting.Remove(&m.waiting);
    kv_total.Remove(&m.kv_blocks_total);
    kv_reserved.Remove(&m.kv_blocks_reserved);
    kv_used.Remove(&m.kv_blocks_used);
    kv_cached.Remove(&m.kv_blocks_cached);
    kv_bytes.Remove(&m.kv_bytes_total);
  }
  void ReleaseLlm(const std::pair<std::string, int64_t>& key) {
    std::lock_guard lock(mu);
    auto it = llms.find(key);
    if (it == llms.end() || --it->second.refs > 0) return;
    RemoveLlm(*it->second.metrics);
    llms.erase(it);
  }

  std::unique_ptr<ModelMetrics> Create(const prometheus::Labels& labels, int64_t max_batch_size) {
    const auto& latency = LatencyBuckets();
    return std::unique_ptr<ModelMetrics>(new ModelMetrics{
        success.Add(labels), failure.Add(labels), count.Add(labels), exec_count.Add(labels),
        request_us.Add(labels), queue_us.Add(labels), input_us.Add(labels), infer_us.Add(labels),
        output_us.Add(labels), pending.Add(labels), request_seconds.Add(labels, latency),
        queue_seconds.Add(labels, latency), compute_seconds.Add(labels, latency),
        batch_size.Add(labels, BatchSizeBuckets(max_batch_size))});
  }

  void Remove(ModelMetrics& m) {
    success.Remove(&m.request_success);
    failure.Remove(&m.request_failure);
    count.Remove(&m.inference_count);
    exec_count.Remove(&m.execution_count);
    request_us.Remove(&m.request_duration_us);
    queue_us.Remove(&m.queue_duration_us);
    input_us.Remove(&m.compute_input_duration_us);
    infer_us.Remove(&m.compute_infer_duration_us);
    output_us.Remove(&m.compute_output_duration_us);
    pending.Remove(&m.pending_requests);
    request_seconds.Remove(&m.request_seconds);
    queue_seconds.Remove(&m.queue_seconds);
    compute_seconds.Remove(&m.compute_seconds);
    batch_size.Remove(&m.batch_size);
  }

  // Reference counts live here, under mu, rather than in one shared_ptr per model: a handle released while
  // another is being created for the same labels must not remove the series the new one is about to use.
  void Release(const std::pair<std::string, int64_t>& key) {
    std::lock_guard lock(mu);
    auto it = models.find(key);
    if (it == models.end() || --it->second.refs > 0) return;
    Remove(*it->second.metrics);
    models.erase(it);
  }
};

MetricsRegistry::MetricsRegistry() : impl_(std::make_shared<Impl>()) {}
MetricsRegistry::~MetricsRegistry() = default;

std::shared_ptr<ModelMetrics> MetricsRegistry::ForModel(const std::string& name, int64_t version,
                                                        int64_t max_batch_size) {
  auto key = std::make_pair(name, version);
  std::lock_guard lock(impl_->mu);
  Impl::Entry& entry = impl_->models[key];
  if (entry.refs++ == 0)
    entry.metrics = impl_->Create({{"model", name}, {"version", std::to_string(version)}}, max_batch_size);
  // Each handle has its own control block whose deleter drops one reference; the last removes the series.
  return std::shared_ptr<ModelMetrics>(entry.metrics.get(),
                                       [impl = impl_, key](ModelMetrics*) { impl->Release(key); });
}

std::shared_ptr<LlmMetrics> MetricsRegistry::ForLlm(const std::string& name, int64_t version) {
  auto key = std::make_pair(name, version);
  std::lock_guard lock(impl_->mu);
  Impl::LlmEntry& entry = impl_->llms[key];
  if (entry.refs++ == 0) entry.metrics = impl_->CreateLlm({{"model", name}, {"version", std::to_string(version)}});
  return std::shared_ptr<LlmMetrics>(entry.metrics.get(),
                                     [impl = impl_, key](LlmMetrics*) { impl->ReleaseLlm(key); });
}

const std::vector<double>& MetricsRegistry::LlmLatencyBuckets() {
  static const std::vector<double> buckets = [] {
    const int r10[] = {100, 125, 160, 200, 250, 315, 400, 500, 630, 800};  // x 10^-2
    std::vector<double> b;
    for (int exponent = -5; exponent <= 0; ++exponent)  // 100e-5 s = 1 ms ... 800e0 s
      for (int m : r10)
        if (exponent < 0 || m < 125) b.push_back(std::stod(std::to_string(m) + "e" + std::to_string(exponent)));
    return b;  // ... 100 s
  }();
  return buckets;
}

prometheus::Registry& MetricsRegistry::registry() { return impl_->registry; }

std::string MetricsRegistry::Text() const {
  return prometheus::TextSerializer().Serialize(impl_->registry.Collect());
}

const std::vector<double>& MetricsRegistry::LatencyBuckets() {
  static const std::vector<double> buckets = [] {
    // The R10 preferred numbers, ten per decade, each about 1.26 times the one before. Parsed from decimal text
    // so that each bound is the double nearest its decimal value and prints as written ("1.25e-05").
    const int r10[] = {100, 125, 160, 200, 250, 315, 400, 500, 630, 800};  // x 10^-2
    std::vector<double> b;
    for (int exponent = -7; exponent <= -2; ++exponent)  // 100e-7 s = 10 us ... 800e-2 s = 8 s
      for (int m : r10) b.push_back(std::stod(std::to_string(m) + "e" + std::to_string(exponent)));
    b.push_back(10.0);
    return b;
  }();
  return buckets;
}

std::vector<double> MetricsRegistry::BatchSizeBuckets(int64_t max_batch_size) {
  std::vector<double> b;
  const int64_t top = std::max<int64_t>(max_batch_size, 1);
  for (int64_t n = 1; n <= std::min<int64_t>(top, 8); ++n) b.push_back(static_cast<double>(n));
  for (int64_t n = 16; n < top; n *= 2) b.push_back(static_cast<double>(n));
  if (top > 8) b.push_back(static_cast<double>(top));
  return b;
}

}  // namespace hone::serve
