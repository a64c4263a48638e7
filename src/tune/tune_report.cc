// report.json's body for `hone tune`: the same facts the HTML page shows (report_html.h reads this, never the
// run's state), with every trial's settings and figures.
#include <fmt/format.h>

#include "check/gates.h"
#include "tune/tune_state.h"

namespace hone::tune {
namespace {

nlohmann::json TrialLoadsJson(const TrialResult& t) {
  nlohmann::json loads = nlohmann::json::array();
  for (const LoadFigures& f : t.loads) loads.push_back(LoadFiguresJson(f));
  return loads;
}

nlohmann::json StageJson(const TuneState& state, const StageRecord& s) {
  nlohmann::json trials = nlohmann::json::array();
  for (const Entry& e : s.entries) {
    nlohmann::json quality = state.quality_by_candidate.contains(e.candidate.id)
                                 ? state.quality_by_candidate[e.candidate.id]
                                 : nlohmann::json();
    trials.push_back({{"id", e.candidate.id},
                      {"settings", CandidateSettingsJson(e.candidate)},
                      {"loads", e.measured ? TrialLoadsJson(e.trial) : nlohmann::json::array()},
                      {"ready_s", e.measured ? nlohmann::json(e.trial.ready_s) : nlohmann::json()},
                      {"ratio_vs_incumbent", e.measured ? nlohmann::json(e.ratio_vs_incumbent) : nlohmann::json()},
                      {"feasible", e.score.feasible},
                      {"quality", quality},
                      {"outcome", e.outcome},
                      {"reason", e.reason}});
  }
  nlohmann::json j = {{"name", s.name},
                      {"index", s.index},
                      {"status", s.status},
                      {"reason", s.reason},
                      {"winner", s.winner.empty() ? nlohmann::json() : nlohmann::json(s.winner)},
                      {"delta_vs_baseline", s.delta_vs_baseline > 0 ? nlohmann::json(s.delta_vs_baseline) : nlohmann::json()},
                      {"delta_vs_previous", s.delta_vs_previous > 0 ? nlohmann::json(s.delta_vs_previous) : nlohmann::json()},
                      {"wall_s", s.wall_s},
                      {"trials", trials}};
  for (auto it = s.extra.begin(); it != s.extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace

nlohmann::json TuneBodyJson(const TuneState& state, const nlohmann::json& final_json) {
  const TuneSettings& s = *state.settings;
  nlohmann::json slos = nlohmann::json::array();
  for (const Slo& slo : s.slos) slos.push_back(SloJson(slo));
  nlohmann::json gates = nlohmann::json::array();
  for (const check::Gate& g : state.gates) gates.push_back(g.ToString());
  nlohmann::json body;
  body["objective"] = {{"slos", slos},
                       {"gates", gates},
                       {"protocol", s.protocol == bench::RemoteProtocol::kGrpc ? "grpc" : "http"},
                       {"budget_s", s.budget_s},
                       {"cost_per_hour", s.cost_per_hour > 0 ? nlohmann::json(s.cost_per_hour) : nlohmann::json()},
                       {"data", s.data_path.empty() ? nlohmann::json() : nlohmann::json(s.data_path)},
                       {"calibration_rows", state.calibration_rows},
                       {"held_out", state.calibration_rows > 0
                                        ? nlohmann::json(fmt::format("rows {}.. of the data: every gate, check and "
                                                                     "trial; rows before it only calibrate",
                                                                     state.calibration_rows))
                                        : nlohmann::json("every row (nothing calibrates)")},
                       {"quick", s.quick}};
  body["baseline"] = {{"candidate", "baseline"},
                      {"settings", CandidateSettingsJson(state.baseline)},
                      {"loads", TrialLoadsJson(state.baseline_trial)},
                      {"in_process", TrialLoadsJson(state.baseline_in_process)}};
  body["final"] = final_json;
  body["profile"] = state.profile;
  nlohmann::json stages = nlohmann::json::array();
  for (const StageRecord& r : state.stages) stages.push_back(StageJson(state, r));
  body["stages"] = stages;
  // Throughput against quality: every measured candidate with a quality figure.
  nlohmann::json pareto = nlohmann::json::array();
  for (const StageRecord& r : state.stages) {
    for (const Entry& e : r.entries) {
      if (!e.measured || e.trial.loads.empty()) continue;
      const nlohmann::json* q = state.quality_by_candidate.contains(e.candidate.id)
                                    ? &state.quality_by_candidate[e.candidate.id]
                                    : state.quality_by_candidate.contains("baseline") && e.candidate.precision == "fp32"
                                          ? &state.quality_by_candidate["baseline"]
                                          : nullptr;
      bool seen = false;
      for (const auto& p : pareto) seen = seen || p["candidate"] == e.candidate.id;
      if (seen) continue;
      pareto.push_back({{"candidate", e.candidate.id},
                        {"throughput_sps", e.trial.loads[0].throughput_sps},
                        {"quality_metric", q ? q->value("metric", "") : ""},
                        {"quality", q && q->contains("value") ? (*q)["value"] : nlohmann::json()},
                        {"chosen", e.candidate.id == state.incumbent.id}});
    }
  }
  body["pareto"] = pareto;
  nlohmann::json rejected = nlohmann::json::array();
  for (const RejectedCandidate& r : state.rejected)
    rejected.push_back({{"candidate", r.candidate}, {"stage", r.stage}, {"reason", r.reason}});
  for (const StageRecord& r : state.stages) {
    for (const Entry& e : r.entries) {
      if (e.outcome == "ranked out" || e.outcome == "not confirmed")
        rejected.push_back({{"candidate", e.candidate.id}, {"stage", r.name}, {"reason", e.reason}});
    }
  }
  body["rejected"] = rejected;
  nlohmann::json skipped = nlohmann::json::array();
  for (const SkippedWork& w : state.skipped)
    skipped.push_back({{"stage", w.stage}, {"what", w.what}, {"reason", w.reason}});
  body["skipped"] = skipped;
  body["winner"] = {{"id", state.incumbent.id}, {"settings", CandidateSettingsJson(state.incumbent)}};
  return body;
}

}  // namespace hone::tune
