// Stage 1, baseline: the model as a naive user serves it (no batching, one instance, ONNX Runtime's defaults),
// served and in process, with its quality on the held-out rows: the reference every later stage is measured
// against.
#include <fmt/format.h>

#include <algorithm>

#include "check/metric.h"
#include "tune/tune_state.h"

namespace hone::tune {

void RunBaseline(TuneState& state) {
  const auto started = std::chrono::steady_clock::now();
  state.Say("stage 1 of 7 (baseline): served as a naive user would (no batching, one instance, ONNX Runtime defaults)");
  std::vector<TrialResult> repeats;
  int rounds = state.given.settings->quick ? 2 : 3;
  TrialPlan plan = state.given.plan;
  plan.window_s = state.given.settings->quick ? 0.15 : 0.5;
  plan.stop = state.given.settings->stop;
  std::string error;
  for (int i = 0; i < rounds && !state.stopped(); ++i) {
    auto t = MeasureServed(state.given.baseline, plan);
    if (!t.ok()) {
      error = t.status().message();
      break;
    }
    repeats.push_back(std::move(*t));
  }
  StageRecord record = StageRecord::Of("baseline", 1, StageStatus::kFailed, error);
  if (!repeats.empty()) {
    state.ledger.baseline_trial = MergeRepeats(repeats);
    state.ledger.baseline_trial.first_point = repeats.front().first_point;
    state.ledger.incumbent_trial = state.ledger.baseline_trial;
    // How long the next trials will take: first the window a slow model's requests need, then what is left of the
    // gap between the estimate and what the baseline's trials took.
    double slowest_rps = 0;
    for (const LoadFigures& f : state.ledger.baseline_trial.loads) {
      const double rps = f.load.open_loop() ? f.load.rate : f.throughput_sps;
      if (rps > 0 && (slowest_rps == 0 || rps < slowest_rps)) slowest_rps = rps;
    }
    if (slowest_rps > 0) {
      state.budget.shortest_window_s = static_cast<double>(kTrialMinRequests) / kTrialWindows / slowest_rps;
    }
    const double per_trial = state.ledger.baseline_trial.wall_s / double(repeats.size());
    state.budget.trial_scale = std::clamp(per_trial / state.TrialSeconds(plan.window_s), 1.0, 20.0);
    if (repeats.size() >= 2) state.ledger.noise_seen = std::max(0.05, ScoreSpread(state.ledger.baseline_trial));
    record.status = StageStatus::kMeasured;  // the reference every later stage is measured against
    record.winner = "baseline";
    record.delta_vs_baseline = record.delta_vs_previous = 1;
    Entry e;
    e.candidate = state.given.baseline;
    e.trial = state.ledger.baseline_trial;
    e.score = ScoreTrial(state.given.objective, state.ledger.baseline_trial);
    e.measured = true;
    e.outcome = Outcome::kChosen;
    e.reason = "the reference";
    e.ratio_vs_incumbent = 1;
    record.entries.push_back(e);
    record.reason = state.given.objective.slos.empty() ? "the reference every later stage is measured against"
                    : e.score.feasible             ? "the baseline meets every SLO already"
                                                   : "the baseline, as served naively, misses an SLO";
  }
  auto in_process = MeasureInProcess(state.given.baseline, plan);
  if (in_process.ok()) state.ledger.baseline_in_process = *in_process;
  if (!state.given.has_labels) {
    // Without labels, quality is closeness to the source (the variants' worst output cosine); the source's is 1.
    state.ledger.quality_by_candidate["baseline"] = QualityRecord{"cosine_to_source", 1.0, {}};
  } else if (!state.given.heldout_path.empty()) {
    check::EvaluateSettings e;
    e.model_path = state.given.settings->model_path;
    e.inputs = state.given.plan.inputs;
    e.output = state.given.settings->output;
    auto quality = check::Evaluate(e);
    if (quality.ok()) {
      state.ledger.baseline_quality = *quality;
      const check::Metric* acc = check::FindMetric(quality->metrics, "accuracy");
      state.ledger.quality_by_candidate["baseline"] =
          acc ? QualityRecord{"accuracy", acc->value, {}} : QualityRecord{};
    }
  }
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  state.ledger.stages.push_back(std::move(record));
}

}  // namespace hone::tune
