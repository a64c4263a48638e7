#include "harness/variant_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "base/units.h"
#include "check/compare_runner.h"
#include "runtime/session.h"
#include "tensor/npz.h"

namespace hone::harness {
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

// Whether two files hold the same bytes (both missing counts as the same).
bool SameBytes(const std::string& a, const std::string& b) {
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  if (!fa || !fb) return !fa && !fb;
  std::vector<char> ba(1 << 16), bb(1 << 16);
  while (true) {
    fa.read(ba.data(), std::streamsize(ba.size()));
    fb.read(bb.data(), std::streamsize(bb.size()));
    if (fa.gcount() != fb.gcount()) return false;
    if (!std::equal(ba.begin(), ba.begin() + fa.gcount(), bb.begin())) return false;
    if (fa.gcount() == 0) return true;
  }
}

std::string Ratio(double variant, double source) {
  return source > 0 ? fmt::format("{:.2f}x", variant / source) : "-";
}

}  // namespace

Result<VariantOutcome> CheckVariant(const VariantCheck& c) {
  VariantOutcome out;
  out.source_bytes = ModelBytes(c.source_path);
  out.variant_bytes = ModelBytes(c.variant_path);
  out.identical = SameBytes(c.source_path, c.variant_path) && SameBytes(c.source_path + ".data", c.variant_path + ".data");
  if (out.identical) {
    out.failures.push_back("the variant is byte-for-byte its source: nothing changed");
    return out;
  }
  if (auto session = runtime::Session::Open(c.variant_path, c.session); !session.ok()) {
    out.load_error = session.status().message();
    out.failures.push_back("the variant does not load in ONNX Runtime: " + out.load_error);
    return out;
  }

  check::CompareJob job;
  job.reference_path = c.source_path;
  job.candidate_path = c.variant_path;
  job.inputs = c.data;
  job.session = c.session;
  job.settings.tolerances = c.tolerances;
  HONE_ASSIGN_OR_RETURN(out.compare, check::RunCompare(job));
  for (const auto& o : out.compare.outputs)
    if (!o.passed) out.failures.push_back("output '" + o.reference_name + "': " + o.failure);

  // With labels, the task's quality; without, the gates the user gave (embedding-style metrics against the source).
  const bool labels = HasLabels(c.data.data_path);
  if (labels || (!c.gates.empty() && !c.data.data_path.empty())) {
    check::EvaluateSettings e;
    e.model_path = c.variant_path;
    e.against_path = c.source_path;
    e.output = c.output;
    e.inputs = c.data;
    e.session = c.session;
    e.stability_epsilon = 0;  // the probe measures the model, not the variant's fidelity; skip its extra runs
    e.gates = c.gates;
    e.slice_key = c.slice_key;
    e.perturbations = c.perturbations;
    if (e.gates.empty() && labels) e.gates.push_back({"accuracy_drop", check::GateOp::kLessEqual, c.max_accuracy_drop});
    auto report = check::Evaluate(e);
    if (!report.ok()) return report.status().WithContext("evaluating the variant");
    for (const auto& g : report->gates)
      if (!g.passed) out.failures.push_back(fmt::format("gate {} failed: {} = {:.6g}", g.gate.ToString(), g.gate.metric, g.value));
    out.evaluate = std::move(*report);
  }

  if (c.bench) {
    SpeedComparisonSettings s;
    s.source_path = c.source_path;
    s.variant_path = c.variant_path;
    s.inputs = c.data;
    s.session = c.session;
    s.rounds = c.bench_rounds;
    s.batch = c.bench_batch;
    s.window_s = c.bench_window_s;
    s.progress = c.progress;
    HONE_ASSIGN_OR_RETURN(out.speed, CompareSpeed(s));
    if (out.speed->verdict == SpeedVerdict::kSlower) {
      if (c.allow_slower)
        out.notes.push_back("allowed although " + out.speed->verdict_detail + " (--allow-slower)");
      else
        out.failures.push_back(out.speed->verdict_detail + " (--allow-slower keeps a slower variant)");
    }
  } else {
    out.notes.push_back("speed not measured (--no-bench): this verdict does not say the variant is not slower");
  }
  return out;
}

