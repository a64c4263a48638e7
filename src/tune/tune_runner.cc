#include "onnx/model_json.h"
#include "tune/tune_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "base/atomic_file.h"
#include "check/metric.h"
#include "harness/profile.h"
#include "harness/variant_check.h"
#include "report/report_envelope.h"
#include "runtime/session.h"
#include "tensor/npz.h"
#include "tune/report_html.h"
#include "tune/tune_final.h"
#include "tune/tune_state.h"

namespace hone::tune {
namespace fs = std::filesystem;
namespace {

constexpr double kMaxBudgetS = 7 * 24 * 3600.0;

Status CheckOutDir(const std::string& out) {
  if (out.empty()) return Status::InvalidArgument("-o OUT is required: the folder tune writes its report and repository into");
  std::error_code ec;
  for (const char* name : {"report.json", "report.html", "repository"}) {
    if (fs::exists(fs::path(out) / name, ec)) {
      return Status::InvalidArgument(fmt::format(
          "'{}' already holds {}: tune never overwrites a previous run; choose another -o", out, name));
    }
  }
  fs::create_directories(out, ec);
  if (ec) return Status::NotFound(fmt::format("cannot create '{}': {}", out, ec.message()));
  return Status::Ok();
}

void RunBaseline(TuneState& state) {
  const auto started = std::chrono::steady_clock::now();
  state.Say("stage 1 of 6 (baseline): served as a naive user would (no batching, one instance, ONNX Runtime defaults)");
  std::vector<TrialResult> repeats;
  int rounds = state.settings->quick ? 2 : 3;
  TrialPlan plan = state.plan;
  plan.window_s = state.settings->quick ? 0.15 : 0.5;
  plan.stop = state.settings->stop;
  std::string error;
  for (int i = 0; i < rounds && !state.stopped(); ++i) {
    auto t = MeasureServed(state.baseline, plan);
    if (!t.ok()) {
      error = t.status().message();
      break;
    }
    repeats.push_back(std::move(*t));
  }
  StageRecord record = StageRecord::Of("baseline", 1, StageStatus::kFailed, error);
  if (!repeats.empty()) {
    state.baseline_trial = MergeRepeats(repeats);
    state.baseline_trial.first_point = repeats.front().first_point;
    state.incumbent_trial = state.baseline_trial;
    state.trial_scale = std::clamp(state.baseline_trial.wall_s / double(repeats.size()) / state.TrialSeconds(plan.window_s),
                                   1.0, 20.0);
    if (repeats.size() >= 2) state.noise_seen = std::max(0.05, ScoreSpread(state.baseline_trial));
    record.status = StageStatus::kMeasured;  // the reference every later stage is measured against
    record.winner = "baseline";
    record.delta_vs_baseline = record.delta_vs_previous = 1;
    Entry e;
    e.candidate = state.baseline;
    e.trial = state.baseline_trial;
    e.score = ScoreTrial(state.objective, state.baseline_trial);
    e.measured = true;
    e.outcome = Outcome::kChosen;
    e.reason = "the reference";
    e.ratio_vs_incumbent = 1;
    record.entries.push_back(e);
    record.reason = state.objective.slos.empty() ? "the reference every later stage is measured against"
                    : e.score.feasible             ? "the baseline meets every SLO already"
                                                   : "the baseline, as served naively, misses an SLO";
  }
  auto in_process = MeasureInProcess(state.baseline, plan);
  if (in_process.ok()) {
    state.baseline_in_process = *in_process;
    nlohmann::json loads = nlohmann::json::array();
    for (const LoadFigures& f : in_process->loads) loads.push_back(LoadFiguresJson(f));
    record.extra["in_process"] = loads;
  }
  if (!state.has_labels) {
    // Without labels, quality is closeness to the source (the variants' worst output cosine); the source's is 1.
    state.quality_by_candidate["baseline"] = {{"metric", "cosine_to_source"}, {"value", 1.0}};
  } else if (!state.heldout_path.empty()) {
    check::EvaluateSettings e;
    e.model_path = state.settings->model_path;
    e.inputs = state.plan.inputs;
    auto quality = check::Evaluate(e);
    if (quality.ok()) {
      state.baseline_quality = *quality;
      const check::Metric* acc = check::FindMetric(quality->metrics, "accuracy");
      state.quality_by_candidate["baseline"] = {{"metric", acc ? "accuracy" : ""},
                                                {"value", acc ? nlohmann::json(acc->value) : nlohmann::json()}};
      record.extra["quality"] = {{"accuracy", acc ? nlohmann::json(acc->value) : nlohmann::json()}};
    }
  }
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  state.stages.push_back(std::move(record));
}

void RunProfile(TuneState& state) {
  auto started = std::chrono::steady_clock::now();
  state.Say("stage 2 of 6 (profile): ONNX Runtime's profiler and the served path's split");
  StageRecord record = StageRecord::Of("profile", 2, StageStatus::kNoGain, "");
  harness::ProfileSettings p;
  p.model_path = state.settings->model_path;
  p.inputs = state.plan.inputs;
  p.runs = state.settings->quick ? 20 : 50;
  p.work_dir = state.work_dir;
  auto profile = harness::ProfileModel(p);
  std::vector<std::string> decisions;
  if (profile.ok()) {
    state.profile = harness::ProfileToJson(*profile);
    state.matmul_first = profile->matmul_dominated();
    record.reason = profile->summary;
    decisions.push_back(state.matmul_first ? "MatMul/Gemm dominate: INT4 weight-only is tried first in precision"
                                           : "MatMul/Gemm do not dominate: INT8 is tried first in precision");
  } else {
    state.profile = {{"summary", nullptr}, {"error", profile.status().message()}};
    record.status = StageStatus::kFailed;
    record.reason = "the profiler failed: " + profile.status().message();
  }
  if (state.baseline_trial.first_point) {
    harness::ServedSplit split = harness::ServedSplitFrom(*state.baseline_trial.first_point);
    state.profile["served_split"] = harness::ServedSplitToJson(split);
    decisions.push_back(split.queue_dominated() ? "the served path is dominated by queueing: batching comes first"
                                                : "served path: " + split.summary);
  }
  state.profile["decisions"] = decisions;
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  state.stages.push_back(std::move(record));
}

std::string Summary(const TuneState& state, const FinalCheck& final_check, int exit_code) {
  const bool no_slo = state.objective.slos.empty();
  std::string text = "\nhone tune: " +
                     std::string(exit_code == 130 ? "INTERRUPTED (the report holds what finished)"
                                 : exit_code == 0 ? (no_slo ? "done, " : "") + state.WhatWasMet()
                                                  : "NOT MET") +
                     "\n";
  if (no_slo && !final_check.trial.loads.empty()) {
    const LoadFigures& f = final_check.trial.loads[0];
    text += fmt::format("  no --slo: {:.0f} samples/s at {} with p99 {:.2f} ms (through hone serve)\n",
                        f.throughput_sps, f.load.Label(), double(f.p99_ns) / 1e6);
  }
  for (const SloResult& r : final_check.slo_results) text += "  " + r.detail + "\n";
  double ratio = ScoreRatio(state.objective, final_check.trial, state.baseline_trial);
  if (state.incumbent.id == "baseline") {
    text += fmt::format("  the baseline stays: {}{}\n", state.WhyBaselineStays(),
                        ratio > 0 ? fmt::format("; measured again at the end: {:.2f}x", ratio) : "");
  } else if (ratio > 0) {
    text += fmt::format("  final / baseline score: {:.2f}x, measured apart (the run's noise: +-{:.0f}%) ({})\n", ratio,
                        100 * state.noise_seen, state.incumbent.Describe());
  }
  const Candidate& chosen = state.incumbent;
  if (chosen.dynamic_batching && chosen.max_batch_size > 0 && chosen.max_queue_delay_us > 0) {
    // The objective is met at the SLO's load; below it the chosen wait is paid in full, which the figures above
    // do not show.
    text += fmt::format(
        "  note: with Triton's timing a batch waits up to {} us to fill: at the SLO's load batches fill first, but a "
        "request that arrives alone waits the whole {} us (hone.batch_timing work_conserving in the repository's "
        "config.pbtxt never waits while an instance is free)\n",
        chosen.max_queue_delay_us, chosen.max_queue_delay_us);
  }
  text += "  outputs: " + final_check.outputs_detail + "\n";
  for (const StageRecord& s : state.stages) {
    text += fmt::format("  stage {} {:<10} {:<8} {}\n", s.index, s.name, StageStatusName(s.status), s.reason);
  }
  if (!final_check.error.empty()) text += "  final check failed: " + final_check.error + "\n";
  return text;
}

}  // namespace

std::string_view StageStatusName(StageStatus status) {
  switch (status) {
    case StageStatus::kMeasured: return "measured";
    case StageStatus::kImproved: return "improved";
    case StageStatus::kNoGain: return "no gain";
    case StageStatus::kSkipped: return "skipped";
    case StageStatus::kFailed: return "failed";
  }
  return "?";
}

Result<TuneOutcome> RunTune(const TuneSettings& settings) {
  TuneState state;
  state.settings = &settings;
  state.started = std::chrono::steady_clock::now();
  if (!(settings.budget_s > 0 && settings.budget_s <= kMaxBudgetS)) {
    return Status::InvalidArgument(fmt::format("--budget: expected more than 0 and at most a week, got {:g} s",
                                               settings.budget_s));
  }
  state.deadline = state.started + std::chrono::milliseconds(static_cast<int64_t>(settings.budget_s * 1000));
  HONE_RETURN_IF_ERROR(CheckOutDir(settings.out_dir));
  state.work_dir = (fs::path(settings.out_dir) / fmt::format(".hone-tune-work-{}", getpid())).string();
  fs::create_directories(state.work_dir);
  struct RemoveWork {
    std::string dir;
    ~RemoveWork() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_work{state.work_dir};
  HONE_RETURN_IF_ERROR(PrepareTune(state));

  RunBaseline(state);
  if (state.baseline_trial.loads.empty() && !state.stopped()) {
    return Status::FailedPrecondition("the baseline could not be measured through hone serve: " +
                                      state.stages.back().reason);
  }
  // Interrupted from here on: every stage and the final check see state.stopped() and record that they did not
  // run, and the report of what finished is written.
  RunProfile(state);
  if (settings.search == SearchMode::kExhaustive) {
    RunExhaustiveSearch(state);
  } else {
    RunBatchingStage(state);
    RunGraphStage(state);
    RunThreadsStage(state);
    RunPrecisionStage(state);
    if (state.incumbent.precision != "fp32") RunThreadsStage(state, /*again=*/true);
  }
  RunGraphSaveStep(state);

  const std::string repository = (fs::path(settings.out_dir) / "repository").string();
  std::vector<TrialResult> curves;
  FinalCheck final_check = RunFinalCheck(state, repository, state.plan.model_name, &curves);
  if (state.exhaustive) {
    // The grid's best, each a repository of its own, for measuring side by side (scripts/prove-tune).
    const fs::path top = fs::path(settings.out_dir) / "top";
    for (size_t i = 0; i < state.exhaustive->top.size(); ++i) {
      const Candidate& c = state.exhaustive->top[i];
      const std::string path = (top / fmt::format("{}-{}", i + 1, c.id)).string();
      if (Status s = WriteRepository(c, state.plan.model_name, state.plan.metadata, path); !s.ok()) {
        state.skipped.push_back({"exhaustive", c.id, "its repository could not be written: " + s.message()});
      }
    }
  }
  const bool interrupted = state.interrupted || (settings.stop && settings.stop->load());
  const bool met = final_check.error.empty() && final_check.slos_met && final_check.quality_met();
  const int exit_code = interrupted ? 130 : met ? 0 : 1;

  report::ReportContext context;
  context.argv = settings.argv;
  context.started_at = std::chrono::system_clock::now() -
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(
                           std::chrono::steady_clock::now() - state.started);
  auto model_json = onnx::ModelFileJson(settings.model_path);
  TuneOutcome outcome;
  nlohmann::json body = TuneBodyJson(state, final_check, curves, repository, exit_code);
  outcome.report = report::MakeReport("tune", context, model_json.ok() ? *model_json : nlohmann::json(), body);
  outcome.exit_code = exit_code;
  outcome.summary = Summary(state, final_check, exit_code);
  // Texts from the model, the server or ONNX Runtime may hold bytes that are not UTF-8: replaced, never fatal.
  const std::string json_text = outcome.report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  HONE_RETURN_IF_ERROR(WriteFileAtomically((fs::path(settings.out_dir) / "report.json").string(), json_text + "\n"));
  HONE_RETURN_IF_ERROR(
      WriteFileAtomically((fs::path(settings.out_dir) / "report.html").string(), TuneReportToHtml(outcome.report)));
  return outcome;
}

}  // namespace hone::tune
