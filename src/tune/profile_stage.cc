// Stage 2, profile: where the time goes (ONNX Runtime's profiler, and the served path's split from the baseline's
// trial), and what that decides for the stages after it.
#include <fmt/format.h>

#include "tune/tune_state.h"

namespace hone::tune {

void RunProfile(TuneState& state) {
  auto started = std::chrono::steady_clock::now();
  state.Say("stage 2 of 7 (profile): ONNX Runtime's profiler and the served path's split");
  StageRecord record = StageRecord::Of("profile", 2, StageStatus::kNoGain, "");
  harness::ProfileSettings p;
  p.model_path = state.given.settings->model_path;
  p.inputs = state.given.plan.inputs;
  p.runs = state.given.settings->quick ? 20 : 50;
  p.work_dir = state.given.work_dir;
  auto profile = harness::ProfileModel(p);
  ProfileFindings& findings = state.ledger.profile;
  if (profile.ok()) {
    state.ledger.matmul_first = profile->matmul_dominated();
    state.ledger.compute_first = profile->compute_share >= 0.5;
    record.reason = profile->summary;
    findings.decisions.push_back(state.ledger.matmul_first
                                     ? "MatMul/Gemm dominate: INT4 weight-only is tried first in precision"
                                     : "MatMul/Gemm do not dominate: INT8 is tried first in precision");
    findings.profile = std::move(*profile);
  } else {
    findings.error = profile.status().message();
    record.status = StageStatus::kFailed;
    record.reason = "the profiler failed: " + profile.status().message();
  }
  if (state.ledger.baseline_trial.first_point) {
    findings.served_split = harness::ServedSplitFrom(*state.ledger.baseline_trial.first_point);
    findings.decisions.push_back(findings.served_split->queue_dominated()
                                     ? "the served path is dominated by queueing: batching comes first"
                                     : "served path: " + findings.served_split->summary);
  }
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  state.ledger.stages.push_back(std::move(record));
}

}  // namespace hone::tune
