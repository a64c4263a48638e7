// ONNX Runtime's profile trace into time per operator type and per node, and the profile's one-sentence summary.
//
// The trace (ONNX Runtime 1.30, checked on the bundled model) is one JSON array of complete events ("ph":"X"),
// written in the order they finished, times in microseconds from the session's start:
//   {"cat":"Session","name":"model_loading_uri" | "session_initialization" | "model_run" |
//    "SequentialExecutor::Execute","ts":..,"dur":..}
//   {"cat":"Node","name":"<node>_kernel_time","ts":..,"dur":..,"args":{"op_name":"Conv","provider":..,..}}
// Older releases also wrote "<node>_fence_before" and "_fence_after" Node events; they are not kernel time.
// A node event belongs to the model_run whose [ts, ts + dur] holds its start.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/profile.h"

namespace hone::harness {
namespace {

constexpr std::string_view kKernelSuffix = "_kernel_time";
constexpr size_t kTopNodes = 10;

struct Interval {
  double start = 0, end = 0;
};

struct KernelEvent {
  std::string node, op_type;
  double ts = 0, dur = 0;
};

struct ParsedEvents {
  std::vector<Interval> runs;  // model_run events, by start
  std::vector<KernelEvent> kernels;
};

Status Bad(const std::string& source, const std::string& what) {
  return Status::InvalidArgument("profile trace '" + source + "': " + what);
}

std::string EventLabel(size_t index, const nlohmann::json& e) {
  std::string label = "event " + std::to_string(index);
  if (e.contains("name") && e["name"].is_string()) label += " ('" + e["name"].get<std::string>() + "')";
  return label;
}

// A number field of an ORT event: present, numeric, finite and >= 0.
Result<double> TimeField(const nlohmann::json& e, const char* key, const std::string& source, size_t index) {
  if (!e.contains(key)) return Bad(source, EventLabel(index, e) + ": missing '" + key + "'");
  const nlohmann::json& v = e[key];
  if (!v.is_number()) return Bad(source, EventLabel(index, e) + ": '" + key + "' is not a number");
  double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) return Bad(source, EventLabel(index, e) + ": '" + key + "' is negative");
  return d;
}

Result<ParsedEvents> ReadEvents(const nlohmann::json& trace, const std::string& source) {
  ParsedEvents out;
  for (size_t i = 0; i < trace.size(); ++i) {
    const nlohmann::json& e = trace[i];
    if (!e.is_object()) return Bad(source, "event " + std::to_string(i) + ": expected an object");
    // Only ONNX Runtime's own categories are read; anything else (metadata, another tool's events) is skipped.
    if (!e.contains("cat") || !e["cat"].is_string()) continue;
    const std::string cat = e["cat"].get<std::string>();
    if (cat != "Node" && cat != "Session") continue;
    if (!e.contains("name") || !e["name"].is_string())
      return Bad(source, "event " + std::to_string(i) + ": '" + cat + "' event without a 'name'");
    const std::string name = e["name"].get<std::string>();
    if (cat == "Session") {
      if (name != "model_run") continue;
      HONE_ASSIGN_OR_RETURN(double ts, TimeField(e, "ts", source, i));
      HONE_ASSIGN_OR_RETURN(double dur, TimeField(e, "dur", source, i));
      out.runs.push_back({ts, ts + dur});
      continue;
    }
    if (name.size() <= kKernelSuffix.size() || !name.ends_with(kKernelSuffix)) continue;  // fences
    HONE_ASSIGN_OR_RETURN(double ts, TimeField(e, "ts", source, i));
    HONE_ASSIGN_OR_RETURN(double dur, TimeField(e, "dur", source, i));
    if (!e.contains("args") || !e["args"].is_object() || !e["args"].contains("op_name") ||
        !e["args"]["op_name"].is_string())
      return Bad(source, EventLabel(i, e) + ": missing 'args.op_name'");
    out.kernels.push_back(
        {name.substr(0, name.size() - kKernelSuffix.size()), e["args"]["op_name"].get<std::string>(), ts, dur});
  }
  std::sort(out.runs.begin(), out.runs.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  return out;
}

// Index of the run holding time `ts`, or -1.
int64_t RunAt(const std::vector<Interval>& runs, double ts) {
  auto it = std::upper_bound(runs.begin(), runs.end(), ts, [](double t, const Interval& r) { return t < r.start; });
  if (it == runs.begin()) return -1;
  --it;
  return ts <= it->end ? it - runs.begin() : -1;
}

std::string Percent(double share) { return fmt::format("{:.0f}%", 100 * share); }

}  // namespace

bool IsComputeHeavyOp(std::string_view op) {
  static const std::set<std::string, std::less<>> kOps = {
      "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "FusedConv", "NhwcConv", "NhwcFusedConv",
      "QLinearConvTranspose", "Attention", "MultiHeadAttention", "GroupQueryAttention", "QAttention",
      "PackedAttention", "PackedMultiHeadAttention", "DecoderAttention", "DecoderMaskedMultiHeadAttention",
      "SparseAttention", "LSTM", "GRU", "RNN", "Einsum"};
  return kOps.contains(op) || IsMatMulFamilyOp(op);
}

bool IsMatMulFamilyOp(std::string_view op) {
  static const std::set<std::string, std::less<>> kOps = {
      "MatMul", "Gemm", "FusedMatMul", "FusedGemm", "MatMulInteger", "MatMulIntegerToFloat", "QLinearMatMul",
      "MatMulNBits", "DynamicQuantizeMatMul", "QGemm", "MatMulBnb4", "GemmFastGelu", "FusedMatMulActivation",
      "TransposeMatMul", "GemmFloat8", "QuickGelu_MatMul"};
  return kOps.contains(op);
}

Result<ModelProfile> ParseOrtTrace(std::string_view trace_json, const std::string& source, int warmup_runs) {
  if (warmup_runs < 0) return Bad(source, "warm-up runs must be >= 0, got " + std::to_string(warmup_runs));
  nlohmann::json trace = nlohmann::json::parse(trace_json, nullptr, /*allow_exceptions=*/false);
  if (trace.is_discarded()) return Bad(source, "not JSON (expected ONNX Runtime's Chrome trace: an array of events)");
  if (!trace.is_array()) return Bad(source, std::string("expected a JSON array of events, got ") + trace.type_name());
  HONE_ASSIGN_OR_RETURN(ParsedEvents events, ReadEvents(trace, source));
  const int64_t total_runs = static_cast<int64_t>(events.runs.size());
  if (total_runs <= warmup_runs)
    return Bad(source, fmt::format("{} model_run event(s), expected more than the {} warm-up run(s): no run was "
                                   "profiled",
                                   total_runs, warmup_runs));

  ModelProfile p;
  p.warmup_runs = warmup_runs;
  p.runs = static_cast<int>(total_runs - warmup_runs);
  double run_total = 0;
  for (int64_t r = warmup_runs; r < total_runs; ++r) run_total += events.runs[r].end - events.runs[r].start;
  p.run_mean_us = run_total / p.runs;

  // Per node over the profiled runs; a node's op type is the one its first event names.
  struct NodeSum {
    std::string op_type;
    double total_us = 0;
  };
  std::map<std::string, NodeSum> nodes;
  double kernel_total = 0;
  for (const KernelEvent& k : events.kernels) {
    const int64_t run = RunAt(events.runs, k.ts);
    if (run < warmup_runs) continue;  // warm-up, or outside every run
    NodeSum& n = nodes[k.node];
    if (n.op_type.empty()) n.op_type = k.op_type;
    n.total_us += k.dur;
    kernel_total += k.dur;
  }
  p.kernel_total_us_per_run = kernel_total / p.runs;
  auto share = [&](double us) { return kernel_total > 0 ? us / kernel_total : 0.0; };

  std::map<std::string, OpTypeTime> by_type;
  for (const auto& [name, n] : nodes) {
    OpTypeTime& t = by_type[n.op_type];
    t.op_type = n.op_type;
    t.total_us += n.total_us;
    t.nodes += 1;
    p.top_nodes.push_back({name, n.op_type, n.total_us / p.runs, share(n.total_us)});
  }
  for (auto& [type, t] : by_type) {
    t.mean_us_per_run = t.total_us / p.runs;
    t.share = share(t.total_us);
    if (IsComputeHeavyOp(type)) p.compute_share += t.share;
    if (IsMatMulFamilyOp(type)) p.matmul_share += t.share;
    p.op_types.push_back(t);
  }
  std::sort(p.op_types.begin(), p.op_types.end(), [](const OpTypeTime& a, const OpTypeTime& b) {
    return a.total_us != b.total_us ? a.total_us > b.total_us : a.op_type < b.op_type;
  });
  std::sort(p.top_nodes.begin(), p.top_nodes.end(), [](const NodeTime& a, const NodeTime& b) {
    return a.mean_us != b.mean_us ? a.mean_us > b.mean_us : a.node < b.node;
  });
  if (p.top_nodes.size() > kTopNodes) p.top_nodes.resize(kTopNodes);
  p.summary = SummarizeProfile(p);
  return p;
}

std::string SummarizeProfile(const ModelProfile& p) {
  if (p.op_types.empty() || p.kernel_total_us_per_run <= 0)
    return fmt::format("No operator kernel ran: the graph ONNX Runtime runs has no nodes left (its outputs are "
                       "constants or inputs), so the {:.1f} us of a run are the runtime's own overhead",
                       p.run_mean_us);
  const OpTypeTime& first = p.op_types[0];
  std::string s = fmt::format("{} takes {} of the kernel time ({} node{})", first.op_type, Percent(first.share),
                              first.nodes, first.nodes == 1 ? "" : "s");
  if (p.op_types.size() > 1) s += fmt::format(", {} {}", p.op_types[1].op_type, Percent(p.op_types[1].share));
  std::string compute_ops;
  for (const OpTypeTime& t : p.op_types)
    if (IsComputeHeavyOp(t.op_type)) compute_ops += (compute_ops.empty() ? "" : "/") + t.op_type;
  if (p.compute_share >= 0.5) {
    s += fmt::format("; the model is compute-bound ({} in {})", Percent(p.compute_share), compute_ops);
    // Said apart only when it is not the same share: convolutions or attention count as compute too.
    if (p.matmul_dominated() && Percent(p.matmul_share) != Percent(p.compute_share))
      s += fmt::format(", {} in MatMul/Gemm alone", Percent(p.matmul_share));
  } else {
    s += fmt::format("; the model is memory-bound ({} in element-wise, layout and data-movement ops",
                     Percent(1 - p.compute_share));
    s += compute_ops.empty() ? ", none in convolutions or matrix products)"
                             : fmt::format(", {} in {})", Percent(p.compute_share), compute_ops);
  }
  return s;
}

}  // namespace hone::harness
