// The serving stages: batching, graph optimization, threads and instances. Each makes candidates from the
// incumbent by changing one thing and lets the search (search.h) decide.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

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

SearchSettings StageSearchSettings(TuneState& state, const std::string& name, int index, size_t candidates) {
  SearchSettings s;
  bool quick = state.settings->quick;
  s.rank_window_s = quick ? 0.1 : 0.25;
  s.confirm_window_s = quick ? 0.15 : 0.5;
  s.confirm_repeats = quick ? 2 : 3;
  // Fit the stage in what is left of the budget: a share of it per remaining stage, confirmation first to go.
  double rank_s = static_cast<double>(candidates) * state.TrialSeconds(s.rank_window_s);
  double confirm_s = 3.0 * s.confirm_repeats * state.TrialSeconds(s.confirm_window_s);
  double final_s = 4 * state.TrialSeconds(0.5);
  double room = state.left_s() - final_s;
  while (s.confirm_repeats > 1 && rank_s + confirm_s > room) {
    --s.confirm_repeats;
    confirm_s = 3.0 * s.confirm_repeats * state.TrialSeconds(s.confirm_window_s);
  }
  TuneState* st = &state;
  s.may_continue = [st, final_s] { return !st->stopped() && st->left_s() > final_s; };
  s.progress = [st, name, index](const std::string& text) {
    st->Say(fmt::format("stage {} of 6 ({}): {} ({:.0f} s elapsed, {:.0f} s left)", index, name, text,
                        st->elapsed_s(), std::max(0.0, st->left_s())));
  };
  return s;
}

void SearchStage(TuneState& state, const std::string& name, int index, std::vector<Candidate> candidates) {
  auto started = std::chrono::steady_clock::now();
  StageRecord record;
  record.name = name;
  record.index = index;
  if (candidates.size() < 2) {
    record.status = "skipped";
    if (record.reason.empty()) record.reason = "no candidate to try";
    state.stages.push_back(record);
    return;
  }
  if (state.stopped()) {
    record.reason = "stopped before the stage started";
    state.stages.push_back(record);
    return;
  }
  SearchSettings settings = StageSearchSettings(state, name, index, candidates.size());
  if (state.left_s() < state.TrialSeconds(settings.rank_window_s) * double(candidates.size()) * 0.5) {
    record.reason = fmt::format("budget: {:.0f} s left, the stage needs about {:.0f} s", std::max(0.0, state.left_s()),
                                state.TrialSeconds(settings.rank_window_s) * double(candidates.size()));
    state.skipped.push_back({name, fmt::format("{} candidates", candidates.size()), record.reason});
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
  if (search.interrupted && state.settings->stop && state.settings->stop->load()) state.interrupted = true;
  const Entry& winner = search.entries[static_cast<size_t>(search.winner)];
  record.entries = search.entries;
  record.winner = winner.candidate.id;
  record.reason = search.reason;
  record.delta_vs_previous = winner.ratio_vs_incumbent;
  record.delta_vs_baseline = winner.measured ? ScoreRatio(state.objective, winner.trial, state.baseline_trial) : 0;
  record.status = search.winner == 0 ? "no gain" : "improved";
  if (!search.entries[0].measured) {
    record.status = "failed";
    record.reason = "the incumbent could not be measured: " + search.entries[0].reason;
  }
  for (const Entry& e : search.entries) {
    if (e.outcome == "rejected") state.rejected.push_back({e.candidate.id, name, e.reason});
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
    StageRecord record{"batching", 3, "skipped", "the model's inputs share no dynamic batch dimension: " +
                                                     state.batch_reason};
    state.stages.push_back(record);
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

void RunThreadsStage(TuneState& state) {
  int cores = Cores(state);
  std::vector<Candidate> candidates = {state.incumbent};
  int risk = 1;
  auto add = [&](int instances, int intra, bool spin) {
    Candidate c = state.incumbent;
    c.id = fmt::format("instances{}-intra{}{}", instances, intra, spin ? "" : "-nospin");
    c.stage = "threads";
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
  SearchStage(state, "threads", 5, std::move(candidates));
}

}  // namespace hone::tune
