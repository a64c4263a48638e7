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
Status SplitData(TuneState& state) {
  const std::string& data = state.settings->inputs.data_path;
  if (fs::path(data).extension() != ".npz") {
    return Status::InvalidArgument(fmt::format(
        "--data '{}': tune needs a .npz with an array per model input (and labels for the quality gates)", data));
  }
  HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> arrays, ReadNpz(data));
  // Checked against the model now, so a dataset that does not fit fails before the budget is spent.
  runtime::InputOptions check = state.settings->inputs;
  HONE_RETURN_IF_ERROR(runtime::InputPool::Create(state.metadata, check).status());
  int64_t rows = 0;
  for (const NamedTensor& a : arrays) {
    if (IsLabelKey(a.name)) state.has_labels = true;
    if (!a.tensor.shape().empty()) rows = std::max(rows, a.tensor.shape()[0]);
  }
  state.heldout_path = data;
  state.heldout_rows = state.batch_axis ? std::max<int64_t>(rows, 1) : 1;
  if (rows >= 40 && state.batch_axis) {
    state.calibration_rows = std::min<int64_t>(kMaxCalibrationRows, rows / 4);
    state.heldout_rows = rows - state.calibration_rows;
    state.heldout_path = (fs::path(state.work_dir) / "heldout.npz").string();
    HONE_RETURN_IF_ERROR(harness::WriteHeldOutRows(data, state.calibration_rows, state.heldout_path));
  }
  return Status::Ok();
}

// Without --data: inputs generated from the model (--shape, --range, --seed), written once so that every trial,
// check and the final outputs over the wire use the same rows.
Status GenerateHeldOut(TuneState& state) {
  runtime::InputOptions options = state.settings->inputs;
  options.generated_samples = state.batch_axis ? kGeneratedRows : 1;
  HONE_ASSIGN_OR_RETURN(runtime::InputPool pool, runtime::InputPool::Create(state.metadata, options));
  const int64_t batch = state.batch_axis ? pool.sample_count() : 1;
  HONE_ASSIGN_OR_RETURN(std::vector<Tensor> tensors, pool.MakeBatch(0, batch));
  std::vector<NamedTensor> arrays;
  for (size_t i = 0; i < tensors.size(); ++i) arrays.push_back({state.metadata.inputs[i].name, tensors[i]});
  state.heldout_path = (fs::path(state.work_dir) / "generated.npz").string();
  state.heldout_rows = batch;
  state.generated_note = fmt::format("no --data: {} row{} generated from the model ({})", batch, batch == 1 ? "" : "s",
                                     pool.description());
  return WriteNpz(state.heldout_path, arrays, true);
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
Status CheckGateNames(const TuneState& state) {
  const TuneSettings& s = *state.settings;
  if (s.gates.empty() && (!s.slice_key.empty() || !s.perturbations.empty()))
    return Status::InvalidArgument("--slice and --perturb measure what a --gate then checks: give the --gate too");
  if (state.settings->gates.empty()) return Status::Ok();
  if (!state.batch_axis) {
    return Status::InvalidArgument(
        "--gate: the model has no shared batch dimension (" + state.batch_reason +
        "), so its outputs are whole tensors, not rows to score; its outputs are held to the source's instead");
  }
  const std::string rows = (fs::path(state.work_dir) / "gate_check_rows.npz").string();
  HONE_RETURN_IF_ERROR(harness::WriteHeldOutRows(state.heldout_path, 0, rows, 64));
  check::EvaluateSettings e;
  e.model_path = state.settings->model_path;
  e.inputs = state.settings->inputs;
  e.inputs.data_path = rows;
  e.against_path = state.settings->model_path;
  e.gates = state.settings->gates;
  e.slice_key = state.settings->slice_key;
  e.perturbations = state.settings->perturbations;
  e.stability_epsilon = 0;
  auto checked = check::Evaluate(e);
  if (!checked.ok()) return Status::InvalidArgument("--gate: " + checked.status().message());
  return Status::Ok();
}

void PlanObjective(TuneState& state) {
  const TuneSettings& settings = *state.settings;
  state.objective.slos = settings.slos;
  for (const Slo& slo : settings.slos) {
    if (std::find(state.objective.loads.begin(), state.objective.loads.end(), slo.load) == state.objective.loads.end())
      state.objective.loads.push_back(slo.load);
  }
  if (state.objective.loads.empty()) {
    state.objective.loads.push_back(Load{false, 8, 0});
    state.objective_note = "no --slo given: tune maximises throughput at concurrency 8 and reports the p99 it holds "
                           "there";
  }
  double extra_percentile = 0;
  for (const Slo& slo : settings.slos) {
    if (slo.percentile != 50 && slo.percentile != 95 && slo.percentile != 99) extra_percentile = slo.percentile;
  }
  state.plan.loads = state.objective.loads;
  state.plan.inputs = settings.inputs;
  state.plan.inputs.data_path = state.heldout_path;
  state.plan.protocol = settings.protocol;
  state.plan.cost_per_hour = settings.cost_per_hour;
  state.plan.extra_percentile = extra_percentile;
  state.plan.work_dir = state.work_dir;
  state.plan.model_name = ModelNameFromPath(settings.model_path);
  state.plan.metadata = state.metadata;
}

}  // namespace

Status PrepareTune(TuneState& state) {
  const TuneSettings& settings = *state.settings;
  if (settings.budget_s <= 0) return Status::InvalidArgument("--budget: expected a positive duration");
  HONE_RETURN_IF_ERROR(CheckPercentiles(settings.slos));
  HONE_ASSIGN_OR_RETURN(auto session, runtime::Session::Open(settings.model_path, runtime::SessionOptions{}));
  state.metadata = session->metadata();
  session.reset();
  runtime::BatchAxis axis = state.metadata.SharedBatchAxis();
  state.batch_axis = axis.shared && axis.fixed_size < 0;
  state.batch_reason = axis.shared ? "dimension 0 is fixed" : axis.reason;
  state.system = report::ReadSystemInfo();
  HONE_RETURN_IF_ERROR(settings.inputs.data_path.empty() ? GenerateHeldOut(state) : SplitData(state));
  state.gates = settings.gates;
  // The default gate needs per-row outputs to score against per-row labels: a model without a batch dimension
  // answers whole tensors, and then its outputs are held to the source's instead.
  if (state.gates.empty() && state.has_labels && state.batch_axis)
    state.gates.push_back({"accuracy_drop", check::GateOp::kLessEqual, 0.01});
  HONE_RETURN_IF_ERROR(CheckGateNames(state));
  PlanObjective(state);
  state.baseline.id = "baseline";
  state.baseline.stage = "baseline";
  state.baseline.model_path = settings.model_path;
  state.incumbent = state.baseline;
  return Status::Ok();
}

}  // namespace hone::tune
