// The server's Prometheus metrics: a prometheus-cpp registry with the per-model series, and its text exposition.
//
// Per model version, labelled {model="<name>", version="<n>"}:
//   Triton's names and meanings, so that dashboards built for Triton work unchanged:
//     nv_inference_request_success, nv_inference_request_failure   counters: requests, by outcome
//     nv_inference_count, nv_inference_exec_count                   counters: inferences (batch rows), executions
//     nv_inference_request_duration_us, nv_inference_queue_duration_us,
//     nv_inference_compute_{input,infer,output}_duration_us         counters: cumulative us (successful requests)
//     nv_inference_pending_request_count                            gauge: requests queued or running
//   hone's histograms, for percentiles with histogram_quantile():
//     hone_request_duration_seconds   arrival to response, successful requests
//     hone_queue_duration_seconds     arrival to leaving the queue, successful requests
//     hone_compute_duration_seconds   input + infer + output of the request's batch, successful requests
//     hone_batch_size                 rows per execution (one observation per executed batch)
//   Latency buckets run from 10 us to 10 s on the R10 series (1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8 per
//   decade): adjacent bounds differ by at most 28%, so a quantile interpolated inside a bucket is off by less
//   than that and usually much less.
//
// Per text-generation model version (backend hone_llm), the same labels:
//     hone_llm_time_to_first_token_seconds     arrival to the first generated token
//     hone_llm_inter_token_latency_seconds     between consecutive generated tokens of a request
//     hone_llm_time_per_output_token_seconds   (last token - first token) / (tokens - 1), per request
//     hone_llm_e2e_request_latency_seconds     arrival to the last token
//     hone_llm_queue_time_seconds              arrival to admission into the running batch
//     hone_llm_prompt_tokens_total, hone_llm_generation_tokens_total   counters
//     hone_llm_requests_finished_total{finish_reason="stop|length|cancelled|error"}
//     hone_llm_requests_running, hone_llm_requests_waiting             gauges
//     hone_llm_kv_cache_blocks_total, _reserved (held by running requests), _used (holding written positions),
//     hone_llm_kv_cache_bytes_total                                    gauges
//   Their latency buckets run from 1 ms to 100 s on the R10 series.
//
// Thread safety: every method may be called from any thread; series handles are safe to update concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
class Registry;
}  // namespace prometheus

namespace hone::serve {

// The series of one model version. References stay valid while the handle that ForModel returned lives.
struct ModelMetrics {
  prometheus::Counter& request_success;
  prometheus::Counter& request_failure;
  prometheus::Counter& inference_count;
  prometheus::Counter& execution_count;
  prometheus::Counter& request_duration_us;
  prometheus::Counter& queue_duration_us;
  prometheus::Counter& compute_input_duration_us;
  prometheus::Counter& compute_infer_duration_us;
  prometheus::Counter& compute_output_duration_us;
  prometheus::Gauge& pending_requests;
  prometheus::Histogram& request_seconds;
  prometheus::Histogram& queue_seconds;
  prometheus::Histogram& compute_seconds;
  prometheus::Histogram& batch_size;
};

// The series of one text-generation model version.
struct LlmMetrics {
  prometheus::Histogram& time_to_first_token;
  prometheus::Histogram& inter_token_latency;
  prometheus::Histogram& time_per_output_token;
  prometheus::Histogram& e2e_latency;
  prometheus::Histogram& queue_time;
  prometheus::Counter& prompt_tokens;
  prometheus::Counter& prompt_tokens_cached;  // of prompt_tokens, taken from the prefix cache
  prometheus::Counter& generation_tokens;
  prometheus::Counter& finished_stop;
  prometheus::Counter& finished_length;
  prometheus::Counter& finished_cancelled;
  prometheus::Counter& finished_error;
  prometheus::Gauge& running;
  prometheus::Gauge& waiting;
  prometheus::Gauge& kv_blocks_total;
  prometheus::Gauge& kv_blocks_reserved;
  prometheus::Gauge& kv_blocks_used;
  prometheus::Gauge& kv_blocks_cached;
  prometheus::Gauge& kv_bytes_total;
};

class MetricsRegistry {
 public:
  MetricsRegistry();
  ~MetricsRegistry();  // handles from ForModel may outlive it (they keep what they refer to alive)
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // The series of {name, version}, created on first use. Every holder of the same model version shares them (a
  // reload of a version that is still serving continues its counters). When the last handle for a model version
  // is destroyed its series are removed from the exposition (the model version was unloaded).
  // `max_batch_size` sets hone_batch_size's buckets when the series are created.
  std::shared_ptr<ModelMetrics> ForModel(const std::string& name, int64_t version, int64_t max_batch_size);

  // The text-generation series of {name, version}; removed when the last handle goes, as ForModel's.
  std::shared_ptr<LlmMetrics> ForLlm(const std::string& name, int64_t version);

  // The registry, for server-wide series other parts add.
  prometheus::Registry& registry();

  // Everything registered, in Prometheus text exposition format 0.0.4.
  std::string Text() const;

  // The latency histograms' bucket upper bounds in seconds (10 us to 10 s, ascending).
  static const std::vector<double>& LatencyBuckets();
  // hone_batch_size's bucket upper bounds for a model: 1 to 8 one by one, then powers of two, then
  // max_batch_size itself.
  static std::vector<double> BatchSizeBuckets(int64_t max_batch_size);
  // The LLM latency histograms' bounds in seconds (1 ms to 100 s, ascending).
  static const std::vector<double>& LlmLatencyBuckets();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace hone::serve
