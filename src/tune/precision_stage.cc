// The precision stage: variants of the incumbent's model in lower precision, each verified before it may compete
// (numerics and quality gates on the held-out rows, speed against its source in process: harness/variant_check.h).
// A quantized variant that fails on quality gets INC's treatment: its quantized nodes are ranked by what keeping
// each one in FP32 buys back (per-node sensitivity), and the worst are kept in FP32 one by one until the gates pass,
// the variant stops being worth it, or the budget ends.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "check/metric.h"
#include "harness/variant_check.h"
#include "tune/tune_state.h"

namespace hone::tune {
// Moved to harness (issue 28): the proof a variant carries.
using harness::CheckVariant;
using harness::SpeedVerdict;
using harness::VariantCheck;
using harness::VariantOutcome;
using harness::WriteHeldOutRows;
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

// Keeping more than this many nodes in FP32 leaves too little of the variant to be worth its risk.
constexpr size_t kMaxFallbackNodes = 4;
// Held-out rows each per-node sensitivity probe runs on.
constexpr int64_t kProbeRows = 64;

bool HasFeature(const TuneState& state, std::string_view feature) {
  const auto& f = state.given.system.cpu_features;
  return std::find(f.begin(), f.end(), feature) != f.end();
}

// Writes the variant of `source` to `path`; `quantized_nodes` gets the top-level nodes a quantization rewrote (the
// candidates for FP32 fallback).
Status MakeVariant(const PrecisionVariant& v, const std::string& source, const std::string& path,
                   std::vector<std::string>* quantized_nodes) {
  if (v.make) return v.make(source, path);
  if (v.quantize) {
    HONE_ASSIGN_OR_RETURN(onnx::QuantizeSummary summary, onnx::QuantizeFile(source, path, *v.quantize));
    if (summary.quantized.empty()) return Status::FailedPrecondition("no node of the model could be quantized this way");
    for (const std::string& label : summary.quantized) {
      // "name (Op)" at the top level; "name (Op) in path" inside a subgraph, whose nodes are not excluded one by one.
      if (label.empty() || label.back() != ')') continue;
      const size_t op = label.rfind(" (");
      if (op != std::string::npos) quantized_nodes->push_back(label.substr(0, op));
    }
    return Status::Ok();
  }
  if (v.convert) return onnx::ConvertFile(source, path, *v.convert).status();
  return Status::InvalidArgument(fmt::format("variant '{}' says neither how to quantize nor how to convert", v.id));
}

VariantCheck CheckFor(const TuneState& state, const std::string& variant_path, const std::string& against = "") {
  VariantCheck check;
  check.source_path = against.empty() ? state.ledger.incumbent.model_path : against;
  check.variant_path = variant_path;
  check.data = state.given.plan.inputs;
  check.data_note = state.given.calibration_rows > 0 ? fmt::format("held-out rows (from row {})", state.given.calibration_rows) : "";
  check.session = state.ledger.incumbent.session;
  check.tolerances = state.given.settings->tolerances;
  check.gates = state.given.gates;
  check.output = state.given.settings->output;
  check.slice_key = state.given.settings->slice_key;
  check.perturbations = state.given.settings->perturbations;
  check.bench = true;
  check.bench_rounds = state.given.settings->quick ? 2 : 3;
  check.bench_window_s = state.given.settings->quick ? 0.1 : 0.25;
  return check;
}

// The headline quality loss of an outcome: the task's drop when labels exist, else the number of failed checks.
double QualityLoss(const VariantOutcome& outcome) {
  if (outcome.evaluate) {
    for (const char* name : {"accuracy_drop", "mae_increase", "cosine_mean_drop"}) {
      if (const check::Metric* m = check::FindMetric(outcome.evaluate->metrics, name)) return m->value;
    }
  }
  return static_cast<double>(outcome.failures.size());
}

// The smallest cosine similarity of any output to the source's on the held-out rows: quality without labels.
double WorstCosine(const check::CompareReport& compare) {
  double worst = 1;
  for (const check::OutputComparison& o : compare.outputs) worst = std::min(worst, o.errors.cosine_similarity);
  return worst;
}

bool FailedOnSpeedOnly(const VariantOutcome& outcome) {
  return outcome.speed && outcome.speed->verdict == SpeedVerdict::kSlower && outcome.failures.size() == 1;
}

struct Verified {
  std::string path;
  VariantOutcome outcome;
  std::vector<std::string> kept_fp32;  // nodes the fallback kept in FP32 (empty: none)
  std::optional<VariantOutcome> first_try;  // the failed outcome before the fallback, when there was one
  std::pair<int64_t, int64_t> probed{0, 0};  // nodes whose sensitivity was measured, of the quantized ones
};

// INC's fallback: per-node sensitivity (the loss with only that node kept in FP32), then the most sensitive nodes
// kept in FP32, one more each try, until the gates pass. Returns whether it rescued the variant; `verified` holds the
// last try either way.
bool RescueWithFp32(TuneState& state, const PrecisionVariant& v, const std::vector<std::string>& nodes,
                    Clock::time_point deadline, Verified& verified) {
  auto out_of_time = [&] { return state.stopped() || Clock::now() >= deadline; };
  // The probes run on the first rows of the held-out data only: a ranking of nodes needs far fewer rows than a
  // verdict, and a model with dozens of quantized nodes would otherwise spend the budget here.
  runtime::InputOptions probe_rows = state.given.plan.inputs;
  if (state.given.batch_axis) {
    probe_rows.data_path = (fs::path(state.given.work_dir) / "probe_rows.npz").string();
    if (!WriteHeldOutRows(state.given.heldout_path, 0, probe_rows.data_path, kProbeRows).ok()) probe_rows = state.given.plan.inputs;
  }
  std::vector<std::pair<double, std::string>> sensitivity;
  for (const std::string& node : nodes) {
    if (out_of_time()) break;
    state.Say(fmt::format("stage 6 of 7 (precision): {} failed its gates; sensitivity of node '{}'", v.id, node));
    PrecisionVariant probe = v;
    probe.quantize->exclude_nodes.push_back(node);
    std::string path = (fs::path(state.given.work_dir) / (v.id + "-probe.onnx")).string();
    std::vector<std::string> ignored;
    if (!MakeVariant(probe, state.ledger.incumbent.model_path, path, &ignored).ok()) continue;
    VariantCheck check = CheckFor(state, path);
    check.bench = false;  // quality only: speed is measured on the variant that is kept
    check.data = probe_rows;
    if (auto o = CheckVariant(check); o.ok()) sensitivity.push_back({QualityLoss(*o), node});
  }
  verified.probed = {static_cast<int64_t>(sensitivity.size()), static_cast<int64_t>(nodes.size())};
  std::sort(sensitivity.begin(), sensitivity.end());  // the least loss first: the node that costs the most
  PrecisionVariant fallback = v;
  for (size_t k = 0; k < sensitivity.size() && k + 1 < nodes.size() && k < kMaxFallbackNodes; ++k) {
    if (out_of_time()) break;
    fallback.quantize->exclude_nodes.push_back(sensitivity[k].second);
    std::string path = (fs::path(state.given.work_dir) / fmt::format("{}-fp32-{}.onnx", v.id, k + 1)).string();
    std::vector<std::string> ignored;
    if (!MakeVariant(fallback, state.ledger.incumbent.model_path, path, &ignored).ok()) break;
    auto o = CheckVariant(CheckFor(state, path));
    if (!o.ok()) break;
    verified.path = path;
    verified.outcome = std::move(*o);
    verified.kept_fp32 = fallback.quantize->exclude_nodes;
    if (verified.outcome.passed()) return true;
    if (FailedOnSpeedOnly(verified.outcome)) return false;  // quality rescued, but slower: more FP32 only slows it
  }
  return false;
}

}  // namespace

