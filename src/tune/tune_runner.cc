#include "tune/tune_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "base/atomic_file.h"
#include "check/metric.h"
#include "runtime/session.h"
#include "tensor/npz.h"
#include "tune/profile.h"
#include "tune/report_envelope.h"
#include "tune/report_html.h"
#include "tune/tune_final.h"
#include "tune/tune_state.h"
#include "tune/variant_check.h"

namespace hone::tune {
namespace fs = std::filesystem;
namespace {

constexpr int64_t kMaxCalibrationRows = 512;

bool IsLabelKey(const std::string& name) {
  return name == "label" || name == "labels" || name == "target" || name == "targets" || name == "y";
}

// Rows [0, k) calibrate, the rest are held out for every gate and trial: the calibration never sees a gated row.
Status SplitData(TuneState& state) {
  const TuneSettings& s = *state.settings;
  if (s.data_path.empty()) return Status::Ok();
  HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> arrays, ReadNpz(s.data_path));
  int64_t rows = 0;
  for (const NamedTensor& a : arrays) {
    if (IsLabelKey(a.name)) state.has_labels = true;
    if (!a.tensor.shape().empty()) rows = std::max(rows, a.tensor.shape()[0]);
  }
  state.heldout_path = s.data_path;
  if (rows >= 40 && state.batch_axis) {
    state.calibration_rows = std::min<int64_t>(kMaxCalibrationRows, rows / 4);
    state.heldout_path = (fs::path(state.work_dir) / "heldout.npz").string();
    HONE_RETURN_IF_ERROR(WriteHeldOutRows(s.data_path, state.calibration_rows, state.heldout_path));
  }
  return Status::Ok();
}

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
  StageRecord record = StageRecord::Of("baseline", 1, "failed", error);
  if (!repeats.empty()) {
    state.baseline_trial = MergeRepeats(repeats);
    state.baseline_trial.first_point = repeats.front().first_point;
    state.incumbent_trial = state.baseline_trial;
    if (repeats.size() >= 2) state.noise_seen = std::max(0.05, ScoreSpread(state.baseline_trial));
    record.status = "improved";  // the reference every later stage is measured against
    record.winner = "baseline";
    record.delta_vs_baseline = record.delta_vs_previous = 1;
    Entry e{state.baseline, state.baseline_trial, ScoreTrial(state.objective, state.baseline_trial), true, "chosen",
            "the reference", 1};
    record.entries.push_back(e);
    record.reason = e.score.feasible ? "the baseline meets every SLO already" : "the baseline, as served naively";
  }
  auto in_process = MeasureInProcess(state.baseline, plan);
  if (in_process.ok()) {
    state.baseline_in_process = *in_process;
    nlohmann::json loads = nlohmann::json::array();
    for (const LoadFigures& f : in_process->loads) loads.push_back(LoadFiguresJson(f));
    record.extra["in_process"] = loads;
  }
  if (state.has_labels && !state.heldout_path.empty()) {
    check::EvaluateSettings e;
    e.model_path = state.settings->model_path;
    e.inputs.data_path = state.heldout_path;
    auto quality = check::Evaluate(e);
    if (quality.ok()) {
      state.baseline_quality = *quality;
      const check::Metric* acc = check::FindMetric(quality->metrics, "accuracy");
      state.quality_by_candidate["baseline"] = {{"metric", acc ? "accuracy" : ""},
                                                {"value", acc ? nlohmann::json(acc->value) : nlohmann::json()}};
      record.extra["quality"] = {{"accuracy", acc ? nlohmann::json(acc->value) : nlohmann::json()}};
    }
  }
  state.stages.push_back(std::move(record));
}

void RunProfile(TuneState& state) {
  auto started = std::chrono::steady_clock::now();
  state.Say("stage 2 of 6 (profile): ONNX Runtime's profiler and the served path's split");
  StageRecord record = StageRecord::Of("profile", 2, "no gain", "");
  ProfileSettings p;
  p.model_path = state.settings->model_path;
  p.inputs = state.plan.inputs;
  p.runs = state.settings->quick ? 20 : 50;
  p.work_dir = state.work_dir;
  auto profile = ProfileModel(p);
  std::vector<std::string> decisions;
  if (profile.ok()) {
    state.profile = ProfileToJson(*profile);
    state.matmul_first = profile->matmul_dominated();
    record.reason = profile->summary;
    decisions.push_back(state.matmul_first ? "MatMul/Gemm dominate: INT4 weight-only is tried first in precision"
                                           : "MatMul/Gemm do not dominate: INT8 is tried first in precision");
  } else {
    state.profile = {{"summary", nullptr}, {"error", profile.status().message()}};
    record.status = "failed";
    record.reason = "the profiler failed: " + profile.status().message();
  }
  if (state.baseline_trial.first_point) {
    ServedSplit split = ServedSplitFrom(*state.baseline_trial.first_point);
    state.profile["served_split"] = ServedSplitToJson(split);
    decisions.push_back(split.queue_dominated() ? "the served path is dominated by queueing: batching comes first"
                                                : "served path: " + split.summary);
  }
  state.profile["decisions"] = decisions;
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  state.stages.push_back(std::move(record));
}

