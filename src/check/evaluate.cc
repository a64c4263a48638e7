#include "check/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "check/classifier_agreement.h"
#include "check/model_outputs.h"
#include "check/numeric_values.h"
#include "check/report_format.h"
#include "check/truth.h"
#include "runtime/session.h"
#include "tensor/npy.h"

namespace hone::check {
namespace {

std::string Source(const std::string& path, bool model) {
  return fmt::format("{} '{}'", model ? "model" : "saved outputs", path);
}

// The dataset's arrays: a .npz's, or a .npy's one array named after the model's only input.
Result<std::vector<NamedTensor>> ReadDataset(const std::string& path, const runtime::ModelMetadata& model) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
    HONE_ASSIGN_OR_RETURN(Tensor t, ReadNpy(path));
    std::vector<NamedTensor> one;
    one.push_back({model.inputs.empty() ? "" : model.inputs[0].name, std::move(t)});
    return one;
  }
  return ReadNpz(path);
}

// Output `name` of `outputs` as doubles (an unnamed single array stands for it), with its shape.
Result<std::vector<double>> OutputValues(const std::vector<NamedTensor>& outputs, const std::string& name,
                                         const std::string& source, Shape& shape) {
  const NamedTensor* found = nullptr;
  for (const NamedTensor& o : outputs)
    if (o.name == name || (outputs.size() == 1 && o.name.empty())) found = &o;
  if (!found) {
    std::string names;
    for (const auto& o : outputs) names += (names.empty() ? "" : ", ") + o.name;
    return Status::InvalidArgument(fmt::format("{} has no output '{}' (outputs: {})", source, name, names));
  }
  shape = found->tensor.shape();
  return ToDoubles(found->tensor, fmt::format("output '{}' of {}", name, source));
}

// Passes over the dataset finished so far, for the progress line; one per evaluation.
struct Passes {
  Progress* progress = nullptr;  // may be null
  size_t done = 0;
};

// One model, ready to run on the inputs and give the evaluated output.
struct Runner {
  const runtime::Session* session = nullptr;
  const InputSet* inputs = nullptr;
  int64_t batch = 0;
  std::string output;
  Passes* passes = nullptr;  // may be null

  // `what` names the pass for the progress line: "clean", "perturbation gaussian:0.1", ...
  Result<std::vector<double>> Run(InputTransform transform, Shape& shape, std::string_view what = "clean") const {
    const std::string label = fmt::format("'{}', {}", session->model_path(), what);
    if (passes && passes->progress) passes->progress->Update(label);
    HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> outputs,
                          RunOnAllSamples(*session, *inputs, RunOptions{batch, std::move(transform)}));
    if (passes && passes->progress) passes->progress->StepDone(++passes->done, label);
    return OutputValues(outputs, output, Source(session->model_path(), true), shape);
  }
};

// Per model input: its finite range in the dataset (floating-point inputs only), to clamp perturbations to.
std::vector<std::optional<Bounds>> InputBounds(const InputSet& inputs, const std::vector<NamedTensor>& dataset) {
  std::vector<std::optional<Bounds>> bounds(inputs.specs.size());
  for (size_t i = 0; i < inputs.specs.size(); ++i) {
    for (const NamedTensor& a : dataset) {
      if (a.name != inputs.specs[i].name || !IsFloatingPoint(a.tensor.type())) continue;
      auto values = ToDoubles(a.tensor, a.name);
      if (!values.ok()) continue;
      bool any = false;
      Bounds b;
      for (double v : *values) {
        if (!std::isfinite(v)) continue;
        b.low = any ? std::min(b.low, v) : v;
        b.high = any ? std::max(b.high, v) : v;
        any = true;
      }
      if (any) bounds[i] = b;
    }
  }
  return bounds;
}

std::string BoundsText(const InputSet& inputs, const std::vector<std::optional<Bounds>>& bounds) {
  std::string s;
  for (size_t i = 0; i < bounds.size(); ++i)
    if (bounds[i]) s += fmt::format("{}{} in [{:g}, {:g}]", s.empty() ? "" : ", ", inputs.specs[i].name,
                                    bounds[i]->low, bounds[i]->high);
  return s;
}

