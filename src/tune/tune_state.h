// What the stages of one `hone tune` run share (internal to the tune part), in three parts that change at
// different times: what the run is given (settled before anything is measured, const afterwards), its budget
// (the clock), and the ledger of what it found (stages, candidates, rejections, skips, the incumbent). JSON is
// made from them only by the report (tune_report.cc).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check/evaluate.h"
#include "harness/profile.h"
#include "onnx/convert.h"
#include "onnx/quantize.h"
#include "report/system_info.h"
#include "tune/stage_record.h"
#include "tune/tune_runner.h"

namespace hone::tune {

// What a run is given: the user's settings and what PrepareTune reads from them (tune_prepare.cc).
struct TuneGiven {
  const TuneSettings* settings = nullptr;
  Objective objective;
  TrialPlan plan;
  report::SystemInfo system;
  runtime::ModelMetadata metadata;
  bool batch_axis = false;     // the model's inputs share a dynamic batch dimension (batching applies)
  std::string batch_reason;    // why not, when they do not
  std::string work_dir;
  std::string heldout_path;    // the held-out rows (gates, numerics, trials); = data_path without labels
  int64_t calibration_rows = 0;  // rows [0, calibration_rows) of the data calibrate, none of them are gated on
  int64_t heldout_rows = 1;      // rows in heldout_path (1: whole tensors)
  bool has_labels = false;
  std::string generated_note;  // how the held-out rows were generated, when no --data was given
  std::string objective_note;  // how tune reads an objective the user left out
  // The quality gates every variant and the final outputs are held to: the user's, or accuracy_drop<=0.01 when the
  // data has labels (none without: then the outputs must match the source within hone compare's defaults).
  std::vector<check::Gate> gates;
  Candidate baseline;  // the model as a naive user serves it
};

// The clock against the budget.
struct TuneBudget {
  std::chrono::steady_clock::time_point started, deadline;
  const std::atomic<bool>* stop = nullptr;  // Ctrl-C
  bool interrupted = false;
  // The shortest a trial's window can be: the time the baseline needs at its slowest load to complete a window's
  // share of kTrialMinRequests (a slow model's windows grow to hold them, whatever the window asked for). 0: unknown.
  double shortest_window_s = 0;
  // How much longer the baseline's trials took than TuneState::TrialSeconds says (server start, warm-up): every
  // later estimate is scaled by it. At least 1.
  double trial_scale = 1;

  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  double left_s() const {
    return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  }
  bool stopped() const { return interrupted || (stop && stop->load()); }
};

struct RejectedCandidate {
  std::string candidate, stage, reason;
};
struct SkippedWork {
  std::string stage, what, reason;
};

// What the profile stage found, and what it decided for the stages after it.
struct ProfileFindings {
  std::optional<harness::ModelProfile> profile;  // none when the profiler failed
  std::string error;                              // why it failed
  std::optional<harness::ServedSplit> served_split;  // where a served request's time goes (the baseline's trial)
  std::vector<std::string> decisions;
};

// A candidate's quality on the held-out rows: accuracy with labels, else the worst output cosine to the source.
struct QualityRecord {
  std::string metric;           // "accuracy", "cosine_to_source"; empty: not measured
  std::optional<double> value;
  std::vector<check::GateResult> gates;  // the variant check's gates, for variants
};

// The exhaustive search (exhaustive_search.cc), when it ran.
struct ExhaustiveFacts {
  int candidates = 0;
  int models = 0, batching = 0, graph = 0, threads = 0;  // the grid's sides (each counts the baseline's setting)
  double wall_s = 0;
  std::vector<Candidate> top;  // its confirmed finalists, the winner first
};

// What the run found.
struct TuneLedger {
  TrialResult baseline_trial, baseline_in_process;
  std::optional<check::EvaluateReport> baseline_quality;
  Candidate incumbent;  // the best so far
  TrialResult incumbent_trial;
  std::vector<StageRecord> stages;
  std::vector<RejectedCandidate> rejected;
  std::vector<SkippedWork> skipped;
  ProfileFindings profile;
  std::map<std::string, QualityRecord> quality_by_candidate;  // by candidate id
  bool matmul_first = false;  // the profile says MatMul/Gemm dominate: weight-only INT4 is tried first
  // The profile says Conv, MatMul/Gemm and attention take most of the kernel time: pruning channels, neurons and
  // heads removes work where it is.
  bool compute_first = false;
  std::string saved_graph_of;  // the candidate whose optimized graph the winner serves, when RunGraphSaveStep chose it
  std::optional<ExhaustiveFacts> exhaustive;
  // The largest noise measured so far in this run (the baseline's own spread, each stage's paired interval), for the
  // summary; no decision borrows it: each stage measures its own.
  double noise_seen = 0;
};

struct TuneState {
  explicit TuneState(const TuneGiven& g) : given(g) {}
  const TuneGiven& given;
  TuneBudget budget;
  TuneLedger ledger;

