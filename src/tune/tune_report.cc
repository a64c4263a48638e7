// report.json's body for `hone tune`: the same facts the HTML page shows (report_html.h reads this, never the
// run's state), with every trial's settings and figures.
#include <fmt/format.h>

#include "check/gates.h"
#include "tune/tune_final.h"
#include "tune/tune_state.h"

namespace hone::tune {
namespace {

nlohmann::json TrialLoadsJson(const TrialResult& t) {
  nlohmann::json loads = nlohmann::json::array();
  for (const LoadFigures& f : t.loads) loads.push_back(LoadFiguresJson(f));
  return loads;
}

// A paired ratio: {ratio, low, high, rounds}; null when not measured in pairs.
nlohmann::json PairJson(const PairedRatio& p) {
  if (!p.measured()) return nullptr;
  return {{"ratio", p.ratio}, {"low", p.low}, {"high", p.high}, {"rounds", p.rounds}};
}

// [{gate, value, passed}]
nlohmann::json GateResultsJson(const std::vector<check::GateResult>& gates) {
  nlohmann::json out = nlohmann::json::array();
  for (const check::GateResult& g : gates) out.push_back({{"gate", g.gate.ToString()}, {"value", g.value}, {"passed", g.passed}});
  return out;
}

nlohmann::json GateResultsJson(const harness::VariantOutcome& o) {
  return o.evaluate ? GateResultsJson(o.evaluate->gates) : nlohmann::json::array();
}

// {metric, value, gates: [{gate, value, passed}]} (gates only for a variant's record).
nlohmann::json QualityJson(const QualityRecord& q) {
  nlohmann::json j = {{"metric", q.metric}, {"value", q.value ? nlohmann::json(*q.value) : nlohmann::json()}};
  if (!q.gates.empty()) {
    j["gates"] = GateResultsJson(q.gates);
  }
  return j;
}

const QualityRecord* QualityOf(const TuneState& state, const std::string& id) {
  auto it = state.ledger.quality_by_candidate.find(id);
  return it == state.ledger.quality_by_candidate.end() ? nullptr : &it->second;
}

// The profile stage's findings: the profile's own JSON (or its error), the served split and the decisions.
nlohmann::json ProfileFindingsJson(const ProfileFindings& f) {
  nlohmann::json j = f.profile ? harness::ProfileToJson(*f.profile)
                               : nlohmann::json{{"summary", nullptr}, {"error", f.error.empty() ? nlohmann::json()
                                                                                                 : nlohmann::json(f.error)}};
  if (f.served_split) j["served_split"] = harness::ServedSplitToJson(*f.served_split);
  j["decisions"] = f.decisions;
  return j;
}

nlohmann::json VariantCheckJson(const VariantCheckRecord& c) {
  const harness::VariantOutcome& o = c.outcome;
  nlohmann::json j = {{"variant", c.variant},       {"what", c.what},         {"passed", o.passed()},
                      {"failures", o.failures},     {"notes", o.notes},       {"kept_fp32", c.kept_fp32},
                      {"variant_bytes", o.variant_bytes}, {"source_bytes", o.source_bytes},
                      {"gates", GateResultsJson(o)}};
  if (o.speed) j["throughput_ratio_in_process"] = o.speed->throughput_ratio;
  j["first_try"] = c.first_try ? nlohmann::json{{"failures", c.first_try->failures}, {"gates", GateResultsJson(*c.first_try)}}
                               : nlohmann::json();
  if (c.first_try) {
    // A ranking of fewer nodes than were quantized: the time allowed ran out first; the report says so.
    j["sensitivity"] = {{"nodes_probed", c.probed.first}, {"nodes_quantized", c.probed.second}};
  }
  return j;
}

// The facts only some stages have, each under its own key.
void StageFactsJson(const TuneState& state, const StageRecord& s, nlohmann::json& j) {
  if (s.name == "baseline") {
    j["in_process"] = TrialLoadsJson(state.ledger.baseline_in_process);
    if (const QualityRecord* q = QualityOf(state, "baseline"); q && q->metric == "accuracy")
      j["quality"] = {{"accuracy", q->value ? nlohmann::json(*q->value) : nlohmann::json()}};
  }
  if (s.name == "graph") {
    // Cold start per level: the served model's time to ready, from the trials' own start-ups.
    nlohmann::json cold = nlohmann::json::array();
    for (const Entry& e : s.entries) {
      if (e.measured) cold.push_back({{"candidate", e.candidate.id}, {"ready_s", e.trial.ready_s}});
    }
    j["cold_start"] = cold;
  }
  if (s.saved_graph) {
    const SavedGraphFacts& g = *s.saved_graph;
    j["saved_graph"] = {{"used", g.used}, {"reason", g.reason}};
    if (!g.level.empty()) j["saved_graph"]["level"] = g.level;
    if (g.cold_start_without_s) j["saved_graph"]["cold_start_without_s"] = *g.cold_start_without_s;
    if (g.cold_start_with_s) j["saved_graph"]["cold_start_with_s"] = *g.cold_start_with_s;
  }
  if (s.name == "precision" || s.name == "compression" || s.name == "exhaustive") {
    nlohmann::json checks = nlohmann::json::array();
    for (const VariantCheckRecord& c : s.variant_checks) checks.push_back(VariantCheckJson(c));
    j["variant_checks"] = checks;
  }
  if (s.name == "exhaustive" && state.ledger.exhaustive) {
    const ExhaustiveFacts& x = *state.ledger.exhaustive;
    j["grid"] = {{"candidates", x.candidates}, {"models", x.models},   {"batching", x.batching},
                 {"graph", x.graph},           {"threads", x.threads}, {"wall_s", x.wall_s}};
  }
}

nlohmann::json CapacityJson(const std::vector<SloCapacity>& capacities, int cores) {
  nlohmann::json out = nlohmann::json::array();
  for (const SloCapacity& c : capacities) {
    nlohmann::json probes = nlohmann::json::array();
    for (const CapacityProbe& p : c.probes) {
      probes.push_back({{"load", LoadJson(p.load)},
                        {"percentile_ms", double(p.percentile_ns) / 1e6},
                        {"throughput_sps", p.throughput_sps},
                        {"holds", p.holds}});
    }
    out.push_back({{"slo", c.slo.text},
                   {"holds_up_to", c.holds_up_to ? LoadJson(*c.holds_up_to) : nlohmann::json()},
                   {"fails_at", c.fails_at ? LoadJson(*c.fails_at) : nlohmann::json()},
                   {"at_ceiling", c.at_ceiling},
                   {"throughput_sps", c.holds_up_to ? nlohmann::json(c.throughput_sps) : nlohmann::json()},
                   {"percentile_ms", c.holds_up_to ? nlohmann::json(double(c.percentile_ns) / 1e6) : nlohmann::json()},
                   {"percentile_spread", c.holds_up_to ? nlohmann::json(c.percentile_spread) : nlohmann::json()},
                   {"repeats", c.repeats},
                   {"cores", cores},
                   {"sentence", CapacitySentence(c, cores)},
                   {"probes", probes}});
  }
  return out;
}

nlohmann::json StageJson(const TuneState& state, const StageRecord& s) {
  nlohmann::json trials = nlohmann::json::array();
  for (const Entry& e : s.entries) {
    const QualityRecord* q = QualityOf(state, e.candidate.id);
    nlohmann::json quality = q ? QualityJson(*q) : nlohmann::json();
    trials.push_back({{"id", e.candidate.id},
                      {"settings", CandidateSettingsJson(e.candidate)},
                      {"loads", e.measured ? TrialLoadsJson(e.trial) : nlohmann::json::array()},
                      {"ready_s", e.measured ? nlohmann::json(e.trial.ready_s) : nlohmann::json()},
                      {"ratio_vs_incumbent", e.measured ? nlohmann::json(e.ratio_vs_incumbent) : nlohmann::json()},
                      {"feasible", e.score.feasible},
                      {"quality", quality},
                      {"outcome", OutcomeName(e.outcome)},
                      {"paired", PairJson(e.score_pair)},
                      {"cpu_paired", PairJson(e.cpu_pair)},
                      {"reason", e.reason}});
  }
  nlohmann::json j = {{"name", s.name},
                      {"index", s.index},
                      {"status", StageStatusName(s.status)},
                      {"decided_by", s.decided_by == Signal::kNone ? nlohmann::json() : nlohmann::json(SignalName(s.decided_by))},
                      {"rounds", s.rounds},
                      {"noise", s.noise > 0 ? nlohmann::json(s.noise) : nlohmann::json()},
                      {"reason", s.reason},
                      {"winner", s.winner.empty() ? nlohmann::json() : nlohmann::json(s.winner)},
                      {"delta_vs_baseline", s.delta_vs_baseline > 0 ? nlohmann::json(s.delta_vs_baseline) : nlohmann::json()},
                      {"delta_vs_previous", s.delta_vs_previous > 0 ? nlohmann::json(s.delta_vs_previous) : nlohmann::json()},
                      {"wall_s", s.wall_s},
                      {"trials", trials}};
  StageFactsJson(state, s, j);
  return j;
}

}  // namespace

nlohmann::json CurvesJson(const std::vector<TrialResult>& curves) {
  nlohmann::json out = nlohmann::json::array();
  for (const TrialResult& t : curves) {
    nlohmann::json points = nlohmann::json::array();
    for (const LoadFigures& f : t.loads) {
      points.push_back({{"concurrency", f.load.concurrency}, {"throughput_sps", f.throughput_sps},
                        {"p50_ms", f.p50_ns / 1e6}, {"p99_ms", f.p99_ns / 1e6}});
    }
    out.push_back({{"candidate", t.candidate_id}, {"points", points}});
  }
  return out;
}

// The serve command and the bench that re-measures the first SLO's load (on hone serve's default ports).
nlohmann::json ReproduceJson(const TuneState& state, const std::string& repository) {
  const Load& load = state.given.objective.loads[0];
  const bool grpc = state.given.settings->protocol == bench::RemoteProtocol::kGrpc;
  std::string how = load.open_loop() ? fmt::format("--mode open-loop --rate {:g}", load.rate)
                                   : fmt::format("--concurrency {}", load.concurrency);
  return {{"serve", fmt::format("hone serve --model-repository {}", repository)},
          {"bench", fmt::format("hone bench {} --url 127.0.0.1:{} {}{}", state.given.plan.model_name, grpc ? 8001 : 8000,
                                how, grpc ? " --protocol grpc" : "")}};
}

nlohmann::json VerdictJson(const TuneState& state, const FinalCheck& final_check, int exit_code) {
  nlohmann::json verdict;
  verdict["met"] = exit_code == 0;
  verdict["exit_code"] = exit_code;
  nlohmann::json slo_results = nlohmann::json::array();
  for (const SloResult& r : final_check.slo_results) {
    const LoadFigures* f = nullptr;
    for (const LoadFigures& l : final_check.trial.loads) {
      if (l.load == r.slo->load) f = &l;
    }
    slo_results.push_back({{"slo", r.slo->text}, {"measured_ms", r.measured_ns / 1e6},
                           {"bound_ms", r.slo->bound_ns / 1e6}, {"margin", r.margin}, {"met", r.met},
                           {"detail", r.detail},
                           {"throughput_sps", f ? nlohmann::json(f->throughput_sps) : nlohmann::json()}});
  }
  verdict["slo_results"] = slo_results;
  verdict["gates"] = GatesJson(final_check);
  verdict["outputs"] = final_check.outputs_detail;
  // The winner against the baseline in paired rounds; without them (the baseline won, or the check was cut short),
  // the two measured apart.
  const PairedRatio& vs = final_check.vs_baseline;
  const double ratio = vs.measured() ? vs.ratio : ScoreRatio(state.given.objective, final_check.trial, state.ledger.baseline_trial);
  verdict["throughput_ratio"] = ratio > 0 ? nlohmann::json(ratio) : nlohmann::json();
  verdict["vs_baseline"] = PairJson(vs);
  verdict["cpu_vs_baseline"] = PairJson(final_check.cpu_vs_baseline);
  verdict["noise"] = state.ledger.noise_seen;
  auto cost = [](const TrialResult& t) {
    return !t.loads.empty() && t.loads[0].cost_per_1000 ? nlohmann::json(*t.loads[0].cost_per_1000)
                                                        : nlohmann::json();
  };
  verdict["baseline_cost_per_1000"] = cost(state.ledger.baseline_trial);
  verdict["final_cost_per_1000"] = cost(final_check.trial);
  verdict["best_candidate"] = state.ledger.incumbent.id;
  nlohmann::json misses = nlohmann::json::array();
  for (const SloResult& r : final_check.slo_results) {
    if (!r.met) misses.push_back(r.detail);
  }
  if (!final_check.quality_met()) misses.push_back(final_check.outputs_detail);
  if (!final_check.error.empty()) misses.push_back("final check: " + final_check.error);
  verdict["misses"] = misses;
  std::string headline =
      exit_code == 0   ? fmt::format("{} with {}", state.WhatWasMet(), state.ledger.incumbent.id)
      : exit_code == 130 ? std::string("interrupted: the report holds what finished")
                         : fmt::format("not met: the best candidate that passed its gates is {}; {}",
                                       state.ledger.incumbent.id,
                                       misses.empty() ? std::string("see the stages") : misses[0].get<std::string>());
  if (state.ledger.incumbent.id == "baseline") {
    headline += "; the baseline stays: " + state.WhyBaselineStays();
  } else if (vs.measured()) {
    headline += fmt::format(" ({} the baseline's score{})", PairText(vs),
                            vs.below_one() ? ": slower than the baseline beyond the noise" : "");
  } else if (ratio > 0) {
    headline += fmt::format(" ({:.2f}x the baseline's score, measured apart)", ratio);
  }
  verdict["summary"] = headline;
  return verdict;
}

nlohmann::json TuneBodyJson(const TuneState& state, const FinalCheck& final_check,
                            const std::vector<TrialResult>& curves, const std::string& repository, int exit_code) {
  const TuneSettings& s = *state.given.settings;
  nlohmann::json slos = nlohmann::json::array();
  for (const Slo& slo : s.slos) slos.push_back(SloJson(slo));
  nlohmann::json gates = nlohmann::json::array();
  for (const check::Gate& g : state.given.gates) gates.push_back(g.ToString());
  nlohmann::json body;
  body["objective"] = {{"slos", slos},
                       {"gates", gates},
                       {"protocol", s.protocol == bench::RemoteProtocol::kGrpc ? "grpc" : "http"},
                       {"budget_s", s.budget_s},
                       {"cost_per_hour", s.cost_per_hour > 0 ? nlohmann::json(s.cost_per_hour) : nlohmann::json()},
                       {"data", s.inputs.data_path.empty() ? nlohmann::json() : nlohmann::json(s.inputs.data_path)},
                       {"generated", state.given.generated_note.empty() ? nlohmann::json() : nlohmann::json(state.given.generated_note)},
                       {"note", state.given.objective_note.empty() ? nlohmann::json() : nlohmann::json(state.given.objective_note)},
                       {"calibration_rows", state.given.calibration_rows},
                       {"held_out", state.given.calibration_rows > 0
                                        ? nlohmann::json(fmt::format("rows {}.. of the data: every gate, check and "
                                                                     "trial; rows before it only calibrate",
                                                                     state.given.calibration_rows))
                                        : nlohmann::json("every row (nothing calibrates)")},
                       {"quick", s.quick}};
  body["baseline"] = {{"candidate", "baseline"},
                      {"settings", CandidateSettingsJson(state.given.baseline)},
                      {"loads", TrialLoadsJson(state.ledger.baseline_trial)},
                      {"in_process", TrialLoadsJson(state.ledger.baseline_in_process)}};
  body["final"] = FinalJson(final_check);
  body["final"]["config_pbtxt"] = final_check.config_text;
  body["profile"] = ProfileFindingsJson(state.ledger.profile);
  nlohmann::json stages = nlohmann::json::array();
  for (const StageRecord& r : state.ledger.stages) stages.push_back(StageJson(state, r));
  body["stages"] = stages;
  // Throughput against quality: every measured candidate with a quality figure.
  nlohmann::json pareto = nlohmann::json::array();
  for (const StageRecord& r : state.ledger.stages) {
    for (const Entry& e : r.entries) {
      if (!e.measured || e.trial.loads.empty()) continue;
      const QualityRecord* q = QualityOf(state, e.candidate.id);
      if (!q && e.candidate.precision == "fp32" && e.candidate.compression.empty())
        q = QualityOf(state, "baseline");  // the source's model
      bool seen = false;
      for (const auto& p : pareto) seen = seen || p["candidate"] == e.candidate.id;
      if (seen) continue;
      pareto.push_back({{"candidate", e.candidate.id},
                        {"throughput_sps", e.trial.loads[0].throughput_sps},
                        {"quality_metric", q ? q->metric : ""},
                        {"quality", q && q->value ? nlohmann::json(*q->value) : nlohmann::json()},
                        {"chosen", e.candidate.id == state.ledger.incumbent.id || e.candidate.id == state.ledger.saved_graph_of}});
    }
  }
  body["pareto"] = pareto;
  nlohmann::json rejected = nlohmann::json::array();
  for (const RejectedCandidate& r : state.ledger.rejected)
    rejected.push_back({{"candidate", r.candidate}, {"stage", r.stage}, {"reason", r.reason}});
  for (const StageRecord& r : state.ledger.stages) {
    for (const Entry& e : r.entries) {
      if (e.outcome == Outcome::kRankedOut || e.outcome == Outcome::kNotConfirmed)
        rejected.push_back({{"candidate", e.candidate.id}, {"stage", r.name}, {"reason", e.reason}});
    }
  }
  body["rejected"] = rejected;
  nlohmann::json skipped = nlohmann::json::array();
  for (const SkippedWork& w : state.ledger.skipped)
    skipped.push_back({{"stage", w.stage}, {"what", w.what}, {"reason", w.reason}});
  body["skipped"] = skipped;
  body["winner"] = {{"id", state.ledger.incumbent.id}, {"settings", CandidateSettingsJson(state.ledger.incumbent)}};
  body["curves"] = CurvesJson(curves);
  body["interrupted"] = exit_code == 130;
  body["wall_time_s"] = state.elapsed_s();
  body["search"] = {{"mode", state.ledger.exhaustive ? "exhaustive" : "staged"}};
  if (state.ledger.exhaustive) {
    nlohmann::json top = nlohmann::json::array();
    for (const Candidate& c : state.ledger.exhaustive->top) top.push_back({{"id", c.id}, {"settings", CandidateSettingsJson(c)}});
    body["search"]["candidates"] = state.ledger.exhaustive->candidates;
    body["search"]["wall_s"] = state.ledger.exhaustive->wall_s;
    body["search"]["top"] = top;
  }
  body["capacity"] = CapacityJson(final_check.capacity, state.given.system.logical_cores);
  body["replicas"] = final_check.replicas
                         ? nlohmann::json{{"expected_load", LoadJson(final_check.replicas->expected)},
                                          {"replicas", final_check.replicas->replicas},
                                          {"arithmetic", final_check.replicas->arithmetic}}
                         : nlohmann::json();
  body["repository"] = {{"path", repository}, {"model", state.given.plan.model_name},
                        {"config_pbtxt", final_check.config_text}};
  body["reproduce"] = ReproduceJson(state, repository);
  body["verdict"] = VerdictJson(state, final_check, exit_code);
  return body;
}

}  // namespace hone::tune
