#include "cli/variant_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/units.h"
#include "bench/bench_runner.h"
#include "check/compare_runner.h"
#include "tensor/npz.h"

namespace hone::cli {
namespace fs = std::filesystem;
namespace {

// A model's bytes on disk: the file and an external data file "<name>.data" beside it, if any.
uint64_t ModelBytes(const std::string& path) {
  std::error_code ec;
  uint64_t bytes = fs::file_size(path, ec);
  if (ec) return 0;
  uint64_t data = fs::file_size(path + ".data", ec);
  return bytes + (ec ? 0 : data);
}

// Whether the dataset holds labels that evaluate would use.
bool HasLabels(const std::string& data_path) {
  if (data_path.empty() || fs::path(data_path).extension() != ".npz") return false;
  auto arrays = ReadNpz(data_path);
  if (!arrays.ok()) return false;
  static const std::set<std::string> kNames = {"label", "labels", "target", "targets", "y"};
  for (const auto& a : *arrays)
    if (kNames.count(a.name)) return true;
  return false;
}

Result<bench::BenchReport> Measure(const VariantCheck& c, const std::string& model) {
  bench::BenchSettings s;
  s.model_path = model;
  s.inputs = c.data;
  s.mode = bench::LoadMode::kClosedLoop;
  s.concurrency = {1};
  if (c.bench_batch > 0) s.batch_sizes = {c.bench_batch};
  s.run.warmup_requests = 20;
  s.run.warmup_s = 0.5;
  s.run.window_s = c.bench_window_s;
  s.run.stability.max_windows = 12;
  s.runtime.intra_op_threads = {c.session.intra_op_threads};
  s.runtime.inter_op_threads = {c.session.inter_op_threads};
  s.runtime.graph_optimizations = {c.session.graph_optimization};
  return bench::RunBench(s);
}

std::string Ratio(double variant, double source) {
  return source > 0 ? fmt::format("{:.2f}x", variant / source) : "-";
}

}  // namespace

Result<VariantOutcome> CheckVariant(const VariantCheck& c) {
  VariantOutcome out;
  out.source_bytes = ModelBytes(c.source_path);
  out.variant_bytes = ModelBytes(c.variant_path);

  check::CompareJob job;
  job.reference_path = c.source_path;
  job.candidate_path = c.variant_path;
  job.inputs = c.data;
  job.session = c.session;
  job.settings.tolerances = c.tolerances;
  HONE_ASSIGN_OR_RETURN(out.compare, check::RunCompare(job));
  if (c.tolerances_given) {
    for (const auto& o : out.compare.outputs)
      if (!o.passed) out.failures.push_back("output '" + o.reference_name + "': " + o.failure);
  } else {
    for (const auto& o : out.compare.outputs) {
      if (!o.shapes_match)
        out.failures.push_back("output '" + o.reference_name + "': shapes differ");
      else if (!(o.errors.cosine_similarity >= c.min_cosine))
        out.failures.push_back(fmt::format("output '{}': cosine similarity {:.6f} < {} (--min-cosine)",
                                           o.reference_name, o.errors.cosine_similarity, c.min_cosine));
    }
  }

  if (HasLabels(c.data.data_path)) {
    check::EvaluateSettings e;
    e.model_path = c.variant_path;
    e.against_path = c.source_path;
    e.inputs = c.data;
    e.session = c.session;
    e.stability_epsilon = 0;  // the probe measures the model, not the variant's fidelity; skip its extra runs
    e.gates = c.gates;
    if (e.gates.empty()) e.gates.push_back({"accuracy_drop", check::GateOp::kLessEqual, c.max_accuracy_drop});
    auto report = check::Evaluate(e);
    if (!report.ok()) return report.status().WithContext("evaluating the variant");
    for (const auto& g : report->gates)
      if (!g.passed) out.failures.push_back(fmt::format("gate {} failed: {} = {:.6g}", g.gate.ToString(), g.gate.metric, g.value));
    out.evaluate = std::move(*report);
  }

  if (c.bench) {
    HONE_ASSIGN_OR_RETURN(out.source_bench, Measure(c, c.source_path));
    HONE_ASSIGN_OR_RETURN(out.variant_bench, Measure(c, c.variant_path));
  }
  return out;
}

std::string VariantOutcomeToText(const VariantCheck& c, const VariantOutcome& o) {
  std::string t;
  t += fmt::format("verification: {} against {}\n", c.variant_path, c.source_path);
  t += fmt::format("  inputs: {}{}\n", o.compare.inputs, c.data_note.empty() ? "" : " [" + c.data_note + "]");
  t += fmt::format("  runtime: {}\n", o.compare.runtime);
  t += fmt::format("  {:<24} {:>14} {:>14} {:>10}\n", "", "source", "variant", "ratio");
  t += fmt::format("  {:<24} {:>14} {:>14} {:>10}\n", "size", FormatBytes(double(o.source_bytes)),
                   FormatBytes(double(o.variant_bytes)), Ratio(double(o.variant_bytes), double(o.source_bytes)));
  if (o.source_bench && o.variant_bench && !o.source_bench->points.empty() && !o.variant_bench->points.empty()) {
    const bench::PointResult &s = o.source_bench->points[0], &v = o.variant_bench->points[0];
    for (double q : {50.0, 99.0}) {
      double sv = double(s.latency.Percentile(q)), vv = double(v.latency.Percentile(q));
      t += fmt::format("  {:<24} {:>14} {:>14} {:>10}\n", fmt::format("p{:g} latency", q), FormatDuration(sv),
                       FormatDuration(vv), Ratio(vv, sv));
    }
    t += fmt::format("  {:<24} {:>14} {:>14} {:>10}\n", "throughput (samples/s)", fmt::format("{:.1f}", s.throughput_sps()),
                     fmt::format("{:.1f}", v.throughput_sps()), Ratio(v.throughput_sps(), s.throughput_sps()));
    t += fmt::format("  bench: in process, closed loop, {}, {}; {}\n", s.point.Label(),
                     o.source_bench->sessions.empty() ? "" : o.source_bench->sessions[0].options.ToString(),
                     s.stable() && v.stable() ? "both stable" : "NOT STABLE: ratios are rough");
  }
  for (const auto& out : o.compare.outputs) {
    if (!out.shapes_match) {
      t += fmt::format("  output '{}': shapes differ\n", out.reference_name);
      continue;
    }
    t += fmt::format("  output '{}': max abs error {:.4g} (output units), cosine similarity {:.6f}",
                     out.reference_name, out.errors.max_abs, out.errors.cosine_similarity);
    if (out.classifier) t += fmt::format(", argmax agreement {:.2f}%", 100 * out.classifier->argmax_agreement);
    t += "\n";
  }
  if (o.evaluate && o.evaluate->reference) {
    const auto& e = *o.evaluate;
    auto primary = e.candidate.metrics.Primary(), reference = e.reference->metrics.Primary();
    t += fmt::format("  {:<24} {:>14.4f} {:>14.4f} {:>+7.2f} pt   against {}\n", primary.name, reference.value,
                     primary.value, 100 * (primary.value - reference.value), e.truth);
  }
  if (o.passed())
    t += "verdict: PASSED\n";
  else
    for (const auto& f : o.failures) t += "verdict: FAILED: " + f + "\n";
  return t;
}

Status WriteHeldOutRows(const std::string& path, int64_t first, const std::string& out_path) {
  HONE_ASSIGN_OR_RETURN(auto arrays, ReadNpz(path));
  bool any = false;
  for (auto& a : arrays) {
    const Shape& shape = a.tensor.shape();
    if (shape.empty() || shape[0] <= first) continue;
    HONE_ASSIGN_OR_RETURN(Tensor rows, a.tensor.SliceRows(first, shape[0] - first));
    a.tensor = rows.Clone();
    any = true;
  }
  if (!any)
    return Status::InvalidArgument(fmt::format("'{}' has no rows after the first {} (used for calibration) to verify "
                                               "on; pass held-out data with --data",
                                               path, first));
  return WriteNpz(out_path, arrays, true);
}

}  // namespace hone::cli