std::vector<PrecisionVariant> PlanPrecisionVariants(TuneState& state) {
  std::vector<PrecisionVariant> variants;
  onnx::QuantizeOptions dynamic;
  dynamic.mode = onnx::QuantizeMode::kDynamic;
  variants.push_back({"int8-dynamic", "dynamic INT8", 10, dynamic, std::nullopt, nullptr});
  if (!state.given.settings->inputs.data_path.empty() && state.given.calibration_rows > 0) {
    onnx::QuantizeOptions st;
    st.mode = onnx::QuantizeMode::kStatic;
    st.calibration_inputs = state.given.settings->inputs;
    st.calibration_samples = state.given.calibration_rows;
    variants.push_back({"int8-static", fmt::format("static INT8 calibrated on rows 0..{}", state.given.calibration_rows - 1),
                        12, st, std::nullopt, nullptr});
  } else {
    state.ledger.skipped.push_back({"precision", "static INT8", "needs --data with enough rows to calibrate on (40 or more)"});
  }
  onnx::QuantizeOptions weight_only;
  weight_only.mode = onnx::QuantizeMode::kWeightOnly;
  weight_only.bits = 4;
  PrecisionVariant int4{"int4-weight-only", "INT4 weight-only (MatMul)", 14, weight_only, std::nullopt, nullptr};
  if (state.ledger.matmul_first) {
    variants.insert(variants.begin(), int4);
  } else {
    variants.push_back(int4);
  }
  if (HasFeature(state, "avx512_fp16")) {
    variants.push_back({"fp16", "FP16", 11, std::nullopt, onnx::ConvertOptions{}, nullptr});
  } else {
    state.ledger.skipped.push_back({"precision", "FP16", "the CPU lacks AVX512-FP16: ONNX Runtime's FP16 CPU kernels would "
                                                  "run slower than FP32 here"});
  }
  if (HasFeature(state, "avx512_bf16") || HasFeature(state, "amx_bf16")) {
    onnx::ConvertOptions bf16;
    bf16.to = onnx::LowPrecision::kBf16;
    variants.push_back({"bf16", "BF16", 11, std::nullopt, bf16, nullptr});
  } else {
    state.ledger.skipped.push_back({"precision", "BF16", "the CPU lacks AVX512-BF16 and AMX-BF16"});
  }
  return variants;
}

