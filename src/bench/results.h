// Raw results of a benchmark and the figures derived from them. Settings live in settings.h, the measuring in
// load_generator.h, the printing in report_*.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/latency_histogram.h"
#include "bench/settings.h"
#include "bench/stability.h"
#include "report/system_info.h"
#include "runtime/model_metadata.h"
#include "runtime/session_options.h"

namespace hone::bench {

// What the server says a point cost: the deltas of its statistics extension over the whole point (warm-up
// included), averaged per request, as perf_analyzer reports its server-side breakdown.
struct ServerBreakdown {
  uint64_t requests = 0;     // successful requests the server counted
  uint64_t failures = 0;     // failed ones
  uint64_t inferences = 0;   // rows inferred (a batch of 8 counts 8)
  uint64_t executions = 0;   // model executions (batches the server ran)
  double request_us = 0;     // per request: arrival to response, inside the server
  double queue_us = 0;
  double compute_input_us = 0;
  double compute_infer_us = 0;
  double compute_output_us = 0;

  // Rows per model execution: how well the server's batcher combined requests.
  double average_batch() const { return executions ? double(inferences) / double(executions) : 0; }
  // Time inside the server not spent queued or computing (parsing, scheduling, serialization).
  double overhead_us() const {
    double rest = request_us - queue_us - compute_input_us - compute_infer_us - compute_output_us;
    return rest > 0 ? rest : 0;
  }
};

// One step of an ensemble over a point (hone bench --url on an ensemble): the statistics of the step's model, per
// request of that model, and the step's share of the ensemble's server-side time (its requests' time inside the
// server over the ensemble's), so that a report shows when pre- or post-processing is the bottleneck.
struct StageBreakdown {
  std::string model;
  ServerBreakdown server;
  double share = 0;
};

// The client's side of each request, averaged over the successful requests of the reported windows whose target
// timed its phases (RequestPhases): perf_analyzer's "Client Send" and "Client Recv".
struct ClientBreakdown {
  uint64_t requests = 0;  // requests timed
  double send_us = 0;     // serializing the request and writing its last byte
  double recv_us = 0;     // from the response's first byte to the parsed response
};

// One measurement point, over the windows that were reported (the last `stability.windows` of them).
struct PointResult {
  BenchPoint point;
  LatencyHistogram latency;        // per request, ns; open loop: from the intended send time
  uint64_t requests = 0;           // completed without error
  uint64_t errors = 0;
  std::string first_error;         // the first error's message, if any
  uint64_t errors_anywhere = 0;    // errors in the whole point, warm-up and every window included
  std::string first_error_anywhere;
  double duration_s = 0;           // of the reported windows together
  uint64_t started = 0;            // requests sent in the reported windows (open loop: the achieved rate)
  std::chrono::nanoseconds cpu_time{0};  // process CPU time over the reported windows
  uint64_t peak_rss_bytes = 0;     // the process's peak RSS during this point (model, inputs and load generator)
  uint64_t request_bytes = 0;      // of it, hone's own ready-made requests for this point (the pool is the report's)
  double window_s = 0;             // the length of each window, adapted to the warm-up's latency (window_sizing.h)
  uint64_t warmup_completed = 0;   // requests warm-up completed
  double warmup_mean_latency_ns = 0;  // their mean latency; 0 when none completed
  std::vector<WindowSummary> windows;  // every window measured, warm-up excluded
  Decision decision = Decision::kContinue;
  std::vector<Verdict> verdicts;   // the stopping rule's verdicts on the reported windows
  std::optional<ServerBreakdown> server;  // remote targets only
  std::vector<StageBreakdown> stages;     // an ensemble's steps, in its order (remote targets only)
  std::optional<ClientBreakdown> client;  // targets whose client times its phases only

  bool stable() const { return decision == Decision::kStable; }
  // Whether any request completed in the reported windows: without one there is no latency or throughput to
  // report, and reports say so instead of printing zeros.
  bool completed_any() const { return requests > 0; }
  double throughput_rps() const { return duration_s > 0 ? requests / duration_s : 0; }
  double throughput_sps() const { return throughput_rps() * static_cast<double>(point.batch); }
  double achieved_rate() const { return duration_s > 0 ? started / duration_s : 0; }
  double error_rate() const { return requests + errors ? double(errors) / double(requests + errors) : 0; }
  // Process CPU use as a fraction of one core (2.0 = two cores busy).
  double cpu_cores_used() const;
  // The machine's price for 1,000 predictions (samples) at this throughput; nullopt without a price.
  std::optional<double> CostPer1000(double cost_per_hour) const;
};

// One loaded session: what loading it cost.
struct SessionRecord {
  runtime::SessionOptions options;
  std::chrono::nanoseconds load_time{0};        // Session::Open, wall time
  int64_t load_rss_delta_bytes = 0;             // RSS after load minus before: the memory the model adds
  std::chrono::nanoseconds first_run_time{0};   // the first request after load (untimed elsewhere)
  int process_threads = 0;                      // threads in the process once loaded (ONNX Runtime's pools included)
};

// Cold start of this process: from the kernel's start of the process to the first session being ready, and to its
// first result. Accurate to the kernel's clock tick (resolution).
struct ColdStart {
  std::chrono::nanoseconds to_session_ready{0};
  std::chrono::nanoseconds to_first_result{0};
  std::chrono::nanoseconds resolution{0};
};

struct BenchReport {
  report::SystemInfo system;
  std::string model_path;
  std::vector<std::string> model_inputs;   // "image: FP32 [batch, 1, 28, 28]"
  std::vector<std::string> model_outputs;
  runtime::ModelMetadata model_metadata;   // the same, structured (for the report envelope)
  std::string input_source;                // "dataset 'test.npz' (2000 samples)"
  bool inputs_batched = true;              // whether requests stack samples along a shared batch dimension
  std::string input_mode;                  // InputPool::mode_description()
  uint64_t input_pool_bytes = 0;           // hone's own input samples, held all run long
  std::string target;                      // what was measured
  std::string arrival;                     // open loop: "poisson" or "constant"
  RunLength run;
  double cost_per_hour = 0;
  ColdStart cold_start;
  std::vector<SessionRecord> sessions;  // in-process targets: one per runtime configuration; empty for a server
  std::vector<PointResult> points;
  // The run was stopped (Ctrl-C) before its sweep finished: `points` holds the points that finished, and
  // points_not_run the rest, the one cut short first, in the order they would have run.
  bool interrupted = false;
  std::vector<BenchPoint> points_not_run;

  // The runtime configuration a point ran under ("intra=1 ..."), or "server" for a remote target.
  std::string SessionLabel(size_t index) const;

  bool all_stable() const;
  uint64_t total_errors() const;
};

}  // namespace hone::bench
