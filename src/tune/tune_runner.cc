#include "tune/tune_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "base/atomic_file.h"
#include "onnx/model_json.h"
#include "report/report_envelope.h"
#include "tune/deploy_manifest.h"
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

// OUT/deploy/ once the final repository was served and measured; report.json's `deploy` (null when not written).
nlohmann::json WriteDeploy(TuneState& state, const FinalCheck& final_check, const std::string& repository) {
  if (!final_check.ran) return nullptr;
  const DeployFacts facts{state.given.plan.model_name,
                          ServiceName(state.given.settings->model_path, state.given.plan.model_name),
                          repository,
                          state.given.system.cpu_model,
                          state.given.system.logical_cores,
                          final_check.capacity,
                          final_check.replicas};
  const std::string out_dir = state.given.settings->out_dir;
  if (Status written = WriteDeployManifests(facts, out_dir); !written.ok()) {
    state.ledger.skipped.push_back({"deploy", "OUT/deploy/inferenceservice.yaml", written.message()});
    return nullptr;
  }
  return {{"inferenceservice", (fs::path(out_dir) / "deploy" / "inferenceservice.yaml").string()}};
}

std::string Summary(const TuneState& state, const FinalCheck& final_check, int exit_code) {
  const bool no_slo = state.given.objective.slos.empty();
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
  const PairedRatio& vs = final_check.vs_baseline;
  if (state.ledger.incumbent.id == state.given.baseline.id) {
    text += fmt::format("  the baseline stays: {}\n", state.WhyBaselineStays());
  } else if (vs.measured()) {
    text += fmt::format("  final / baseline score: {}, both served in turn ({})\n", PairText(vs),
                        state.ledger.incumbent.Describe());
    if (vs.below_one()) {
      text += "  warning: the final measured slower than the baseline beyond the noise: the stages' choices did not "
              "add up on this machine now; compare the stages' figures in the report, and consider serving the "
              "baseline\n";
    }
  }
  const Candidate& chosen = state.ledger.incumbent;
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
  for (const SloCapacity& c : final_check.capacity) {
    text += "  capacity: " + CapacitySentence(c, state.given.system.logical_cores) + "\n";
  }
  if (final_check.replicas) {
    text += fmt::format("  replicas for {}: {} ({})\n", final_check.replicas->expected.Label(),
                        final_check.replicas->replicas, final_check.replicas->arithmetic);
  }
  for (const StageRecord& s : state.ledger.stages) {
    text += fmt::format("  stage {} {:<11} {:<8} {}\n", s.index, s.name, StageStatusName(s.status), s.reason);
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
  TuneGiven given;
  given.settings = &settings;
  TuneState state(given);
  state.budget.started = std::chrono::steady_clock::now();
  state.budget.stop = settings.stop;
  if (!(settings.budget_s > 0 && settings.budget_s <= kMaxBudgetS)) {
    return Status::InvalidArgument(fmt::format("--budget: expected more than 0 and at most a week, got {:g} s",
                                               settings.budget_s));
  }
  state.budget.deadline = state.budget.started + std::chrono::milliseconds(static_cast<int64_t>(settings.budget_s * 1000));
  HONE_RETURN_IF_ERROR(CheckOutDir(settings.out_dir));
  given.work_dir = (fs::path(settings.out_dir) / fmt::format(".hone-tune-work-{}", getpid())).string();
  fs::create_directories(given.work_dir);
  struct RemoveWork {
    std::string dir;
    ~RemoveWork() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_work{given.work_dir};
  HONE_RETURN_IF_ERROR(PrepareTune(given));
  state.ledger.incumbent = given.baseline;

  RunBaseline(state);
  if (state.ledger.baseline_trial.loads.empty() && !state.stopped()) {
    return Status::FailedPrecondition("the baseline could not be measured through hone serve: " +
                                      state.ledger.stages.back().reason);
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
    RunCompressionStage(state);
    const Candidate& winner = state.ledger.incumbent;
    if (winner.precision != "fp32" || !winner.compression.empty()) RunThreadsStage(state, /*again=*/true);
  }
  RunGraphSaveStep(state);

  const std::string repository = (fs::path(settings.out_dir) / "repository").string();
  std::vector<TrialResult> curves;
  FinalCheck final_check = RunFinalCheck(state, repository, state.given.plan.model_name, &curves);
  if (state.ledger.exhaustive) {
    // The grid's best, each a repository of its own, for measuring side by side (scripts/prove-tune).
    const fs::path top = fs::path(settings.out_dir) / "top";
    for (size_t i = 0; i < state.ledger.exhaustive->top.size(); ++i) {
      const Candidate& c = state.ledger.exhaustive->top[i];
      const std::string path = (top / fmt::format("{}-{}", i + 1, c.id)).string();
      if (Status s = WriteRepository(c, state.given.plan.model_name, state.given.plan.metadata, path); !s.ok()) {
        state.ledger.skipped.push_back({"exhaustive", c.id, "its repository could not be written: " + s.message()});
      }
    }
  }
  const bool interrupted = state.budget.interrupted || (settings.stop && settings.stop->load());
  const bool met = final_check.error.empty() && final_check.slos_met && final_check.quality_met();
  const int exit_code = interrupted ? 130 : met ? 0 : 1;

  report::ReportContext context;
  context.argv = settings.argv;
  context.started_at = std::chrono::system_clock::now() -
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(
                           std::chrono::steady_clock::now() - state.budget.started);
  auto model_json = onnx::ModelFileJson(settings.model_path);
  TuneOutcome outcome;
  nlohmann::json deploy = WriteDeploy(state, final_check, repository);  // before the body: a failure is in `skipped`
  nlohmann::json body = TuneBodyJson(state, final_check, curves, repository, exit_code);
  body["deploy"] = std::move(deploy);
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
