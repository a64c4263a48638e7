// What the stages of one `hone tune` run share (internal to the tune part): the objective, the trial plan, the
// best candidate so far and its measurement, the records of the stages done, and the clock against the budget.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/system_info.h"
#include "check/evaluate.h"
#include "tune/tune_runner.h"

namespace hone::tune {

struct RejectedCandidate {
  std::string candidate, stage, reason;
};
struct SkippedWork {
  std::string stage, what, reason;
};

struct TuneState {
  const TuneSettings* settings = nullptr;
  std::chrono::steady_clock::time_point started, deadline;
  Objective objective;
  TrialPlan plan;
  bench::SystemInfo system;
  runtime::ModelMetadata metadata;
  bool batch_axis = false;     // the model's inputs share a dynamic batch dimension (batching applies)
  std::string batch_reason;    // why not, when they do not
  std::string work_dir;
  std::string heldout_path;    // the held-out rows (gates, numerics, trials); = data_path without labels
  int64_t calibration_rows = 0;  // rows [0, calibration_rows) of the data calibrate, none of them are gated on
  bool has_labels = false;
  std::optional<check::EvaluateReport> baseline_quality;

  Candidate baseline;
  TrialResult baseline_trial, baseline_in_process;
  Candidate incumbent;
  TrialResult incumbent_trial;
  std::vector<StageRecord> stages;
  std::vector<RejectedCandidate> rejected;
  std::vector<SkippedWork> skipped;
  nlohmann::json profile;       // the profile stage's findings
  nlohmann::json quality_by_candidate = nlohmann::json::object();  // id -> {metric, value, gates}
  bool matmul_first = false;    // the profile says MatMul/Gemm dominate: weight-only INT4 is tried first
  bool interrupted = false;

  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  double left_s() const {
    return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  }
  bool stopped() const { return interrupted || (settings->stop && settings->stop->load()); }
  void Say(const std::string& text) const {
    if (settings->progress) settings->progress(text);
  }
  // The seconds one trial at every load takes with windows of `window_s` (warm-up, three windows, start-up).
  double TrialSeconds(double window_s) const {
    return 1.0 + static_cast<double>(objective.loads.size()) * (5 * window_s + 0.4);
  }
};

// The stages (tune_stages.cc, tune_precision.cc): each appends its record to state.stages and moves
// state.incumbent when a candidate wins.
void RunBatchingStage(TuneState& state);
void RunGraphStage(TuneState& state);
void RunThreadsStage(TuneState& state);
void RunPrecisionStage(TuneState& state);
// Runs `candidates` (the incumbent first) through the search and records the stage.
void SearchStage(TuneState& state, const std::string& name, int index, std::vector<Candidate> candidates);
SearchSettings StageSearchSettings(TuneState& state, const std::string& name, int index, size_t candidates);

// report.json's body (tune_report.cc) and the terminal's summary.
nlohmann::json TuneBodyJson(const TuneState& state, const nlohmann::json& final_json);

}  // namespace hone::tune