void RunPrecisionStage(TuneState& state) { RunPrecisionStage(state, PlanPrecisionVariants(state)); }

std::vector<Candidate> MakeVerifiedVariants(TuneState& state, const VariantStage& stage,
                                            const std::vector<PrecisionVariant>& variants,
                                            std::chrono::steady_clock::time_point verify_end,
                                            std::vector<VariantCheckRecord>& checks) {
  std::vector<Candidate> candidates;
  for (size_t index = 0; index < variants.size(); ++index) {
    const PrecisionVariant& v = variants[index];
    if (state.stopped() || state.left_s() < state.FinalSeconds() + 3 * state.TrialSeconds(0.25) ||
        Clock::now() >= verify_end) {
      state.ledger.skipped.push_back({stage.name, v.what,
                                      state.stopped() ? "stopped"
                                                      : fmt::format("budget: the {} stage's share for making and "
                                                                    "verifying variants is spent", stage.name)});
      continue;
    }
    state.Say(fmt::format("stage {} of 7 ({}): making and verifying {}; {}; {:.0f} s left", stage.index, stage.name, v.what,
                          state.BestSoFar(), state.left_s()));
    Verified verified;
    verified.path = (fs::path(state.given.work_dir) / (v.id + ".onnx")).string();
    std::vector<std::string> nodes;
    if (Status made = MakeVariant(v, state.ledger.incumbent.model_path, verified.path, &nodes); !made.ok()) {
      state.ledger.rejected.push_back({v.id, stage.name, "could not be made: " + made.message()});
      continue;
    }
    auto outcome = CheckVariant(CheckFor(state, verified.path, v.verify_against));
    if (!outcome.ok()) {
      state.ledger.rejected.push_back({v.id, stage.name, "could not be verified: " + outcome.status().message()});
      continue;
    }
    verified.outcome = std::move(*outcome);
    const VariantOutcome& first = verified.outcome;
    if (!first.passed() && !FailedOnSpeedOnly(first) && v.quantize && nodes.size() > 1 && first.load_error.empty() &&
        !first.identical) {
      verified.first_try = first;
      const auto share = (verify_end - Clock::now()) / static_cast<int64_t>(variants.size() - index);
      RescueWithFp32(state, v, nodes, Clock::now() + std::max(share, Clock::duration::zero()), verified);
    }
    checks.push_back({v.id, v.what, verified.outcome, verified.kept_fp32, verified.first_try, verified.probed});
    if (!verified.outcome.passed()) {
      std::string reason = fmt::format("{}", fmt::join(verified.outcome.failures, "; "));
      if (!verified.kept_fp32.empty()) {
        reason += fmt::format(" (with {} kept in FP32 after failing its gates)", fmt::join(verified.kept_fp32, ", "));
      } else if (verified.first_try) {
        reason += fmt::format(" (FP32 fallback: sensitivity measured for {} of {} quantized nodes in its share of the "
                              "time, none kept in FP32 yet; a larger --budget lets it go further)",
                              verified.probed.first, verified.probed.second);
      }
      state.ledger.rejected.push_back({v.id, stage.name, reason});
      continue;
    }
    Candidate c = state.ledger.incumbent;
    c.id = verified.kept_fp32.empty() ? v.id : fmt::format("{}-fp32x{}", v.id, verified.kept_fp32.size());
    c.stage = stage.name;
    c.model_path = verified.path;
    if (stage.change == VariantChange::kPrecision) {
      c.precision = v.id;
    } else {
      c.compression = v.compression.empty() ? v.id : v.compression;
      c.precision = v.precision.empty() ? c.precision : v.precision;
    }
    c.risk = state.ledger.incumbent.risk + v.risk + static_cast<int>(verified.kept_fp32.size());
    const check::Metric* accuracy =
        verified.outcome.evaluate ? check::FindMetric(verified.outcome.evaluate->metrics, "accuracy") : nullptr;
    std::vector<check::GateResult> gates;
    if (verified.outcome.evaluate) gates = verified.outcome.evaluate->gates;
    state.ledger.quality_by_candidate[c.id] =
        accuracy ? QualityRecord{"accuracy", accuracy->value, gates}
                 : QualityRecord{"cosine_to_source", WorstCosine(verified.outcome.compare), gates};
    candidates.push_back(c);
  }
  return candidates;
}

