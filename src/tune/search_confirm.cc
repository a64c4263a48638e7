// Step 2 of the search: the incumbent and the best-ranked candidates measured again in rounds, each once a round,
// until every finalist's paired ratio to the incumbent is told apart from 1 (or shown to lie within a hair of it).
// The order turns round every round (A B C, C B A, A B C, ...), so that a drift of the machine during a round
// weighs on the first and the last alike over two rounds.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "tune/search_steps.h"

namespace hone::tune {
namespace {

std::vector<size_t> PickFinalists(const Objective& objective, const SearchResult& result, int others) {
  std::vector<size_t> order(result.entries.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return Better(objective, result.entries[a], result.entries[b]); });
  std::vector<size_t> finalists = {0};
  for (size_t i : order) {
    if (static_cast<int>(finalists.size()) > others) break;
    if (i != 0 && result.entries[i].measured) finalists.push_back(i);
  }
  return finalists;
}

// Whether more rounds could change what is known of challenger i against the incumbent.
bool Decided(const SearchContext& context, const Rounds& rounds, size_t i) {
  const PairedRatio p = PairedScore(context.objective, rounds, i, 0);
  return p.above_one() || p.below_one() || p.within(context.settings.same_within);
}

}  // namespace

bool Rounds::is_finalist(size_t i) const { return std::find(finalists.begin(), finalists.end(), i) != finalists.end(); }

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
  rounds.finalists = PickFinalists(context.objective, result, s.finalists);
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
