// Before any measurement: the model's metadata, the data split into calibration rows and held-out rows (or held-out
// rows generated from the model when no data is given), the gates, the objective and the trial plan. Everything a
// user can get wrong is found here, before tune spends its budget.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "check/evaluate.h"
#include "harness/variant_check.h"
#include "runtime/input_pool.h"
#include "runtime/session.h"
#include "tensor/npz.h"
#include "tune/tune_state.h"

namespace hone::tune {
namespace fs = std::filesystem;
namespace {

// At most this many rows calibrate static INT8 (a quarter of the data when it has fewer than 2,048 rows).
constexpr int64_t kMaxCalibrationRows = 512;
// Rows generated when no data is given: enough for the trials and for the outputs over the wire to mean something.
constexpr int64_t kGeneratedRows = 256;

bool IsLabelKey(const std::string& name) {
  return name == "label" || name == "labels" || name == "target" || name == "targets" || name == "y";
}

// Rows [0, k) calibrate, the rest are held out for every gate and trial: the calibration never sees a gated row.
Status SplitData(TuneGiven& given) {
  const std::string& data = given.settings->inputs.data_path;
  if (fs::path(data).extension() != ".npz") {
    return Status::InvalidArgument(fmt::format(
        "--data '{}': tune needs a .npz with an array per model input (and labels for the quality gates)", data));
  }
  HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> arrays, ReadNpz(data));
  // Checked against the model now, so a dataset that does not fit fails before the budget is spent.
  runtime::InputOptions check = given.settings->inputs;
  HONE_RETURN_IF_ERROR(runtime::InputPool::Create(given.metadata, check).status());
  int64_t rows = 0;
  for (const NamedTensor& a : arrays) {
    if (IsLabelKey(a.name)) given.has_labels = true;
    if (!a.tensor.shape().empty()) rows = std::max(rows, a.tensor.shape()[0]);
  }
  given.heldout_path = data;
  given.heldout_rows = given.batch_axis ? std::max<int64_t>(rows, 1) : 1;
  if (rows >= 40 && given.batch_axis) {
    given.calibration_rows = std::min<int64_t>(kMaxCalibrationRows, rows / 4);
    given.heldout_rows = rows - given.calibration_rows;
    given.heldout_path = (fs::path(given.work_dir) / "heldout.npz").string();
    HONE_RETURN_IF_ERROR(harness::WriteHeldOutRows(data, given.calibration_rows, given.heldout_path));
  }
  return Status::Ok();
}

// Without --data: inputs generated from the model (--shape, --range, --seed), written once so that every trial,
// check and the final outputs over the wire use the same rows.
Status GenerateHeldOut(TuneGiven& given) {
  runtime::InputOptions options = given.settings->inputs;
  options.generated_samples = given.batch_axis ? kGeneratedRows : 1;
  HONE_ASSIGN_OR_RETURN(runtime::InputPool pool, runtime::InputPool::Create(given.metadata, options));
  const int64_t batch = given.batch_axis ? pool.sample_count() : 1;
  HONE_ASSIGN_OR_RETURN(std::vector<Tensor> tensors, pool.MakeBatch(0, batch));
  std::vector<NamedTensor> arrays;
  for (size_t i = 0; i < tensors.size(); ++i) arrays.push_back({given.metadata.inputs[i].name, tensors[i]});
  given.heldout_path = (fs::path(given.work_dir) / "generated.npz").string();
  given.heldout_rows = batch;
  given.generated_note = fmt::format("no --data: {} row{} generated from the model ({})", batch, batch == 1 ? "" : "s",
                                     pool.description());
  return WriteNpz(given.heldout_path, arrays, true);
}

// Every measurement records p50, p95, p99 and one more percentile: SLOs may use at most one other.
Status CheckPercentiles(const std::vector<Slo>& slos) {
  const Slo* other = nullptr;
  for (const Slo& slo : slos) {
    if (slo.percentile == 50 || slo.percentile == 95 || slo.percentile == 99) continue;
    if (other && other->percentile != slo.percentile) {
      return Status::InvalidArgument(fmt::format(
          "--slo '{}' and '{}': tune measures p50, p95, p99 and one other percentile; give at most one other",
          other->text, slo.text));
    }
    other = &slo;
  }
  return Status::Ok();
}

// Gates name evaluate's metrics: a typo found now costs nothing, found at the end it costs the whole budget. One
// evaluation of the source against itself on a few held-out rows lists the metrics there are.
Status CheckGateNames(const TuneGiven& given) {
  const TuneSettings& s = *given.settings;
  if (s.gates.empty() && (!s.slice_key.empty() || !s.perturbations.empty()))
    return Status::InvalidArgument("--slice and --perturb measure what a --gate then checks: give the --gate too");
  if (given.settings->gates.empty()) return Status::Ok();
  if (!given.batch_axis) {
    return Status::InvalidArgument(
        "--gate: the model has no shared batch dimension (" + given.batch_reason +
        "), so its outputs are whole tensors, not rows to score; its outputs are held to the source's instead");
  }
  const std::string rows = (fs::path(given.work_dir) / "gate_check_rows.npz").string();
  HONE_RETURN_IF_ERROR(harness::WriteHeldOutRows(given.heldout_path, 0, rows, 64));
  check::EvaluateSettings e;
  e.model_path = given.settings->model_path;
  e.inputs = given.settings->inputs;
  e.inputs.data_path = rows;
  e.against_path = given.settings->model_path;
  e.output = given.settings->output;
  e.gates = given.settings->gates;
  e.slice_key = given.settings->slice_key;
  e.perturbations = given.settings->perturbations;
  e.stability_epsilon = 0;
  auto checked = check::Evaluate(e);
  if (!checked.ok()) return Status::InvalidArgument("--gate: " + checked.status().message());
  return Status::Ok();
}

void PlanObjective(TuneGiven& given) {
  const TuneSettings& settings = *given.settings;
  given.objective.slos = settings.slos;
  for (const Slo& slo : settings.slos) {
    if (std::find(given.objective.loads.begin(), given.objective.loads.end(), slo.load) == given.objective.loads.end())
      given.objective.loads.push_back(slo.load);
  }
  if (given.objective.loads.empty()) {
    given.objective.loads.push_back(Load::Closed(8));
    given.objective_note = "no --slo given: tune maximises throughput at concurrency 8 and reports the p99 it holds "
                           "there";
  }
  double extra_percentile = 0;
  for (const Slo& slo : settings.slos) {
    if (slo.percentile != 50 && slo.percentile != 95 && slo.percentile != 99) extra_percentile = slo.percentile;
  }
  given.plan.loads = given.objective.loads;
  given.plan.inputs = settings.inputs;
  given.plan.inputs.data_path = given.heldout_path;
  given.plan.protocol = settings.protocol;
  given.plan.cost_per_hour = settings.cost_per_hour;
  given.plan.extra_percentile = extra_percentile;
  given.plan.work_dir = given.work_dir;
  given.plan.model_name = ModelNameFromPath(settings.model_path);
  given.plan.metadata = given.metadata;
}

}  // namespace

