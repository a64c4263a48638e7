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
  // The quality gates every variant and the final outputs are held to: the user's, or accuracy_drop<=0.01 when the
  // data has labels (none without: then the outputs must match the source within hone compare's defaults).
  std::vector<check::Gate> gates;
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
  // "best so far: batch8-delay0, 10,716 samples/s, p99 3.42 ms at concurrency 8"
  std::string BestSoFar() const;
  // The seconds one served trial at every load usually takes with windows of `window_s`: the server's start, and
  // per load a warm-up window and three measured ones (a fourth, now and then, when they disagree).
  double TrialSeconds(double window_s) const {
    return 0.4 + static_cast<double>(objective.loads.size()) * (4.5 * window_s + 0.1);
  }
  // What the final check needs: its rounds at the SLO loads, the two curves and the outputs over the wire.
  double FinalSeconds() const;
  // The seconds stage `index` (3 to 6) may spend: its share of what is left after the final check, the stages
  // after it weighed by how much they usually need.
  double StageRoom(int index) const;
  // The noise measured so far in this run (the baseline's own spread, each stage's paired rounds): what a stage
  // with too few rounds of its own assumes.
  double noise_seen = 0.25;
};

// The stages (tune_stages.cc, tune_precision.cc): each appends its record to state.stages and moves
// state.incumbent when a candidate wins.
void RunBatchingStage(TuneState& state);
void RunGraphStage(TuneState& state);
void RunThreadsStage(TuneState& state);
void RunPrecisionStage(TuneState& state);
// After precision (tune_graph_save.cc): the winner's optimized graph saved, verified, and served when it makes the
// model ready sooner; recorded under the graph stage's "saved_graph".
void RunGraphSaveStep(TuneState& state);
// Runs `candidates` (the incumbent first) through the search and records the stage.
void SearchStage(TuneState& state, const std::string& name, int index, std::vector<Candidate> candidates);
// The stage's search settings, fitted to its share of the budget: confirming rounds are cut first; when even the
// ranking does not fit, `candidates` is cut to what does (the riskiest go first) and the cut is recorded as skipped.
SearchSettings StageSearchSettings(TuneState& state, const std::string& name, int index,
                                   std::vector<Candidate>& candidates);

// report.json's body (tune_report.cc) and the terminal's summary.
nlohmann::json TuneBodyJson(const TuneState& state, const nlohmann::json& final_json);

}  // namespace hone::tune
