// `hone evaluate` as a library call: a model's task quality on a labelled dataset (classification, embedding or
// regression), per slice, under input perturbations, its numerical stability, and, against a reference, the
// deltas that quality gates check.
//
//   EvaluateSettings settings;
//   settings.model_path = "model.onnx";
//   settings.inputs.data_path = "test.npz";
//   HONE_ASSIGN_OR_RETURN(settings.gates, ParseGates("accuracy_drop<=0.005"));
//   HONE_ASSIGN_OR_RETURN(EvaluateReport report, Evaluate(settings));
//   if (!report.passed()) ...
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/result.h"
#include "check/gates.h"
#include "check/metric.h"
#include "check/perturbation.h"
#include "check/slices.h"
#include "check/stability.h"
#include "check/task.h"
#include "runtime/input_options.h"
#include "runtime/session_options.h"

namespace hone::check {

struct EvaluateSettings {
  std::string model_path;
  // A reference: a model run on the same inputs, or its saved outputs (.npz with an array per output, or a .npy of
  // the evaluated output). Classification and regression report deltas against it; embeddings are measured
  // against it (required for them).
  std::string against_path;
  runtime::InputOptions inputs;  // inputs.data_path is required: the dataset also holds labels and slice ids
  // Saved outputs (.npz or .npy, as against_path) that stand for the model's clean run on every sample of the
  // dataset: outputs the model gave elsewhere, such as over the wire from a server. The clean metrics, deltas,
  // slices and gates are computed on them; the model still runs the perturbations and the stability probe. Their
  // evaluated output must have the shape the model gives on the dataset. Empty: the model's own clean run.
  std::string candidate_outputs_path;
  runtime::SessionOptions session;
  int64_t batch = 0;             // samples per Run; 0: the inputs' default
  Task task = Task::kAuto;       // auto: integer labels and [samples, classes] scores -> classification; other
                                 // labels -> regression; no labels but --against -> embedding
  std::string output;            // the output evaluated; empty: the model's first
  std::string labels_key;        // the truth array; empty: the first of label, labels, target, targets, y
  std::string slice_key;         // group ids per sample; empty: no slices
  std::vector<Perturbation> perturbations;
  uint64_t perturb_seed = 1;
  // The stability probe's noise: gaussian with standard deviation epsilon * (each input's range in the dataset).
  // 0: no probe.
  double stability_epsilon = 1e-4;
  TaskOptions task_options;
  std::vector<Gate> gates;
  // Each pass of a model over the dataset as it finishes ("pass 2 of 5: 'model.onnx', perturbation ..."); null:
  // quiet. Not owned; outlives Evaluate.
  Progress* progress = nullptr;
};

struct PerturbationResult {
  Perturbation perturbation;
  TaskMetrics metrics;
  double primary = 0;  // the headline metric under the perturbation
  double drop = 0;     // how much worse than clean (positive = worse)
};

// One model (or saved outputs) on the dataset.
struct ModelEvaluation {
  std::string source;  // "model 'a.onnx'" or "saved outputs 'b.npy'"
  TaskMetrics metrics;
  std::vector<PerturbationResult> perturbations;  // models only
  std::optional<StabilityReport> stability;       // models only, when the probe is on
};

struct EvaluateReport {
  std::string inputs;   // the dataset and samples per run
  std::string runtime;  // ONNX Runtime version and session options
  runtime::SessionOptions session;  // the same, structured
  std::string machine;  // the hardware and software, as the caller describes it; empty: not said
  Task task = Task::kClassification;
  std::string output;   // the output evaluated
  Shape output_shape;
  std::string truth;    // what it was measured against: "labels 'label' (INT64 [2000])"
  std::string input_bounds;  // the clamping ranges perturbations used, per input
  uint64_t perturb_seed = 1;
  ModelEvaluation candidate;
  // Classification and regression with --against.
  std::optional<ModelEvaluation> reference;
  std::optional<double> prediction_agreement;  // classification with --against: ratio of equal argmax
  std::optional<SliceReport> slices;
  // NaN or Inf among the evaluated output's values, and (with --against) those where the reference has a number.
  // Either fails the evaluation through a gate added to the user's (nan_inf_outputs<=0 without a reference,
  // new_nan_inf_outputs<=0 with one): no metric computed over the finite values can be trusted otherwise.
  int64_t nan_inf_outputs = 0;
  std::optional<int64_t> new_nan_inf_outputs;
  std::vector<Metric> metrics;  // every named figure gates may refer to (see CollectMetrics)
  std::vector<GateResult> gates;

  // Every gate passed (true without gates).
  bool passed() const;
};

// Runs the evaluation. Errors name the file, array, output, flag or gate at fault: a missing dataset, labels that
// are not one integer per sample or exceed the output's classes, shapes that disagree, a gate on a metric the
// report lacks.
Result<EvaluateReport> Evaluate(const EvaluateSettings& settings);

// The named figures of a report, with these names (P is the task's headline metric: accuracy, cosine_mean or
// mae; "drop" becomes "increase" for a metric where lower is better):
//   the task's metrics (TaskMetrics::Flat);
//   P@KIND:AMOUNT and P_drop@KIND:AMOUNT per perturbation;
//   worst_slice_P and worst_slice_gap (how much worse than the whole);
//   non_finite_outputs, stability_max_change, stability_flip_rate (classifiers);
//   with a reference: NAME_drop (or NAME_increase) for each task metric, worst_slice_drop, prediction_agreement.
std::vector<Metric> CollectMetrics(const EvaluateReport& report);

}  // namespace hone::check