std::string Summary(const TuneState& state, const FinalCheck& final_check, int exit_code) {
  std::string text = "\nhone tune: " + std::string(exit_code == 0 ? "every SLO and gate met" : "NOT MET") + "\n";
  for (const SloResult& r : final_check.slo_results) text += "  " + r.detail + "\n";
  double ratio = ScoreRatio(state.objective, final_check.trial, state.baseline_trial);
  if (ratio > 0) text += fmt::format("  final / baseline score: {:.2f}x ({})\n", ratio, state.incumbent.Describe());
  text += "  outputs: " + final_check.outputs_detail + "\n";
  for (const StageRecord& s : state.stages) {
    text += fmt::format("  stage {} {:<10} {:<8} {}\n", s.index, s.name, s.status, s.reason);
  }
  if (!final_check.error.empty()) text += "  final check failed: " + final_check.error + "\n";
  return text;
}

}  // namespace

Result<TuneOutcome> RunTune(const TuneSettings& settings) {
  TuneState state;
  state.settings = &settings;
  state.started = std::chrono::steady_clock::now();
  state.deadline = state.started + std::chrono::milliseconds(static_cast<int64_t>(settings.budget_s * 1000));
  HONE_RETURN_IF_ERROR(CheckOutDir(settings.out_dir));
  HONE_ASSIGN_OR_RETURN(auto session, runtime::Session::Open(settings.model_path, runtime::SessionOptions{}));
  state.metadata = session->metadata();
  session.reset();
  runtime::BatchAxis axis = state.metadata.SharedBatchAxis();
  state.batch_axis = axis.shared && axis.fixed_size < 0;
  state.batch_reason = axis.shared ? "dimension 0 is fixed" : axis.reason;
  state.system = bench::ReadSystemInfo();
  state.work_dir = (fs::path(settings.out_dir) / fmt::format(".hone-tune-work-{}", getpid())).string();
  fs::create_directories(state.work_dir);
  struct RemoveWork {
    std::string dir;
    ~RemoveWork() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_work{state.work_dir};
  HONE_RETURN_IF_ERROR(SplitData(state));
  state.gates = settings.gates;
  if (state.gates.empty() && state.has_labels) state.gates.push_back({"accuracy_drop", check::GateOp::kLessEqual, 0.01});

  state.objective.slos = settings.slos;
  for (const Slo& slo : settings.slos) {
    if (std::find(state.objective.loads.begin(), state.objective.loads.end(), slo.load) == state.objective.loads.end())
      state.objective.loads.push_back(slo.load);
  }
  std::string note;
  if (state.objective.loads.empty()) {
    state.objective.loads.push_back(Load{false, 8, 0});
    note = "no --slo given: tune maximises throughput at concurrency 8 and reports the p99 it holds there";
  }
  double extra_percentile = 0;
  for (const Slo& slo : settings.slos) {
    if (slo.percentile != 50 && slo.percentile != 95 && slo.percentile != 99) extra_percentile = slo.percentile;
  }
  std::string model_name = ModelNameFromPath(settings.model_path);
  state.plan.loads = state.objective.loads;
  state.plan.inputs.data_path = state.heldout_path;
  state.plan.protocol = settings.protocol;
  state.plan.cost_per_hour = settings.cost_per_hour;
  state.plan.extra_percentile = extra_percentile;
  state.plan.work_dir = state.work_dir;
  state.plan.model_name = model_name;
  state.plan.metadata = state.metadata;

  state.baseline.id = "baseline";
  state.baseline.stage = "baseline";
  state.baseline.model_path = settings.model_path;
  state.incumbent = state.baseline;

  RunBaseline(state);
  if (state.baseline_trial.loads.empty()) {
    return Status::FailedPrecondition("the baseline could not be measured through hone serve: " +
                                      state.stages.back().reason);
  }
  RunProfile(state);
  RunBatchingStage(state);
  RunGraphStage(state);
  RunThreadsStage(state);
  RunPrecisionStage(state);
  RunGraphSaveStep(state);

  std::string repository = (fs::path(settings.out_dir) / "repository").string();
  std::vector<TrialResult> curves;
  FinalCheck final_check = RunFinalCheck(state, repository, model_name, &curves);

  // Quality: the outputs that came back over the wire are the winner's, match the source, and pass the gates.
  bool gates_met = final_check.quality_met();
  bool interrupted = state.interrupted || (settings.stop && settings.stop->load());
  int exit_code = interrupted ? 130 : (final_check.slos_met && gates_met && final_check.error.empty() ? 0 : 1);

  nlohmann::json final_json = FinalJson(final_check);
  final_json["config_pbtxt"] = final_check.config_text;
  nlohmann::json curve_json = nlohmann::json::array();
  for (const TrialResult& t : curves) {
    nlohmann::json points = nlohmann::json::array();
    for (const LoadFigures& f : t.loads) {
      points.push_back({{"concurrency", f.load.concurrency}, {"throughput_sps", f.throughput_sps},
                        {"p50_ms", f.p50_ns / 1e6}, {"p99_ms", f.p99_ns / 1e6}});
    }
    curve_json.push_back({{"candidate", t.candidate_id}, {"points", points}});
  }
  nlohmann::json body = TuneBodyJson(state, final_json);
  body["objective"]["note"] = note.empty() ? nlohmann::json() : nlohmann::json(note);
  body["curves"] = curve_json;
  body["interrupted"] = interrupted;
  body["wall_time_s"] = state.elapsed_s();
  body["repository"] = {{"path", repository}, {"model", model_name}, {"config_pbtxt", final_check.config_text}};
  std::string first_load = state.objective.loads[0].open_loop
                               ? fmt::format("--mode open-loop --rate {:g}", state.objective.loads[0].rate)
                               : fmt::format("--concurrency {}", state.objective.loads[0].concurrency);
  body["reproduce"] = {
      {"serve", fmt::format("hone serve --model-repository {}", repository)},
      {"bench", fmt::format("hone bench {} --url 127.0.0.1:{} {}{}", model_name,
                            settings.protocol == bench::RemoteProtocol::kGrpc ? 8001 : 8000, first_load,
                            settings.protocol == bench::RemoteProtocol::kGrpc ? " --protocol grpc" : "")}};
  // The verdict.
  nlohmann::json verdict;
  verdict["met"] = exit_code == 0;
  verdict["exit_code"] = exit_code;
  nlohmann::json slo_results = nlohmann::json::array();
  for (size_t i = 0; i < final_check.slo_results.size(); ++i) {
    const SloResult& r = final_check.slo_results[i];
    const LoadFigures* f = nullptr;
    for (const LoadFigures& l : final_check.trial.loads) {
      if (l.load == r.slo->load) f = &l;
    }
    slo_results.push_back({{"slo", r.slo->text}, {"measured_ms", r.measured_ns / 1e6}, {"bound_ms", r.slo->bound_ns / 1e6},
                           {"margin", r.margin}, {"met", r.met}, {"detail", r.detail},
                           {"throughput_sps", f ? nlohmann::json(f->throughput_sps) : nlohmann::json()}});
  }
  verdict["slo_results"] = slo_results;
  verdict["gates"] = GatesJson(final_check);
  verdict["outputs"] = final_check.outputs_detail;
  double ratio = ScoreRatio(state.objective, final_check.trial, state.baseline_trial);
  verdict["throughput_ratio"] = ratio > 0 ? nlohmann::json(ratio) : nlohmann::json();
  auto cost = [](const TrialResult& t) {
    return !t.loads.empty() && t.loads[0].cost_per_1000 ? nlohmann::json(*t.loads[0].cost_per_1000) : nlohmann::json();
  };
  verdict["baseline_cost_per_1000"] = cost(state.baseline_trial);
  verdict["final_cost_per_1000"] = cost(final_check.trial);
  verdict["best_candidate"] = state.incumbent.id;
  nlohmann::json misses = nlohmann::json::array();
  for (const SloResult& r : final_check.slo_results) {
    if (!r.met) misses.push_back(r.detail);
  }
  if (!gates_met) misses.push_back(final_check.outputs_detail);
  if (!final_check.error.empty()) misses.push_back("final check: " + final_check.error);
  verdict["misses"] = misses;
  std::string headline =
      exit_code == 0 ? fmt::format("every SLO and gate met with {}", state.incumbent.id)
      : interrupted  ? "interrupted: the report holds what finished"
                     : fmt::format("not met: the best candidate that passed its gates is {}; {}", state.incumbent.id,
                                   misses.empty() ? std::string("see the stages") : misses[0].get<std::string>());
  if (ratio > 0) headline += fmt::format(" ({:.2f}x the baseline's score)", ratio);
  verdict["summary"] = headline;
  body["verdict"] = verdict;

  ReportContext context;
  context.argv = settings.argv;
  context.started_at = std::chrono::system_clock::now() -
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(
                           std::chrono::steady_clock::now() - state.started);
  auto model_json = ModelFileJson(settings.model_path);
  TuneOutcome outcome;
  outcome.report = MakeReport("tune", context, model_json.ok() ? *model_json : nlohmann::json(), body);
  outcome.exit_code = exit_code;
  outcome.summary = Summary(state, final_check, exit_code);
  HONE_RETURN_IF_ERROR(
      WriteFileAtomically((fs::path(settings.out_dir) / "report.json").string(), outcome.report.dump(2) + "\n"));
  HONE_RETURN_IF_ERROR(
      WriteFileAtomically((fs::path(settings.out_dir) / "report.html").string(), TuneReportToHtml(outcome.report)));
  return outcome;
}

}  // namespace hone::tune