  double elapsed_s() const { return budget.elapsed_s(); }
  double left_s() const { return budget.left_s(); }
  bool stopped() const { return budget.stopped(); }
  void Say(const std::string& text) const {
    if (given.settings->progress) given.settings->progress(text);
  }
  // "best so far: batch8-delay0, 10,716 samples/s, p99 3.42 ms at concurrency 8"
  std::string BestSoFar() const;
  // Why the baseline is still the winner, from what the stages did: "no stage beat it by more than the noise (4
  // measured candidates)" or "2 stages measured candidates and none beat it beyond the noise; 2 were skipped or
  // failed (see skipped)".
  std::string WhyBaselineStays() const;
  // What a met verdict met: "every SLO and gate met", "every gate met" (no SLO), "every SLO met and the outputs
  // over the wire match the source" (no gates), or "the outputs over the wire match the source" (neither).
  std::string WhatWasMet() const;
  // The seconds one served trial at every load usually takes with windows of `window_s` (or longer, for a slow
  // model: TuneBudget::shortest_window_s): the server's start, and per load a warm-up window and three measured ones
  // (a fourth, now and then, when they disagree).
  double TrialSeconds(double window_s) const {
    const double window = std::max(window_s, budget.shortest_window_s);
    return budget.trial_scale * (0.4 + static_cast<double>(given.objective.loads.size()) * (4.5 * window + 0.1));
  }
  // What the final check needs: its rounds at the SLO loads, the two curves and the outputs over the wire.
  double FinalSeconds() const;
  // The seconds stage `index` (3 to 7) may spend: its share of what is left after the final check, the stages
  // after it weighed by how much they usually need.
  double StageRoom(int index) const;
};

// The model's metadata, the data split (or generated held-out rows under work_dir), the gates, the objective, the
// trial plan and the baseline candidate (tune_prepare.cc). given.settings and given.work_dir must be set. Errors are
// the user's to fix (InvalidArgument or NotFound naming the flag or file): nothing has been measured yet.
Status PrepareTune(TuneGiven& given);

// Stage 1 (baseline_stage.cc): the baseline served and in process, and its quality; sets the incumbent's trial.
void RunBaseline(TuneState& state);
// Stage 2 (profile_stage.cc): the profile's findings and decisions.
void RunProfile(TuneState& state);
// The stages (batching_stage.cc, graph_stage.cc, threads_stage.cc, precision_stage.cc): each appends its record to
// state.ledger.stages and moves state.ledger.incumbent when a candidate wins.
void RunBatchingStage(TuneState& state);
void RunGraphStage(TuneState& state);
// again: after the precision or compression stage chose another model, whose best instances and threads may differ
// from the float model's (index 8, "retune").
void RunThreadsStage(TuneState& state, bool again = false);
void RunPrecisionStage(TuneState& state);

// One lower-precision variant the precision stage makes from the incumbent's model and verifies.
struct PrecisionVariant {
  std::string id;    // "int8-dynamic"
  std::string what;  // "dynamic INT8"
  int risk = 0;
  std::optional<onnx::QuantizeOptions> quantize;  // a quantization: per-node FP32 fallback applies to it
  std::optional<onnx::ConvertOptions> convert;    // a precision conversion (FP16, BF16)
  // Any other way to write the variant of `source` to `path` (tests plant variants this way); wins when set.
  std::function<Status(const std::string& source, const std::string& path)> make;
  // The compression stage's: the precision of the model `make` writes ("fp32", or the incumbent's when it prunes and
  // then quantizes as the incumbent was); and the model its verification measures against (empty: the incumbent's).
  std::string precision;
  std::string verify_against;
  std::string compression;  // what the candidate says it compressed ("prune-ffn-25"); empty: the id
};
// Which of a candidate's settings a variant stage changes.
enum class VariantChange { kPrecision, kCompression };
struct VariantStage {
  std::string name;  // "precision", "compression"
  int index = 0;     // 6, 7
  VariantChange change = VariantChange::kPrecision;
};
// What this machine and the profile call for: dynamic INT8, static INT8 (with calibration rows), INT4 weight-only
// (first when MatMul/Gemm dominate), FP16 and BF16 where the CPU has the instructions; the rest is recorded as
// skipped, with why.
std::vector<PrecisionVariant> PlanPrecisionVariants(TuneState& state);
void RunPrecisionStage(TuneState& state, const std::vector<PrecisionVariant>& variants);
// Makes each of `variants` from the incumbent's model and verifies it against it (numerics, gates, speed) until
// `verify_end`; returns those that passed as candidates (their quality recorded), the others recorded as rejected
// or skipped. Each check is appended to `checks` (report.json's variant_checks).
std::vector<Candidate> MakeVerifiedVariants(TuneState& state, const VariantStage& stage,
                                            const std::vector<PrecisionVariant>& variants,
                                            std::chrono::steady_clock::time_point verify_end,
                                            std::vector<VariantCheckRecord>& checks);
// Stage 7 (compression_stage.cc), after precision: the user's model with a quarter and a half of its feed-forward
// neurons pruned and refitted (hone prune), and each pruned again quantized as the incumbent was when that is
// dynamic INT8; each verified against the user's model, then searched against the incumbent. Skipped, saying why,
// without calibration rows, when the profile says MatMul is not where the time goes, or when the model has no
// feed-forward block to prune.
std::vector<PrecisionVariant> PlanCompressionVariants(TuneState& state, std::string* skip_reason);
void RunCompressionStage(TuneState& state);
// After precision (tune_graph_save.cc): the winner's optimized graph saved, verified, and served when it makes the
// model ready sooner; recorded under the graph stage's "saved_graph".
void RunGraphSaveStep(TuneState& state);
// What a search measures a candidate with: a served trial of the run's plan.
MeasureFn ServedTrials(const TuneState& state);
// The search's outcome into `record` (entries, winner, reason, signal, rounds, deltas, status) and the ledger
// (rejections, the incumbent and its figures, the noise seen).
void RecordSearch(TuneState& state, const SearchResult& search, StageRecord& record);
// Runs `candidates` (the incumbent first) through the search and records the stage.
void SearchStage(TuneState& state, const std::string& name, int index, std::vector<Candidate> candidates);
// The stage's search settings, fitted to its share of the budget: confirming rounds are cut first; when even the
// ranking does not fit, `candidates` is cut to what does (the riskiest go first) and the cut is recorded as skipped.
SearchSettings StageSearchSettings(TuneState& state, const std::string& name, int index,
                                   std::vector<Candidate>& candidates);

// Instead of stages 3 to 7 (exhaustive_search.cc): every combination of the stages' candidates made from the
// baseline, with every verified precision variant's model, searched at once; records one stage, "exhaustive".
void RunExhaustiveSearch(TuneState& state);

struct FinalCheck;
// report.json's body (tune_report.cc): the objective, baseline, profile, stages, rejected and skipped candidates,
// the final check through the server with its curves, the repository and the commands that reproduce it, and the
// verdict (exit_code 0 met, 1 not, 130 interrupted).
nlohmann::json TuneBodyJson(const TuneState& state, const FinalCheck& final_check,
                            const std::vector<TrialResult>& curves, const std::string& repository, int exit_code);

}  // namespace hone::tune
