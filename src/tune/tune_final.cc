#include "tune/tune_final.h"

#include <fmt/format.h>

#include <algorithm>

#include "bench/remote_runner.h"
#include "harness/served_model.h"

namespace hone::tune {
namespace {

// Every held-out row over the wire (tune/wire_check.h); without data, nothing to check against.
void CheckOutputsOverTheWire(TuneState& state, harness::ServedModel& served, const std::string& model_name,
                             FinalCheck& check) {
  if (state.given.heldout_path.empty()) {
    check.outputs_detail = "no dataset: outputs over the wire not checked (give --data)";
    return;
  }
  WireCheckSettings w;
  w.url = served.url();
  w.protocol = state.given.settings->protocol;
  w.model_name = model_name;
  w.winner_path = state.ledger.incumbent.model_path;
  w.winner_session = state.ledger.incumbent.session;
  w.source_path = state.given.settings->model_path;
  w.source_tolerances = state.given.settings->tolerances;
  w.heldout_path = state.given.heldout_path;
  w.batch_axis = state.given.batch_axis;
  w.rows_per_request = std::max<int64_t>(1, state.ledger.incumbent.max_batch_size);
  w.gates = state.given.gates;
  w.output = state.given.settings->output;
  w.slice_key = state.given.settings->slice_key;
  w.perturbations = state.given.settings->perturbations;
  w.has_labels = state.given.has_labels;
  w.work_dir = state.given.work_dir;
  auto wire = CheckOverTheWire(w);
  if (!wire.ok()) {
    check.outputs_detail = "outputs over the wire could not be checked: " + wire.status().message();
    return;
  }
  check.wire = std::move(*wire);
  check.outputs_detail = check.wire->Describe(state.given.settings->protocol);
}

// The winner and the baseline served in turn (the order turned each round), each measured at the SLO loads.
void MeasureAgainstBaseline(TuneState& state, FinalCheck& check) {
  if (state.ledger.incumbent.id == state.given.baseline.id) return;
  TrialPlan plan = state.given.plan;
  plan.window_s = state.given.settings->quick ? 0.15 : 0.4;
  plan.stop = state.given.settings->stop;
  std::vector<TrialResult> winner, baseline;
  for (int round = 0; round < FinalPairedRounds(state) && !state.stopped(); ++round) {
    state.Say(fmt::format("final check: the winner against the baseline, round {} of {}", round + 1,
                          FinalPairedRounds(state)));
    auto first = MeasureServed(round % 2 ? state.given.baseline : state.ledger.incumbent, plan);
    auto second = MeasureServed(round % 2 ? state.ledger.incumbent : state.given.baseline, plan);
    if (!first.ok() || !second.ok()) break;
    winner.push_back(round % 2 ? *second : *first);
    baseline.push_back(round % 2 ? *first : *second);
  }
  std::vector<double> score, cpu;
  for (size_t i = 0; i < winner.size(); ++i) {
    score.push_back(ScoreRatio(state.given.objective, winner[i], baseline[i]));
    cpu.push_back(CpuRatio(winner[i], baseline[i]));
  }
  check.vs_baseline = PairedRatioOf(score);
  check.cpu_vs_baseline = PairedRatioOf(cpu);
}

}  // namespace

int FinalPairedRounds(const TuneState& state) { return state.given.settings->quick ? 3 : 4; }

std::vector<Load> CurveLoads(const TuneState& state) {
  int64_t largest = 8;
  for (const Load& l : state.given.objective.loads) {
    if (!l.open_loop()) largest = std::max(largest, l.concurrency * 2);
  }
  std::vector<Load> loads;
  for (int64_t c = 1; c <= largest; c *= 2) loads.push_back(Load::Closed(c));
  return loads;
}

FinalCheck RunFinalCheck(TuneState& state, const std::string& repository, const std::string& model_name,
                         std::vector<TrialResult>* curves) {
  FinalCheck check;
  check.repository = repository;
  // Written even after Ctrl-C, so that the best candidate so far can be served.
  Status written = WriteRepository(state.ledger.incumbent, model_name, state.given.metadata, repository);
  if (!written.ok()) {
    check.error = written.message();
    return check;
  }
  check.config_text = CandidateConfigText(state.ledger.incumbent, model_name, state.given.metadata);  // what was written
  if (state.stopped()) {
    check.error = "interrupted before the final check: the repository holds the best candidate so far, not "
                  "measured through it";
    return check;
  }
  auto served = harness::ServedModel::Start(repository, model_name, state.given.settings->protocol);
  if (!served.ok()) {
    check.error = served.status().message();
    return check;
  }
  check.ran = true;
  check.ready_s = (*served)->ready_s();
  state.Say(fmt::format("final check: serving '{}' and measuring over the wire", repository));
  std::vector<TrialResult> repeats;
  int rounds = state.given.settings->quick ? 2 : 3;
  for (int i = 0; i < rounds && !state.stopped(); ++i) {
    bench::RunnerHooks hooks;
    hooks.stop = state.given.settings->stop;
    TrialResult r;
    r.candidate_id = state.ledger.incumbent.id;
    for (const Load& load : state.given.objective.loads) {
      bench::BenchSettings s;
      s.inputs = state.given.plan.inputs;
      s.cost_per_hour = state.given.plan.cost_per_hour;
      s.run.warmup_s = 0.3;
      s.run.window_s = state.given.settings->quick ? 0.2 : 0.5;
      s.run.stability.tolerance = 0.2;
      s.run.stability.max_windows = 8;
      s.run.stability.min_duration_s = 3 * s.run.window_s;
      // A slow model's windows grow to hold requests, but not past what the budget reserved for this check.
      s.run.max_window_s = std::max(2.0, 8 * s.run.window_s);
      auto report = bench::RunRemoteBench(bench::SettingsForLoads(s, {load}).front(), (*served)->Remote(), hooks);
      if (!report.ok() || report->points.empty()) {
        check.error = report.ok() ? "no point measured" : report.status().message();
        break;
      }
      r.loads.push_back(FiguresFromPoint(report->points[0], load, state.given.plan.cost_per_hour,
                                         state.given.plan.extra_percentile));
    }
    if (r.loads.size() == state.given.objective.loads.size()) repeats.push_back(r);
  }
  if (!repeats.empty()) check.trial = MergeRepeats(repeats);
  Score score = ScoreTrial(state.given.objective, check.trial);
  check.slo_results = score.slo_results;
  check.slos_met = !repeats.empty() && score.feasible;
  if (curves && !state.stopped()) {
    TrialPlan plan = state.given.plan;
    plan.loads = CurveLoads(state);
    plan.window_s = state.given.settings->quick ? 0.1 : 0.25;
    plan.stop = state.given.settings->stop;
    const Candidate* both[] = {&state.given.baseline, &state.ledger.incumbent};
    for (const Candidate* c : both) {
      if (state.stopped()) break;
      state.Say(fmt::format("final check: latency-throughput curve of {}", c->id));
      auto t = MeasureServed(*c, plan);
      if (t.ok()) {
        t->candidate_id = c == &state.given.baseline ? "baseline" : "final (" + c->id + ")";
        curves->push_back(std::move(*t));
      }
    }
  }
  CheckOutputsOverTheWire(state, **served, model_name, check);
  MeasureAgainstBaseline(state, check);
  // Last, with what the budget has left: what one replica holds, and the replicas an expected load needs.
  const TrialResult* final_curve =
      curves && !curves->empty() && curves->back().candidate_id.starts_with("final") ? &curves->back() : nullptr;
  check.capacity = MeasureCapacity(state, **served, final_curve);
  if (const std::optional<Load>& expected = state.given.settings->expected_load) {
    if (auto plan = ReplicasFor(check.capacity, *expected); plan.ok()) check.replicas = *plan;
  }
  return check;
}

nlohmann::json GatesJson(const FinalCheck& f) {
  nlohmann::json gates = nlohmann::json::array();
  if (!f.wire || !f.wire->evaluation) return gates;
  for (const check::GateResult& g : f.wire->evaluation->gates) {
    // Robustness figures (metric@perturbation) come from perturbed inputs the wire never carried: the winner in
    // process; every other figure from the outputs that came back.
    const bool perturbed = g.gate.metric.find('@') != std::string::npos;
    gates.push_back({{"gate", g.gate.ToString()}, {"value", g.value}, {"passed", g.passed},
                     {"on", perturbed ? "the winner in process, perturbed inputs" : "outputs over the wire"}});
  }
  return gates;
}

bool FinalCheck::quality_met() const {
  return wire && wire->outputs_match() && wire->source_match && wire->gates_passed();
}

nlohmann::json FinalJson(const FinalCheck& f) {
  nlohmann::json loads = nlohmann::json::array();
  for (const LoadFigures& l : f.trial.loads) loads.push_back(LoadFiguresJson(l));
  return {{"candidate", f.trial.candidate_id},
          {"through", "hone serve in this process, loopback"},
          {"ran", f.ran},
          {"error", f.error.empty() ? nlohmann::json() : nlohmann::json(f.error)},
          {"loads", loads},
          {"ready_s", f.ready_s},
          {"vs_baseline", f.vs_baseline.measured() ? nlohmann::json{{"ratio", f.vs_baseline.ratio},
                                                                    {"low", f.vs_baseline.low},
                                                                    {"high", f.vs_baseline.high},
                                                                    {"rounds", f.vs_baseline.rounds}}
                                                   : nlohmann::json()},
          {"rows_checked", f.wire ? f.wire->rows : 0},
          {"outputs_match_in_process", f.wire && f.wire->outputs_match()},
          {"outputs_match_source", f.wire && f.wire->source_match},
          {"gates", GatesJson(f)},
          {"outputs_detail", f.outputs_detail}};
}

}  // namespace hone::tune
