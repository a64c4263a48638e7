// The serving stages: batching, graph optimization, threads and instances. Each makes candidates from the
// incumbent by changing one thing and lets the search (search.h) decide.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "tune/tune_final.h"
#include "tune/tune_state.h"

namespace hone::tune {
namespace {

int64_t LargestConcurrency(const TuneState& state) {
  int64_t largest = 1;
  for (const Load& load : state.objective.loads) largest = std::max(largest, load.open_loop ? 8 : load.concurrency);
  return largest;
}

int Cores(const TuneState& state) {
  int cores = state.system.logical_cores > 0 ? state.system.logical_cores
                                             : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(cores, 1);
}

}  // namespace

std::string TuneState::BestSoFar() const {
  if (incumbent_trial.loads.empty()) return "best so far: " + incumbent.id;
  const LoadFigures& f = incumbent_trial.loads[0];
  return fmt::format("best so far: {}, {:.0f} samples/s, p99 {:.2f} ms at {}", incumbent.id, f.throughput_sps,
                     double(f.p99_ns) / 1e6, f.load.Label());
}

double TuneState::FinalSeconds() const {
  const double window = settings->quick ? 0.2 : 0.5;
  const double rounds = settings->quick ? 2 : 3;
  const double curve_loads = static_cast<double>(CurveLoads(*this).size());
  const double curve_window = settings->quick ? 0.1 : 0.25;
  // The outputs over the wire: every held-out row through the server, the winner and the source in process, and
  // the gates' evaluation; from the baseline's in-process latency (a row at a time, the slowest case).
  const double row_s = baseline_in_process.loads.empty() ? 0.0 : double(baseline_in_process.loads[0].p50_ns) / 1e9;
  const double wire_s = 3 + 4 * static_cast<double>(heldout_rows) * row_s;
  return 2 + rounds * static_cast<double>(objective.loads.size()) * (0.3 + 4 * window) +
         2 * (0.4 + curve_loads * (4.5 * curve_window + 0.1)) + wire_s;
}

double TuneState::StageRoom(int index) const {
  // By stage index: batching, graph, threads, precision, and the threads again for the precision stage's model.
  static constexpr double kWeight[] = {0, 0, 0, 3, 2, 3, 4, 2};
  double later = 0;
  for (int i = std::clamp(index, 3, 7); i <= 7; ++i) later += kWeight[i];
  return std::max(0.0, left_s() - FinalSeconds()) * kWeight[std::clamp(index, 3, 7)] / later;
}

std::string TuneState::WhyBaselineStays() const {
  int measured = 0, not_run = 0;
  for (const StageRecord& r : stages) {
    if (r.index < 3) continue;  // baseline and profile choose nothing
    if (r.status == StageStatus::kNoGain) ++measured;
    if (r.status == StageStatus::kSkipped || r.status == StageStatus::kFailed) ++not_run;
  }
  if (measured == 0) return "no stage could measure a candidate (see skipped and rejected)";
  if (not_run == 0) return fmt::format("no stage beat it by more than the noise (+-{:.0f}%)", 100 * noise_seen);
  return fmt::format("{} stage{} measured candidates and none beat it beyond the noise (+-{:.0f}%); {} {} skipped or "
                     "failed (see skipped)",
                     measured, measured == 1 ? "" : "s", 100 * noise_seen, not_run, not_run == 1 ? "was" : "were");
}

std::string TuneState::WhatWasMet() const {
  const bool slos = !objective.slos.empty(), any_gates = !gates.empty();
  if (slos && any_gates) return "every SLO and gate met";
  if (any_gates) return "every gate met";
  return slos ? "every SLO met and the outputs over the wire match the source"
              : "the outputs over the wire match the source";
}

SearchSettings StageSearchSettings(TuneState& state, const std::string& name, int index,
                                   std::vector<Candidate>& candidates) {
  SearchSettings s;
  bool quick = state.settings->quick;
  s.rank_window_s = quick ? 0.1 : 0.25;
  s.confirm_window_s = quick ? 0.15 : 0.4;
  s.min_rounds = 3;
  s.max_rounds = quick ? 5 : 8;
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
      state.skipped.push_back({name, fmt::format("{}", fmt::join(cut, ", ")),
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
    const std::string stage = index <= 6 ? fmt::format("stage {} of 6 ({})", index, name)
                                         : fmt::format("after stage 6 ({}: threads for the new model)", name);
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
    state.stages.push_back(record);
    return;
  }
  if (state.stopped()) {
    record.reason = "stopped before the stage started";
    state.stages.push_back(record);
    return;
  }
  const size_t planned = candidates.size();
  SearchSettings settings = StageSearchSettings(state, name, index, candidates);
  if (state.left_s() - state.FinalSeconds() < 2 * state.TrialSeconds(settings.rank_window_s)) {
    record.reason = fmt::format("budget: {:.0f} s left, and the final check needs about {:.0f} s",
                                std::max(0.0, state.left_s()), state.FinalSeconds());
    state.skipped.push_back({name, fmt::format("{} candidates", planned), record.reason});
    state.stages.push_back(record);
    return;
  }
  TrialPlan plan = state.plan;
  plan.stop = state.settings->stop;
  MeasureFn measure = [&plan](const Candidate& c, double window_s) {
    TrialPlan p = plan;
    p.window_s = window_s;
    return MeasureServed(c, p);
  };
  SearchResult search = Search(candidates, state.objective, measure, settings);
  if (search.noise > 0) state.noise_seen = std::max(state.noise_seen, search.noise);
  if (search.interrupted && state.settings->stop && state.settings->stop->load()) state.interrupted = true;
  const Entry& winner = search.entries[static_cast<size_t>(search.winner)];
  record.entries = search.entries;
  record.winner = winner.candidate.id;
  record.reason = search.reason;
  record.decided_by = search.decided_by;
  record.rounds = search.rounds;
  record.noise = search.noise;
  record.delta_vs_previous = winner.ratio_vs_incumbent;
  record.delta_vs_baseline = winner.measured ? ScoreRatio(state.objective, winner.trial, state.baseline_trial) : 0;
  record.status = search.winner == 0 ? StageStatus::kNoGain : StageStatus::kImproved;
  if (!search.entries[0].measured) {
    record.status = StageStatus::kFailed;
    record.reason = "the incumbent could not be measured: " + search.entries[0].reason;
  }
  for (const Entry& e : search.entries) {
    if (e.outcome == Outcome::kRejected) state.rejected.push_back({e.candidate.id, name, e.reason});
  }
  if (search.winner != 0) {
    state.incumbent = winner.candidate;
    state.incumbent_trial = winner.trial;
  } else if (search.entries[0].measured) {
    state.incumbent_trial = search.entries[0].trial;  // the latest, confirmed figures of the same candidate
  }
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  state.stages.push_back(std::move(record));
}

void RunBatchingStage(TuneState& state) {
  std::vector<Candidate> candidates = {state.incumbent};
  if (!state.batch_axis) {
    state.stages.push_back(StageRecord::Of(
        "batching", 3, StageStatus::kSkipped, "the model's inputs share no dynamic batch dimension: " + state.batch_reason));
    return;
  }
  int64_t concurrency = LargestConcurrency(state);
  std::vector<int64_t> sizes = {std::max<int64_t>(8, concurrency), 32};
  if (state.settings->quick) sizes = {std::max<int64_t>(8, concurrency)};
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<int64_t> delays = {0, 500};
  int risk = 1;
  for (int64_t size : sizes) {
    for (int64_t delay : delays) {
      Candidate c = state.incumbent;
      c.id = fmt::format("batch{}-delay{}", size, delay);
      c.stage = "batching";
      c.max_batch_size = size;
      c.dynamic_batching = true;
      c.max_queue_delay_us = delay;
      c.risk = state.incumbent.risk + risk++;
      candidates.push_back(c);
      // With a delay, a preferred size equal to the requests outstanding sends a full batch at once instead of
      // waiting out the delay (Triton's preferred_batch_size).
      if (delay > 0 && concurrency > 1 && concurrency < size && !state.settings->quick) {
        c.id += fmt::format("-preferred{}", concurrency);
        c.preferred_batch_sizes = {concurrency};
        c.risk = state.incumbent.risk + risk++;
        candidates.push_back(c);
      }
    }
  }
  SearchStage(state, "batching", 3, std::move(candidates));
}

void RunGraphStage(TuneState& state) {
  std::vector<Candidate> candidates = {state.incumbent};
  using runtime::GraphOptimization;
  int risk = 1;
  for (GraphOptimization level : {GraphOptimization::kExtended, GraphOptimization::kBasic}) {
    if (level == state.incumbent.session.graph_optimization) continue;
    Candidate c = state.incumbent;
    c.id = fmt::format("graph-{}", runtime::GraphOptimizationName(level));
    c.stage = "graph";
    c.session.graph_optimization = level;
    c.graph_level_set = true;
    c.risk = state.incumbent.risk + risk++;
    candidates.push_back(c);
  }
  SearchStage(state, "graph", 4, std::move(candidates));
  // Cold start per level: the served model's time to ready, from the trials' own start-ups.
  nlohmann::json cold = nlohmann::json::array();
  for (const Entry& e : state.stages.back().entries) {
    if (e.measured) cold.push_back({{"candidate", e.candidate.id}, {"ready_s", e.trial.ready_s}});
  }
  state.stages.back().extra["cold_start"] = cold;
}

void RunThreadsStage(TuneState& state, bool again) {
  int cores = Cores(state);
  std::vector<Candidate> candidates = {state.incumbent};
  const std::string name = again ? "retune" : "threads";
  // Again: the model changed since the threads stage (the precision stage's winner), so ids say which model.
  const std::string prefix = again ? state.incumbent.id + "+" : "";
  int risk = 1;
  auto add = [&](int instances, int intra, bool spin) {
    Candidate c = state.incumbent;
    c.id = fmt::format("{}instances{}-intra{}{}", prefix, instances, intra, spin ? "" : "-nospin");
    c.stage = name;
    c.instances = instances;
    c.session.intra_op_threads = intra;
    c.threads_set = true;
    c.session.allow_spinning = spin;
    c.spinning_set = !spin;
    c.risk = state.incumbent.risk + risk++;
    for (const Candidate& other : candidates) {
      if (other.instances == c.instances && other.threads_set && other.session.intra_op_threads == intra &&
          other.session.allow_spinning == spin)
        return;
    }
    candidates.push_back(c);
  };
  for (int instances = 1; instances <= std::min(cores, 4); instances *= 2) {
    add(instances, std::max(1, cores / instances), true);
    if (!state.settings->quick) add(instances, std::max(1, cores / instances), false);
  }
  if (cores > 1) add(1, 1, true);
  const std::string model = state.incumbent.id;
  SearchStage(state, name, again ? 7 : 5, std::move(candidates));
  if (again && state.quality_by_candidate.contains(model)) {  // the same model file: the same quality
    for (const Entry& e : state.stages.back().entries) state.quality_by_candidate[e.candidate.id] = state.quality_by_candidate[model];
  }
}

}  // namespace hone::tune
