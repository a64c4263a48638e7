// Where the time goes: the profile `hone tune` takes as its stage 2, and `hone profile` prints.
//
// A model's profile comes from ONNX Runtime's own profiler: the model runs warmup_runs + runs times in one session
// with profiling on, the Chrome trace it writes is parsed (ParseOrtTrace, pure) into time per operator type and per
// node, and the trace is removed. Around it, what the process used: threads, CPU cores, peak memory.
// A served model's profile is the split of one remote bench point's latency into the client's send and receive,
// the server's queue and compute, and the rest (ServedSplitFrom, pure).
//
// The profile decides what later stages try first: a model whose kernel time is mostly MatMul/Gemm
// (matmul_dominated) tries INT8/INT4 weight-only before the rest; a served path dominated by queueing
// (queue_dominated) tries batching first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "bench/remote_client.h"
#include "bench/results.h"
#include "runtime/input_options.h"
#include "runtime/session_options.h"

namespace hone::harness {

struct ProfileSettings {
  std::string model_path;
  runtime::InputOptions inputs;     // data_path or generated inputs, as bench uses them (runtime/input_pool.h)
  runtime::SessionOptions session;  // the session profiled (its profile_prefix is set by ProfileModel)
  int64_t batch = 0;                // samples per Run; 0: the inputs' default
  // Runs before the profiled ones (first-run allocations, caches), then the runs profiled. More runs give steadier
  // means; the profiler itself costs a few microseconds per node.
  int warmup_runs = 5, runs = 50;
  // Where ONNX Runtime's trace goes: a fresh folder inside it (inside the system's temporary folder when empty),
  // removed with the trace once parsed.
  std::string work_dir;

  // InvalidArgument naming the field unless runs >= 1, warmup_runs >= 0, batch >= 0 and model_path is set.
  Status Validate() const;
};

// One operator type (the kernel's op_name: "Conv", "FusedGemm") summed over its nodes.
struct OpTypeTime {
  std::string op_type;
  double total_us = 0;         // over every profiled run
  double mean_us_per_run = 0;
  double share = 0;            // of the kernel time, in [0, 1]
  int64_t nodes = 0;           // distinct nodes of this type that ran
};

struct NodeTime {
  std::string node, op_type;  // the node's name in the graph ONNX Runtime ran (after its graph optimizations)
  double mean_us = 0;         // per run
  double share = 0;           // of the kernel time
};

struct ModelProfile {
  // What was profiled, for the report.
  std::string model_path;
  std::string input_source;          // InputPool::description()
  runtime::SessionOptions session;   // as profiled (profile_prefix set)
  int warmup_runs = 0, runs = 0;     // runs: the profiled runs the figures come from

  double run_mean_us = 0;              // per Run (model_run events in the trace), warm-up excluded
  double kernel_total_us_per_run = 0;  // sum of node kernel times per run
  std::vector<OpTypeTime> op_types;    // descending by time (ties by name)
  std::vector<NodeTime> top_nodes;     // the 10 slowest nodes, descending
  int process_threads = 0;             // threads in the process once loaded (bench/resource_usage.h)
  double cpu_cores_used = 0;           // process CPU time / wall time over the profiled runs
  uint64_t peak_rss_bytes = 0;         // the process's peak RSS from before the load to the end of the runs
  int64_t batch = 1;
  // ONE sentence: "Conv takes 71% of the kernel time (2 nodes), Gemm 18%; the model is compute-bound (89% in
  // Conv/Gemm)".
  std::string summary;
  // Share of kernel time in compute-heavy ops (IsComputeHeavyOp); the rest is element-wise, layout and data movement.
  double compute_share = 0;
  // Share of kernel time in the MatMul/Gemm family (IsMatMulFamilyOp).
  double matmul_share = 0;