void RunPrecisionStage(TuneState& state, const std::vector<PrecisionVariant>& variants) {
  const auto started = Clock::now();
  if (state.ledger.incumbent.precision != "fp32") {
    state.ledger.stages.push_back(StageRecord::Of("precision", 6, StageStatus::kSkipped, "the incumbent is not FP32"));
    return;
  }
  // Making and verifying the variants may take this share of the stage's room; the rest is the search's. Each
  // variant's FP32 fallback gets an equal part of what is left when it starts, so one variant with many nodes
  // cannot starve the others.
  const auto verify_end = started + std::chrono::milliseconds(static_cast<int64_t>(600 * state.StageRoom(6)));
  std::vector<VariantCheckRecord> checks;
  std::vector<Candidate> candidates = {state.ledger.incumbent};
  for (Candidate& c : MakeVerifiedVariants(state, {"precision", 6, VariantChange::kPrecision}, variants, verify_end, checks))
    candidates.push_back(std::move(c));
  const bool none_passed = candidates.size() < 2;
  SearchStage(state, "precision", 6, std::move(candidates));
  StageRecord& record = state.ledger.stages.back();
  record.variant_checks = checks;
  record.wall_s = std::chrono::duration<double>(Clock::now() - started).count();  // the checks included
  if (none_passed) {
    record.status = checks.empty() ? StageStatus::kSkipped : StageStatus::kNoGain;
    record.reason = checks.empty() ? "no lower-precision variant could be made in the budget (see skipped)"
                                   : "no lower-precision variant passed its verification (see rejected)";
  }
}

}  // namespace hone::tune