Result<std::vector<PerturbationResult>> RunPerturbations(const Runner& runner, const EvaluateSettings& s,
                                                         const TaskTruth& truth, const TaskMetrics& clean,
                                                         const std::vector<std::optional<Bounds>>& bounds) {
  std::vector<PerturbationResult> results;
  const Metric primary = clean.Primary();
  for (size_t p = 0; p < s.perturbations.size(); ++p) {
    const Perturbation& perturbation = s.perturbations[p];
    HONE_RETURN_IF_ERROR(CheckApplicable(perturbation, runner.inputs->specs));
    InputTransform transform = [&](std::vector<Tensor>& batch, int64_t first) {
      ApplyPerturbation(perturbation, batch, runner.inputs->specs, bounds, first, s.perturb_seed, p);
    };
    Shape shape;
    HONE_ASSIGN_OR_RETURN(std::vector<double> values,
                          runner.Run(transform, shape, "perturbation " + perturbation.Name()));
    HONE_ASSIGN_OR_RETURN(TaskMetrics metrics, ComputeTaskMetrics(truth, values, shape, s.task_options));
    const double value = metrics.Primary().value;
    results.push_back({perturbation, std::move(metrics), value, Worsening(primary.better, primary.value, value)});
  }
  return results;
}

Result<StabilityReport> RunStability(const Runner& runner, const EvaluateSettings& s,
                                     const std::vector<double>& clean, const Shape& shape,
                                     const std::vector<std::optional<Bounds>>& bounds) {
  const double epsilon = s.stability_epsilon;
  InputTransform transform = [&](std::vector<Tensor>& batch, int64_t first) {
    for (size_t i = 0; i < batch.size() && i < bounds.size(); ++i) {
      const double range = bounds[i] && bounds[i]->high > bounds[i]->low ? bounds[i]->high - bounds[i]->low : 1.0;
      PerturbInput({PerturbationKind::kGaussian, epsilon * range}, batch[i], std::nullopt, first, s.perturb_seed,
                   0x5eed0000 + i);
    }
  };
  Shape perturbed_shape;
  HONE_ASSIGN_OR_RETURN(std::vector<double> perturbed, runner.Run(transform, perturbed_shape, "stability probe"));
  return MeasureStability(clean, perturbed, shape, epsilon);
}

// Everything measured for one model: its clean metrics, perturbations and stability.
Result<ModelEvaluation> EvaluateModel(const Runner& runner, const EvaluateSettings& s, const TaskTruth& truth,
                                      const std::vector<double>& clean, const Shape& shape,
                                      const std::vector<std::optional<Bounds>>& bounds) {
  ModelEvaluation e;
  e.source = Source(runner.session->model_path(), true);
  HONE_ASSIGN_OR_RETURN(e.metrics, ComputeTaskMetrics(truth, clean, shape, s.task_options));
  HONE_ASSIGN_OR_RETURN(e.perturbations, RunPerturbations(runner, s, truth, e.metrics, bounds));
  if (s.stability_epsilon > 0) {
    HONE_ASSIGN_OR_RETURN(e.stability, RunStability(runner, s, clean, shape, bounds));
  }
  return e;
}

Result<SliceReport> MeasureSlices(const EvaluateSettings& s, const std::vector<NamedTensor>& dataset,
                                  const TaskTruth& truth, const EvaluateReport& report,
                                  const std::vector<double>& candidate, const std::vector<double>* reference) {
  auto array =
      std::find_if(dataset.begin(), dataset.end(), [&](const NamedTensor& a) { return a.name == s.slice_key; });
  if (array == dataset.end()) {
    std::string names;
    for (const auto& a : dataset) names += (names.empty() ? "" : ", ") + a.name;
    return Status::InvalidArgument(fmt::format("--slice {}: dataset '{}' has no such array (arrays: {})",
                                               s.slice_key, s.inputs.data_path, names));
  }
  const std::string what = fmt::format("slice array '{}' in '{}'", s.slice_key, s.inputs.data_path);
  HONE_ASSIGN_OR_RETURN(auto groups, GroupRows(array->tensor, truth.samples, what));
  SliceReport slices;
  slices.key = s.slice_key;
  slices.metric = report.candidate.metrics.Primary();
  if (report.reference) slices.reference_overall = report.reference->metrics.Primary().value;
  for (const auto& [id, rows] : groups) {
    SliceResult r;
    r.id = id;
    r.samples = static_cast<int64_t>(rows.size());
    HONE_ASSIGN_OR_RETURN(TaskMetrics m,
                          ComputeTaskMetrics(truth, candidate, report.output_shape, s.task_options, rows));
    r.value = m.Primary().value;
    if (reference) {
      HONE_ASSIGN_OR_RETURN(TaskMetrics rm,
                            ComputeTaskMetrics(truth, *reference, report.output_shape, s.task_options, rows));
      r.reference_value = rm.Primary().value;
    }
    slices.slices.push_back(r);
  }
  SummarizeSlices(slices);
  return slices;
}