Status PrepareTune(TuneGiven& given) {
  const TuneSettings& settings = *given.settings;
  if (settings.budget_s <= 0) return Status::InvalidArgument("--budget: expected a positive duration");
  HONE_RETURN_IF_ERROR(CheckPercentiles(settings.slos));
  HONE_ASSIGN_OR_RETURN(auto session, runtime::Session::Open(settings.model_path, runtime::SessionOptions{}));
  given.metadata = session->metadata();
  session.reset();
  runtime::BatchAxis axis = given.metadata.SharedBatchAxis();
  given.batch_axis = axis.shared && axis.fixed_size < 0;
  given.batch_reason = axis.shared ? "dimension 0 is fixed" : axis.reason;
  given.system = report::ReadSystemInfo();
  HONE_RETURN_IF_ERROR(settings.inputs.data_path.empty() ? GenerateHeldOut(given) : SplitData(given));
  given.gates = settings.gates;
  // The default gate needs per-row outputs to score against per-row labels: a model without a batch dimension
  // answers whole tensors, and then its outputs are held to the source's instead.
  if (given.gates.empty() && given.has_labels && given.batch_axis)
    given.gates.push_back({"accuracy_drop", check::GateOp::kLessEqual, 0.01});
  HONE_RETURN_IF_ERROR(CheckGateNames(given));
  PlanObjective(given);
  given.baseline.id = "baseline";
  given.baseline.stage = "baseline";
  given.baseline.model_path = settings.model_path;
  return Status::Ok();
}

}  // namespace hone::tune
