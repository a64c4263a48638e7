// The precision stage: variants of the incumbent's model in lower precision, each verified before it may compete
// (numerics and quality gates on the held-out rows, speed against its source in process: tune/variant_check.h).
// A variant that fails on quality gets INC's treatment: the quantized nodes are ranked by what keeping each in
// FP32 buys back, and the worst are kept in FP32 one by one until the gates pass or the budget ends.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "check/metric.h"
#include "onnx/convert.h"
#include "onnx/quantize.h"
#include "tune/tune_state.h"
#include "tune/variant_check.h"

namespace hone::tune {
namespace fs = std::filesystem;
namespace {

struct Variant {
  std::string id;     // "int8-dynamic"
  std::string what;   // "dynamic INT8 (weights per channel, activations at run time)"
  int risk = 0;
  std::optional<onnx::QuantizeOptions> quantize;
  std::optional<onnx::ConvertOptions> convert;
};

bool HasFeature(const TuneState& state, std::string_view feature) {
  const auto& f = state.system.cpu_features;
  return std::find(f.begin(), f.end(), feature) != f.end();
}

std::vector<Variant> PlanVariants(TuneState& state) {
  std::vector<Variant> variants;
  onnx::QuantizeOptions dynamic;
  dynamic.mode = onnx::QuantizeMode::kDynamic;
  variants.push_back({"int8-dynamic", "dynamic INT8", 10, dynamic, std::nullopt});
  if (!state.settings->data_path.empty() && state.calibration_rows > 0) {
    onnx::QuantizeOptions st;
    st.mode = onnx::QuantizeMode::kStatic;
    st.calibration_inputs.data_path = state.settings->data_path;
    st.calibration_samples = state.calibration_rows;
    variants.push_back({"int8-static", fmt::format("static INT8 calibrated on rows 0..{}", state.calibration_rows - 1),
                        12, st, std::nullopt});
  } else {
    state.skipped.push_back({"precision", "static INT8", "needs --data with enough rows to calibrate on"});
  }
  onnx::QuantizeOptions weight_only;
  weight_only.mode = onnx::QuantizeMode::kWeightOnly;
  weight_only.bits = 4;
  Variant int4{"int4-weight-only", "INT4 weight-only (MatMul)", 14, weight_only, std::nullopt};
  if (state.matmul_first) {
    variants.insert(variants.begin(), int4);
  } else {
    variants.push_back(int4);
  }
  onnx::ConvertOptions fp16;
  if (HasFeature(state, "avx512_fp16")) {
    variants.push_back({"fp16", "FP16", 11, std::nullopt, fp16});
  } else {
    state.skipped.push_back({"precision", "FP16", "the CPU lacks AVX512-FP16: ONNX Runtime's FP16 CPU kernels would "
                                                  "run slower than FP32 here"});
  }
  if (HasFeature(state, "avx512_bf16") || HasFeature(state, "amx_bf16")) {
    onnx::ConvertOptions bf16;
    bf16.to = onnx::LowPrecision::kBf16;
    variants.push_back({"bf16", "BF16", 11, std::nullopt, bf16});
  } else {
    state.skipped.push_back({"precision", "BF16", "the CPU lacks AVX512-BF16 and AMX-BF16"});
  }
  return variants;
}

Status MakeVariant(const Variant& v, const std::string& source, const std::string& path,
                   std::vector<std::string>* quantized_nodes) {
  if (v.quantize) {
    HONE_ASSIGN_OR_RETURN(onnx::QuantizeSummary summary, onnx::QuantizeFile(source, path, *v.quantize));
    if (summary.quantized.empty()) return Status::FailedPrecondition("no node of the model could be quantized this way");
    for (const std::string& node : summary.quantized) {
      if (node.find('/') != std::string::npos) continue;  // subgraph nodes: not excluded one by one
      quantized_nodes->push_back(node.substr(0, node.find(" (")));
    }
    return Status::Ok();
  }
  HONE_ASSIGN_OR_RETURN(onnx::ConvertSummary summary, onnx::ConvertFile(source, path, *v.convert));
  (void)summary;
  return Status::Ok();
}

VariantCheck CheckFor(const TuneState& state, const std::string& variant_path) {
  VariantCheck check;
  check.source_path = state.incumbent.model_path;
  check.variant_path = variant_path;
  check.data.data_path = state.heldout_path;
  check.data_note = state.calibration_rows > 0 ? fmt::format("held-out rows (from row {})", state.calibration_rows) : "";
  check.session = state.incumbent.session;
  check.gates = state.gates;
  check.bench = true;
  check.bench_rounds = state.settings->quick ? 2 : 3;
  check.bench_window_s = state.settings->quick ? 0.1 : 0.25;
  return check;
}

// The headline quality loss of an outcome: accuracy_drop (or the task's drop) when labels exist, else the number
// of failed checks.
double QualityLoss(const VariantOutcome& outcome) {
  if (outcome.evaluate) {
    for (const char* name : {"accuracy_drop", "mae_increase", "cosine_mean_drop"}) {
      if (const check::Metric* m = check::FindMetric(outcome.evaluate->metrics, name)) return m->value;
    }
  }
  return static_cast<double>(outcome.failures.size());
}

bool FailedOnSpeedOnly(const VariantOutcome& outcome) {
  if (!outcome.speed || outcome.speed->verdict != SpeedVerdict::kSlower) return false;
  return outcome.failures.size() == 1;
}

nlohmann::json OutcomeJson(const Variant& v, const VariantOutcome& o, const std::vector<std::string>& fp32_nodes) {
  nlohmann::json j = {{"variant", v.id}, {"what", v.what}, {"passed", o.passed()}, {"failures", o.failures},
                      {"notes", o.notes}, {"kept_fp32", fp32_nodes}, {"variant_bytes", o.variant_bytes},
                      {"source_bytes", o.source_bytes}};
  if (o.speed) j["throughput_ratio_in_process"] = o.speed->throughput_ratio;
  if (o.evaluate) {
    nlohmann::json gates = nlohmann::json::array();
    for (const check::GateResult& g : o.evaluate->gates)
      gates.push_back({{"gate", g.gate.ToString()}, {"value", g.value}, {"passed", g.passed}});
    j["gates"] = gates;
  }
  return j;
}

}  // namespace

void RunPrecisionStage(TuneState& state) {
  std::vector<Candidate> candidates = {state.incumbent};
  nlohmann::json checks = nlohmann::json::array();
  if (state.incumbent.precision != "fp32") {
    state.stages.push_back(StageRecord::Of("precision", 6, "skipped", "the incumbent is not FP32"));
    return;
  }
  for (const Variant& v : PlanVariants(state)) {
    if (state.stopped() || state.left_s() < state.FinalSeconds() + 3 * state.TrialSeconds(0.25)) {
      state.skipped.push_back({"precision", v.what, state.stopped() ? "stopped" : "budget"});
      continue;
    }
    state.Say(fmt::format("stage 6 of 6 (precision): making and verifying {}; {}; {:.0f} s left", v.what,
                          state.BestSoFar(), state.left_s()));
    std::string path = (fs::path(state.work_dir) / (v.id + ".onnx")).string();
    std::vector<std::string> nodes;
    Status made = MakeVariant(v, state.incumbent.model_path, path, &nodes);
    if (!made.ok()) {
      state.rejected.push_back({v.id, "precision", "could not be made: " + made.message()});
      continue;
    }
    auto outcome = CheckVariant(CheckFor(state, path));
    if (!outcome.ok()) {
      state.rejected.push_back({v.id, "precision", "could not be verified: " + outcome.status().message()});
      continue;
    }
    std::vector<std::string> fp32_nodes;
    // FP32 fallback for a quantized variant that failed on quality, not on speed.
    if (!outcome->passed() && !FailedOnSpeedOnly(*outcome) && v.quantize && nodes.size() > 1 &&
        outcome->load_error.empty() && !outcome->identical) {
      std::vector<std::pair<double, std::string>> sensitivity;
      for (const std::string& node : nodes) {
        if (state.left_s() < state.FinalSeconds() + 5 * state.TrialSeconds(0.25) || state.stopped()) break;
        Variant trial = v;
        trial.quantize->exclude_nodes = {node};
        std::string p = (fs::path(state.work_dir) / (v.id + "-probe.onnx")).string();
        std::vector<std::string> ignored;
        if (!MakeVariant(trial, state.incumbent.model_path, p, &ignored).ok()) continue;
        VariantCheck probe = CheckFor(state, p);
        probe.bench = false;
        auto o = CheckVariant(probe);
        if (o.ok()) sensitivity.push_back({QualityLoss(*o), node});
      }
      std::sort(sensitivity.begin(), sensitivity.end());
      Variant fallback = v;
      for (size_t k = 0; k < sensitivity.size() && k + 1 < nodes.size() && k < 4; ++k) {
        if (state.left_s() < state.FinalSeconds() + 4 * state.TrialSeconds(0.25) || state.stopped()) break;
        fallback.quantize->exclude_nodes.push_back(sensitivity[k].second);
        std::vector<std::string> ignored;
        std::string p = (fs::path(state.work_dir) / fmt::format("{}-fp32-{}.onnx", v.id, k + 1)).string();
        if (!MakeVariant(fallback, state.incumbent.model_path, p, &ignored).ok()) break;
        auto o = CheckVariant(CheckFor(state, p));
        if (!o.ok()) break;
        fp32_nodes = fallback.quantize->exclude_nodes;
        if (o->passed()) {
          path = p;
          *outcome = std::move(*o);
          break;
        }
        if (FailedOnSpeedOnly(*o)) {
          *outcome = std::move(*o);
          break;
        }
      }
    }
    checks.push_back(OutcomeJson(v, *outcome, fp32_nodes));
    if (!outcome->passed()) {
      std::string reason = fmt::format("{}", fmt::join(outcome->failures, "; "));
      if (!fp32_nodes.empty()) reason += fmt::format(" (also with {} kept in FP32)", fmt::join(fp32_nodes, ", "));
      state.rejected.push_back({v.id, "precision", reason});
      continue;
    }
    Candidate c = state.incumbent;
    c.id = fp32_nodes.empty() ? v.id : fmt::format("{}-fp32x{}", v.id, fp32_nodes.size());
    c.stage = "precision";
    c.model_path = path;
    c.precision = v.id;
    c.risk = state.incumbent.risk + v.risk + static_cast<int>(fp32_nodes.size());
    if (outcome->evaluate) {
      nlohmann::json gates = nlohmann::json::array();
      for (const check::GateResult& g : outcome->evaluate->gates)
        gates.push_back({{"gate", g.gate.ToString()}, {"value", g.value}, {"passed", g.passed}});
      const check::Metric* accuracy = check::FindMetric(outcome->evaluate->metrics, "accuracy");
      state.quality_by_candidate[c.id] = {{"metric", accuracy ? "accuracy" : ""},
                                          {"value", accuracy ? nlohmann::json(accuracy->value) : nlohmann::json()},
                                          {"gates", gates}};
    }
    candidates.push_back(c);
  }
  bool none_passed = candidates.size() < 2;
  SearchStage(state, "precision", 6, std::move(candidates));
  state.stages.back().extra["variant_checks"] = checks;
  if (none_passed) {
    StageRecord& record = state.stages.back();
    record.status = checks.empty() ? "skipped" : "no gain";
    record.reason = checks.empty() ? "no lower-precision variant could be made in the budget (see skipped)"
                                   : "no lower-precision variant passed its verification (see rejected)";
  }
}

}  // namespace hone::tune