// The --against side: a model (run on the same inputs) or saved outputs, and its values of the evaluated output.
struct Reference {
  std::unique_ptr<runtime::Session> model;  // null for saved outputs
  std::vector<double> values;
};

Result<Reference> LoadReference(const EvaluateSettings& s, const InputSet& inputs, const std::string& output,
                                const Shape& expected_shape, Passes* passes) {
  Reference reference;
  Shape shape;
  if (IsSavedOutputs(s.against_path)) {
    HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> saved, ReadSavedOutputs(s.against_path));
    HONE_ASSIGN_OR_RETURN(reference.values, OutputValues(saved, output, Source(s.against_path, false), shape));
  } else {
    HONE_ASSIGN_OR_RETURN(reference.model, runtime::Session::Open(s.against_path, s.session));
    Runner runner{reference.model.get(), &inputs, s.batch, output, passes};
    HONE_ASSIGN_OR_RETURN(reference.values, runner.Run(nullptr, shape));
  }
  if (shape != expected_shape)
    return Status::InvalidArgument(fmt::format(
        "--against {}: output '{}' has shape {}, but the model's has {}: the reference must give the same shape on "
        "the same samples",
        s.against_path, output, ShapeText(shape), ShapeText(expected_shape)));
  return reference;
}

}  // namespace

bool EvaluateReport::passed() const {
  return std::all_of(gates.begin(), gates.end(), [](const GateResult& g) { return g.passed; });
}

