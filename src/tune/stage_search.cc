// What every search stage shares: its share of the budget as search settings, running the search, and recording
// what it decided; and the run's clock-and-budget arithmetic (tune_state.h). The stages themselves are
// batching_stage.cc, graph_stage.cc, threads_stage.cc and precision_stage.cc.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "tune/tune_final.h"
#include "tune/tune_state.h"

namespace hone::tune {

std::string TuneState::BestSoFar() const {
  if (ledger.incumbent_trial.loads.empty()) return "best so far: " + ledger.incumbent.id;
  const LoadFigures& f = ledger.incumbent_trial.loads[0];
  return fmt::format("best so far: {}, {:.0f} samples/s, p99 {:.2f} ms at {}", ledger.incumbent.id, f.throughput_sps,
                     double(f.p99_ns) / 1e6, f.load.Label());
}

double TuneState::FinalSeconds() const {
  const double window = given.settings->quick ? 0.2 : 0.5;
  const double rounds = given.settings->quick ? 2 : 3;
  const double curve_loads = static_cast<double>(CurveLoads(*this).size());
  const double curve_window = given.settings->quick ? 0.1 : 0.25;
  // The outputs over the wire: every held-out row through the server, the winner and the source in process, and
  // the given.gates' evaluation; from the baseline's in-process latency (a row at a time, the slowest case).
  const double row_s = ledger.baseline_in_process.loads.empty() ? 0.0 : double(ledger.baseline_in_process.loads[0].p50_ns) / 1e9;
  const double wire_s = 3 + 4 * static_cast<double>(given.heldout_rows) * row_s;
  // The winner against the baseline: two served trials a round.
  const double paired_s = 2 * FinalPairedRounds(*this) * TrialSeconds(given.settings->quick ? 0.15 : 0.4);
  return 2 + rounds * static_cast<double>(given.objective.loads.size()) * (0.3 + 4 * window) +
         2 * (0.4 + curve_loads * (4.5 * curve_window + 0.1)) + wire_s + paired_s;
}

double TuneState::StageRoom(int index) const {
  // By stage index: batching, graph, threads, precision, compression, and the threads again for the model those
  // chose.
  // Threads and instances weigh most among the serving settings: on a CPU they move throughput most, they have
  // the most candidates, and their differences are small enough to need rounds. Compression makes and verifies
  // fewer variants than precision. The retune runs only when a variant stage changed the model, and its share goes
  // unused otherwise: it gets the least.
  static constexpr double kWeight[] = {0, 0, 0, 3, 2, 4, 4, 3, 1};
  double later = 0;
  for (int i = std::clamp(index, 3, 8); i <= 8; ++i) later += kWeight[i];
  return std::max(0.0, left_s() - FinalSeconds()) * kWeight[std::clamp(index, 3, 8)] / later;
}

std::string TuneState::WhyBaselineStays() const {
  int measured = 0, not_run = 0;
  for (const StageRecord& r : ledger.stages) {
    if (r.index < 3) continue;  // baseline and profile choose nothing
    if (r.status == StageStatus::kNoGain) ++measured;
    if (r.status == StageStatus::kSkipped || r.status == StageStatus::kFailed) ++not_run;
  }
  if (measured == 0) return "no stage could measure a candidate (see skipped and rejected)";
  if (not_run == 0) return fmt::format("no stage beat it beyond the noise of its own paired rounds (up to +-{:.0f}%)", 100 * ledger.noise_seen);
  return fmt::format("{} stage{} measured candidates and none beat it beyond the noise (+-{:.0f}%); {} {} skipped or "
                     "failed (see skipped)",
                     measured, measured == 1 ? "" : "s", 100 * ledger.noise_seen, not_run, not_run == 1 ? "was" : "were");
}

std::string TuneState::WhatWasMet() const {
  const bool slos = !given.objective.slos.empty(), any_gates = !given.gates.empty();
  if (slos && any_gates) return "every SLO and gate met";
  if (any_gates) return "every gate met";
  return slos ? "every SLO met and the outputs over the wire match the source"
              : "the outputs over the wire match the source";
}

SearchSettings StageSearchSettings(TuneState& state, const std::string& name, int index,
                                   std::vector<Candidate>& candidates) {
  SearchSettings s;
  bool quick = state.given.settings->quick;
  // Ranking only picks the finalists, which the paired rounds then measure again: short windows let more
  // candidates in.
  s.rank_window_s = quick ? 0.1 : 0.15;
  s.confirm_window_s = quick ? 0.15 : 0.4;
  // The stage's share of the budget is what ends a comparison still undecided (may_continue below); the cap only
  // keeps one stage from taking a lot more rounds than a careful person would spend on one pair.
  s.min_rounds = 3;
  s.max_rounds = quick ? 6 : 10;
  const double room = state.StageRoom(index);
  const double rank_one = state.TrialSeconds(s.rank_window_s);
  auto confirm_s = [&](int rounds) {
    return double(s.finalists + 1) * rounds * state.TrialSeconds(s.confirm_window_s);
  };
  // The rounds that measure the noise come before the number of candidates: without three of them nothing is
  // decided. What goes first when the share is short: the second finalist, then the riskiest candidates (never
  // below two), then the confirming windows shorten (not below the ranking's).
  auto over = [&] { return double(candidates.size()) * rank_one + confirm_s(s.min_rounds) > room; };
  if (over() && s.finalists > 1) s.finalists = 1;
  size_t fits = static_cast<size_t>(std::max(0.0, (room - confirm_s(s.min_rounds)) / rank_one));
  if (fits < 2) {
    s.confirm_window_s = s.rank_window_s;
    fits = static_cast<size_t>(std::max(0.0, (room - confirm_s(s.min_rounds)) / rank_one));
  }
  if (fits < candidates.size()) {
    fits = std::max<size_t>(fits, 2);
    std::vector<std::string> cut;
    for (size_t i = fits; i < candidates.size(); ++i) cut.push_back(candidates[i].id);
    if (!cut.empty()) {
      state.ledger.skipped.push_back({name, fmt::format("{}", fmt::join(cut, ", ")),
                               fmt::format("budget: the stage's share is {:.0f} s, {:.0f} s a ranking trial", room,
                                           rank_one)});
      candidates.resize(fits);
    }
  }
  TuneState* st = &state;
  const double final_s = state.FinalSeconds();
  // More confirming rounds than the three stop at the stage's share (a quarter over it at most): a pair that is
  // still not told apart by then is left undecided rather than taken from the stages after it.
  const auto stage_end = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(static_cast<int64_t>(1250 * std::max(room, 0.0)));
  s.may_continue = [st, final_s, stage_end] {
    return !st->stopped() && st->left_s() > final_s && std::chrono::steady_clock::now() < stage_end;
  };
  s.progress = [st, name, index](const std::string& text) {
    const std::string stage = index <= 7 ? fmt::format("stage {} of 7 ({})", index, name)
                                         : fmt::format("after stage 7 ({}: threads for the new model)", name);
    st->Say(fmt::format("{}: {}; {}; {:.0f} s left", stage, text, st->BestSoFar(), std::max(0.0, st->left_s())));
  };
  return s;
}

void SearchStage(TuneState& state, const std::string& name, int index, std::vector<Candidate> candidates) {
  auto started = std::chrono::steady_clock::now();
  StageRecord record;
  record.name = name;
  record.index = index;
  if (candidates.size() < 2) {
    record.status = StageStatus::kSkipped;
    if (record.reason.empty()) record.reason = "no candidate to try";
    state.ledger.stages.push_back(record);
    return;
  }
  if (state.stopped()) {
    record.reason = "stopped before the stage started";
    state.ledger.stages.push_back(record);
    return;
  }
  const size_t planned = candidates.size();
  SearchSettings settings = StageSearchSettings(state, name, index, candidates);
  if (state.left_s() - state.FinalSeconds() < 2 * state.TrialSeconds(settings.rank_window_s)) {
    record.reason = fmt::format("budget: {:.0f} s left, and the final check needs about {:.0f} s",
                                std::max(0.0, state.left_s()), state.FinalSeconds());
    state.ledger.skipped.push_back({name, fmt::format("{} candidates", planned), record.reason});
    state.ledger.stages.push_back(record);
    return;
  }
  const SearchResult search = Search(candidates, state.given.objective, ServedTrials(state), settings);
  RecordSearch(state, search, record);
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  state.ledger.stages.push_back(std::move(record));
}

MeasureFn ServedTrials(const TuneState& state) {
  TrialPlan plan = state.given.plan;
  plan.stop = state.given.settings->stop;
  return [plan](const Candidate& c, double window_s) {
    TrialPlan p = plan;
    p.window_s = window_s;
    return MeasureServed(c, p);
  };
}

void RecordSearch(TuneState& state, const SearchResult& search, StageRecord& record) {
  if (search.noise > 0) state.ledger.noise_seen = std::max(state.ledger.noise_seen, search.noise);
  if (search.interrupted && state.given.settings->stop && state.given.settings->stop->load()) {
    state.budget.interrupted = true;
  }
  const Entry& winner = search.entries[static_cast<size_t>(search.winner)];
  record.entries = search.entries;
  record.winner = winner.candidate.id;
  record.reason = search.reason;
  record.decided_by = search.decided_by;
  record.rounds = search.rounds;
  record.noise = search.noise;
  record.delta_vs_previous = winner.ratio_vs_incumbent;
  record.delta_vs_baseline =
      winner.measured ? ScoreRatio(state.given.objective, winner.trial, state.ledger.baseline_trial) : 0;
  record.status = search.winner == 0 ? StageStatus::kNoGain : StageStatus::kImproved;
  if (!search.entries[0].measured) {
    record.status = StageStatus::kFailed;
    record.reason = "the incumbent could not be measured: " + search.entries[0].reason;
  }
  for (const Entry& e : search.entries) {
    if (e.outcome == Outcome::kRejected) state.ledger.rejected.push_back({e.candidate.id, record.name, e.reason});
  }
  if (search.winner != 0) {
    state.ledger.incumbent = winner.candidate;
    state.ledger.incumbent_trial = winner.trial;
  } else if (search.entries[0].measured) {
    state.ledger.incumbent_trial = search.entries[0].trial;  // the latest, confirmed figures of the same candidate
  }
}

}  // namespace hone::tune
