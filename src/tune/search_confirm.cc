// Step 2 of the search: the incumbent and the best-ranked candidates measured again in rounds, each once a round,
// until every finalist's paired ratio to the incumbent is told apart from 1 (or shown to lie within a hair of it).
// The order turns round every round (A B C, C B A, A B C, ...), so that a drift of the machine during a round
// weighs on the first and the last alike over two rounds.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tune/search_steps.h"

namespace hone::tune {
namespace {

// The geometric mean of a trial's CPU per sample over its loads; infinity without the figure (sorts last).
double CpuPerSample(const TrialResult& trial) {
  double log_sum = 0;
  for (const LoadFigures& f : trial.loads) {
    if (!(f.cpu_us_per_sample > 0)) return std::numeric_limits<double>::infinity();
    log_sum += std::log(f.cpu_us_per_sample);
  }
  return trial.loads.empty() ? std::numeric_limits<double>::infinity()
                             : std::exp(log_sum / double(trial.loads.size()));
}

// Entries ranked by Better; the challengers whose ranking score lies within rank_tie of the best-ranked one are
// reordered by CPU per sample (cheapest first, ties keep the ranking's order), the rest follow as ranked.
std::vector<size_t> RankOrder(const Objective& objective, const SearchResult& result, double rank_tie,
                              std::vector<size_t>& tied_out) {
  std::vector<size_t> order;
  for (size_t i = 1; i < result.entries.size(); ++i) {
    if (result.entries[i].measured) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return Better(objective, result.entries[a], result.entries[b]); });
  // Only among candidates that meet every SLO: below that, how close each comes to meeting them orders them.
  if (order.empty() || !result.entries[order[0]].score.feasible) return order;
  const Entry& top = result.entries[order[0]];
  auto tied = [&](size_t i) {
    const Entry& e = result.entries[i];
    return e.score.feasible && ScoreRatio(objective, top.trial, e.trial) <= 1 + rank_tie;
  };
  const auto band_end = std::find_if_not(order.begin(), order.end(), tied);
  if (band_end - order.begin() > 1) tied_out.assign(order.begin(), band_end);
  std::stable_sort(order.begin(), band_end, [&](size_t a, size_t b) {
    return CpuPerSample(result.entries[a].trial) < CpuPerSample(result.entries[b].trial);
  });
  return order;
}

void PickFinalists(const Objective& objective, const SearchResult& result, const SearchSettings& settings,
                   Rounds& rounds) {
  rounds.finalists = {0};
  for (size_t i : RankOrder(objective, result, settings.rank_tie, rounds.tied)) {
    if (static_cast<int>(rounds.finalists.size()) > settings.finalists) break;
    rounds.finalists.push_back(i);
  }
}

// Whether more rounds could change what is known of challenger i against the incumbent.
bool Decided(const SearchContext& context, const Rounds& rounds, size_t i) {
  const PairedRatio p = PairedScore(context.objective, rounds, i, 0);
  return p.above_one() || p.below_one() || p.within(context.settings.same_within);
}

}  // namespace

bool Rounds::is_finalist(size_t i) const { return std::find(finalists.begin(), finalists.end(), i) != finalists.end(); }
bool Rounds::is_tied(size_t i) const { return std::find(tied.begin(), tied.end(), i) != tied.end(); }

std::vector<TrialResult> Rounds::measured(size_t i) const {
  std::vector<TrialResult> out;
  if (i >= by_entry.size()) return out;
  for (const TrialResult& t : by_entry[i]) {
    if (!t.loads.empty()) out.push_back(t);
  }
  return out;
}

PairedRatio PairedScore(const Objective& objective, const Rounds& rounds, size_t a, size_t b) {
  std::vector<double> ratios;
  for (int k = 0; k < rounds.run; ++k) {
    const size_t r = static_cast<size_t>(k);
    ratios.push_back(ScoreRatio(objective, rounds.by_entry[a][r], rounds.by_entry[b][r]));
  }
  return PairedRatioOf(ratios);
}

PairedRatio PairedCpu(const Rounds& rounds, size_t a, size_t b) {
  std::vector<double> ratios;
  for (int k = 0; k < rounds.run; ++k) {
    const size_t r = static_cast<size_t>(k);
    ratios.push_back(CpuRatio(rounds.by_entry[a][r], rounds.by_entry[b][r]));
  }
  return PairedRatioOf(ratios);
}

Rounds ConfirmFinalists(const SearchContext& context, SearchResult& result) {
  const SearchSettings& s = context.settings;
  Rounds rounds;
  PickFinalists(context.objective, result, s, rounds);
  rounds.by_entry.resize(result.entries.size());
  const size_t n = rounds.finalists.size();
  for (int round = 0; round < s.max_rounds && n > 1; ++round) {
    if (round >= std::max(s.min_rounds, 2)) {
      bool all = true;
      for (size_t k = 1; k < n; ++k) all = all && Decided(context, rounds, rounds.finalists[k]);
      if (all) break;
    }
    bool complete = true;
    for (size_t k = 0; k < n; ++k) {
      const size_t i = rounds.finalists[round % 2 == 0 ? k : n - 1 - k];
      if (!context.may_continue()) {
        result.interrupted = true;
        complete = false;
        break;
      }
      context.say(fmt::format("confirm round {} (at most {}): {}", round + 1, s.max_rounds,
                              result.entries[i].candidate.id));
      auto trial = context.measure(result.entries[i].candidate, s.confirm_window_s);
      rounds.by_entry[i].push_back(trial.ok() ? std::move(*trial) : TrialResult{});
    }
    if (!complete) {
      for (size_t i : rounds.finalists) rounds.by_entry[i].resize(static_cast<size_t>(rounds.run));
      break;
    }
    ++rounds.run;
  }
  result.rounds = rounds.run;
  for (size_t i : rounds.finalists) {
    const std::vector<TrialResult> repeats = rounds.measured(i);
    if (repeats.empty()) continue;
    Entry& e = result.entries[i];
    e.trial = MergeRepeats(repeats);
    e.score = ScoreTrial(context.objective, e.trial);
    if (i != 0) {
      e.score_pair = PairedScore(context.objective, rounds, i, 0);
      e.cpu_pair = PairedCpu(rounds, i, 0);
    }
  }
  return rounds;
}

}  // namespace hone::tune