  // matmul_share >= 0.5: weight-only INT8/INT4 goes first.
  bool matmul_dominated() const { return matmul_share >= 0.5; }
};

// Convolutions, matrix products and attention, float or quantized: ops whose time is arithmetic, not memory traffic.
bool IsComputeHeavyOp(std::string_view op_type);
// The ops weight-only and dynamic quantization rewrite: MatMul, Gemm and their fused and quantized forms.
bool IsMatMulFamilyOp(std::string_view op_type);

// Loads the model with profiling on, runs it warmup_runs + runs times on inputs from the pool (batch samples each),
// and returns the profile. Errors as bench gives them (a missing model, inputs that do not fit, a batch the model
// cannot take: "--batch 4: ..."), a failed Run naming the model, or a trace that does not parse (naming it).
Result<ModelProfile> ProfileModel(const ProfileSettings& settings);

// Parses ONNX Runtime's profile trace (Chrome trace JSON: an array of events) into the profile's timing fields
// (run_mean_us, kernel_total_us_per_run, op_types, top_nodes, compute_share, matmul_share, runs, summary). The
// first `warmup_runs` model_run events and the node events inside them are skipped; node events are the "Node"
// events named "<node>_kernel_time" (fence events are ignored). InvalidArgument naming `source` (the file) for text
// that is not JSON, not an array, an ORT event without its fields, or a trace with no profiled run.
Result<ModelProfile> ParseOrtTrace(std::string_view trace_json, const std::string& source, int warmup_runs);

// The one-sentence summary of a profile's timing fields (set by ParseOrtTrace).
std::string SummarizeProfile(const ModelProfile& profile);

// The served path, from one remote bench point (its server and client breakdowns).
struct ServedSplit {
  double total_us = 0;                            // client-observed mean latency
  double client_send_us = 0, client_recv_us = 0;  // serialising the request / parsing the response (0: not timed)
  // Server side, from its statistics extension (per request, averaged over the point).
  double queue_us = 0, compute_input_us = 0, compute_infer_us = 0, compute_output_us = 0;
  // Of other_us, the time inside the server neither queued nor computing: its HTTP/gRPC parsing and serialisation.
  double server_overhead_us = 0;
  double other_us = 0;  // the rest: network, HTTP/gRPC parsing and serialisation in the server, hand-offs
  double average_batch = 0;  // rows per model execution on the server
  bool has_server = false;   // whether the server reported statistics
  bool has_client = false;   // whether the client timed its phases
  // "queueing", "compute", "parsing and serialisation" or "network and hand-offs"; "unknown" without statistics.
  std::string dominant;
  std::string summary;  // one sentence

  // queue_us is the largest server-side part (against compute input, infer, output and server overhead) and at
  // least 30% of total_us: batching goes first.
  bool queue_dominated() const;
};

ServedSplit ServedSplitFrom(const bench::PointResult& point);

// One short closed-loop point against a running server, for its served split (`hone profile NAME --url`).
struct ServedProfileSettings {
  bench::RemoteSettings remote;  // url, protocol, model name and version
  runtime::InputOptions inputs;  // built from the server's model metadata, as `hone bench --url` does
  int64_t concurrency = 1;       // requests outstanding
  int64_t batch = 0;             // samples per request; 0: the inputs' default
  double duration_s = 2;         // measured (after 0.5 s of warm-up), in windows of a quarter of it
};

struct ServedProfile {
  ServedSplit split;
  std::string target;            // the client's description: "KServe v2 HTTP (binary tensors) at ..., model '...'"
  std::string point;             // "concurrency 1, batch 1"
  uint64_t requests = 0, errors = 0;
  double duration_s = 0;         // of the measured windows
  runtime::ModelMetadata metadata;  // the server's, for the report
};

// InvalidArgument for bad settings (naming the flag); what RunRemoteBench returns when the server does not answer or
// the model is not ready.
Result<ServedProfile> ProfileServed(const ServedProfileSettings& settings);

// {"summary","run_mean_us","kernel_total_us_per_run","batch","runs","warmup_runs","input_source","session",
//  "op_types":[{"op_type","total_us","mean_us_per_run","share","nodes"}],"top_nodes":[{"node","op_type","mean_us",
//  "share"}],"process_threads","cpu_cores_used","peak_rss_bytes","compute_share","matmul_share","matmul_dominated"}
nlohmann::json ProfileToJson(const ModelProfile& profile);
// {"summary","dominant","total_us","client_send_us","client_recv_us","queue_us","compute_input_us",
//  "compute_infer_us","compute_output_us","server_overhead_us","other_us","average_batch","has_server",
//  "has_client","queue_dominated"}
nlohmann::json ServedSplitToJson(const ServedSplit& split);
// {"target","point","requests","errors","duration_s","split":ServedSplitToJson}
nlohmann::json ServedProfileToJson(const ServedProfile& profile);
// A table for the terminal: op types with time per run, share and a bar of '#', then the slowest nodes.
std::string ProfileToText(const ModelProfile& profile);
std::string ServedSplitToText(const ServedSplit& split);
// What was measured, then ServedSplitToText.
std::string ServedProfileToText(const ServedProfile& profile);

}  // namespace hone::harness