Result<EvaluateReport> Evaluate(const EvaluateSettings& s) {
  if (s.inputs.data_path.empty())
    return Status::InvalidArgument("hone evaluate needs --data DATASET: a .npz with the model's inputs and the labels");
  EvaluateReport report;
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Session> model, runtime::Session::Open(s.model_path, s.session));
  const runtime::ModelMetadata& metadata = model->metadata();
  HONE_ASSIGN_OR_RETURN(InputSet inputs, LoadInputs(metadata, s.inputs));
  HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> dataset, ReadDataset(s.inputs.data_path, metadata));
  report.output = s.output.empty() ? metadata.outputs.at(0).name : s.output;
  if (metadata.FindOutput(report.output) < 0)
    return Status::InvalidArgument(fmt::format("--output-name {}: model '{}' has no such output", report.output,
                                               s.model_path));
  const int64_t batch = s.batch > 0 ? s.batch : inputs.pool.default_batch();
  report.inputs = fmt::format("{}, {} sample{} per run", inputs.pool.description(), batch, batch == 1 ? "" : "s");
  report.perturb_seed = s.perturb_seed;
  report.runtime = fmt::format("ONNX Runtime {}, {}", runtime::OrtVersion(), s.session.ToString());
  report.session = s.session;
  // Passes over the data: per model, the clean run, one per perturbation and the stability probe. A reference
  // model's are counted too; when its task turns out to need only its clean run, the total shrinks below.
  const size_t per_model = 1 + s.perturbations.size() + (s.stability_epsilon > 0 ? 1 : 0);
  const bool reference_is_model = !s.against_path.empty() && !IsSavedOutputs(s.against_path);
  Passes passes{s.progress, 0};
  if (s.progress) s.progress->Start(per_model * (reference_is_model ? 2 : 1));
  Runner candidate{model.get(), &inputs, s.batch, report.output, &passes};
  HONE_ASSIGN_OR_RETURN(std::vector<double> clean, candidate.Run(nullptr, report.output_shape));
  if (!s.candidate_outputs_path.empty()) {
    HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> saved, ReadSavedOutputs(s.candidate_outputs_path));
    Shape shape;
    HONE_ASSIGN_OR_RETURN(clean, OutputValues(saved, report.output, Source(s.candidate_outputs_path, false), shape));
    if (shape != report.output_shape)
      return Status::InvalidArgument(fmt::format(
          "{}: output '{}' has shape {}, but model '{}' gives {} on the dataset: the outputs must be of every sample",
          Source(s.candidate_outputs_path, false), report.output, ShapeText(shape), s.model_path,
          ShapeText(report.output_shape)));
  }

  std::unique_ptr<runtime::Session> reference_model;
  std::optional<std::vector<double>> reference_clean;
  if (!s.against_path.empty()) {
    HONE_ASSIGN_OR_RETURN(Reference reference, LoadReference(s, inputs, report.output, report.output_shape, &passes));
    reference_model = std::move(reference.model);
    reference_clean = std::move(reference.values);
  }

  std::vector<std::string> input_names;
  for (const auto& in : metadata.inputs) input_names.push_back(in.name);
  TruthRequest request{s.task,      s.labels_key,        s.inputs.data_path,
                       &dataset,    input_names,         report.output,
                       report.output_shape, reference_clean ? &*reference_clean : nullptr};
  HONE_ASSIGN_OR_RETURN(ResolvedTruth truth, ResolveTruth(request));
  report.task = truth.truth.task;
  report.truth = truth.description;

  const std::vector<std::optional<Bounds>> bounds = InputBounds(inputs, dataset);
  report.input_bounds = BoundsText(inputs, bounds);
  HONE_ASSIGN_OR_RETURN(report.candidate, EvaluateModel(candidate, s, truth.truth, clean, report.output_shape, bounds));
  if (!s.candidate_outputs_path.empty()) {
    report.candidate.source = fmt::format("{} (perturbations and stability: model '{}')",
                                          Source(s.candidate_outputs_path, false), s.model_path);
  }
  const bool deltas = reference_clean && report.task != Task::kEmbedding;
  if (s.progress && reference_is_model && !deltas) s.progress->SetTotal(per_model + 1);
  if (deltas) {
    if (reference_model) {
      Runner runner{reference_model.get(), &inputs, s.batch, report.output, &passes};
      HONE_ASSIGN_OR_RETURN(report.reference,
                            EvaluateModel(runner, s, truth.truth, *reference_clean, report.output_shape, bounds));
    } else {
      ModelEvaluation saved;
      saved.source = Source(s.against_path, false);
      HONE_ASSIGN_OR_RETURN(saved.metrics,
                            ComputeTaskMetrics(truth.truth, *reference_clean, report.output_shape, s.task_options));
      report.reference = std::move(saved);
    }
    if (report.task == Task::kClassification)
      if (auto a = CompareClassifierOutputs(*reference_clean, clean, report.output_shape, 1))
        report.prediction_agreement = a->argmax_agreement;
  }
  if (!s.slice_key.empty()) {
    HONE_ASSIGN_OR_RETURN(report.slices, MeasureSlices(s, dataset, truth.truth, report, clean,
                                                       deltas ? &*reference_clean : nullptr));
  }
  for (size_t i = 0; i < clean.size(); ++i) {
    if (std::isfinite(clean[i])) continue;
    ++report.nan_inf_outputs;
    if (reference_clean && i < reference_clean->size() && std::isfinite((*reference_clean)[i]))
      report.new_nan_inf_outputs = report.new_nan_inf_outputs.value_or(0) + 1;
  }
  if (reference_clean && !report.new_nan_inf_outputs) report.new_nan_inf_outputs = 0;
  report.metrics = CollectMetrics(report);
  std::vector<Gate> gates = s.gates;
  gates.push_back(reference_clean ? Gate{"new_nan_inf_outputs", GateOp::kLessEqual, 0}
                                  : Gate{"nan_inf_outputs", GateOp::kLessEqual, 0});
  HONE_ASSIGN_OR_RETURN(report.gates, CheckGates(gates, report.metrics));
  return report;
}

}  // namespace hone::check