std::string VariantOutcomeToText(const VariantCheck& c, const VariantOutcome& o) {
  std::string t;
  t += fmt::format("verification: {} against {}\n", c.variant_path, c.source_path);
  if (o.identical || !o.load_error.empty()) {  // nothing was compared or measured
    for (const auto& f : o.failures) t += "verdict: FAILED: " + f + "\n";
    return t;
  }
  t += fmt::format("  inputs: {}{}\n", o.compare.inputs, c.data_note.empty() ? "" : " [" + c.data_note + "]");
  t += fmt::format("  runtime: {}\n", o.compare.runtime);
  t += fmt::format("  {:<24} {:>14} {:>14} {:>10}\n", "", "source", "variant", "ratio");
  t += fmt::format("  {:<24} {:>14} {:>14} {:>10}\n", "size", FormatBytes(double(o.source_bytes)),
                   FormatBytes(double(o.variant_bytes)), Ratio(double(o.variant_bytes), double(o.source_bytes)));
  if (o.speed) t += SpeedComparisonRows(*o.speed, "source", "variant");
  for (const auto& out : o.compare.outputs) {
    if (!out.shapes_match) {
      t += fmt::format("  output '{}': shapes differ\n", out.reference_name);
      continue;
    }
    if (out.match.non_finite_mismatches > 0)
      t += fmt::format("  output '{}': {} of {} elements NaN or Inf where the source disagrees; over the rest:",
                       out.reference_name, out.match.non_finite_mismatches, out.errors.elements);
    else
      t += fmt::format("  output '{}':", out.reference_name);
    t += fmt::format(" max abs error {:.4g} (output units, {:.3g}% of the source's range), cosine similarity {:.6f}",
                     out.errors.max_abs, 100 * out.match.range_error, out.errors.cosine_similarity);
    if (out.classifier) t += fmt::format(", argmax agreement {:.2f}%", 100 * out.classifier->argmax_agreement);
    t += "\n";
  }
  if (o.evaluate && o.evaluate->reference) {
    const auto& e = *o.evaluate;
    auto primary = e.candidate.metrics.Primary(), reference = e.reference->metrics.Primary();
    t += fmt::format("  {:<24} {:>14.4f} {:>14.4f} {:>+7.2f} pt   against {}\n", primary.name, reference.value,
                     primary.value, 100 * (primary.value - reference.value), e.truth);
  }
  if (!o.compare.outputs.empty())
    t += "  rule: " + o.compare.outputs[0].tolerance.Describe() + "\n";
  for (const auto& n : o.notes) t += "  note: " + n + "\n";
  if (o.passed())
    t += o.speed ? "verdict: PASSED\n" : "verdict: PASSED on outputs and quality; speed NOT MEASURED\n";
  else
    for (const auto& f : o.failures) t += "verdict: FAILED: " + f + "\n";
  return t;
}

Status WriteHeldOutRows(const std::string& path, int64_t first, const std::string& out_path, int64_t count) {
  HONE_ASSIGN_OR_RETURN(auto arrays, ReadNpz(path));
  bool any = false;
  for (auto& a : arrays) {
    const Shape& shape = a.tensor.shape();
    if (shape.empty() || shape[0] <= first) continue;
    const int64_t rows_left = shape[0] - first;
    HONE_ASSIGN_OR_RETURN(Tensor rows, a.tensor.SliceRows(first, count < 0 ? rows_left : std::min(count, rows_left)));
    a.tensor = rows.Clone();
    any = true;
  }
  if (!any)
    return Status::InvalidArgument(fmt::format("'{}' has no rows after the first {} (used for calibration) to verify "
                                               "on; pass held-out data with --data",
                                               path, first));
  return WriteNpz(out_path, arrays, true);
}

}  // namespace hone::harness
