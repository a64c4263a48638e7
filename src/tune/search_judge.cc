// Step 3 of the search: which finalist wins, on which signal, and why (search.h). The tests run in the order of
// what matters: meeting the SLOs, then the score told apart from the incumbent's beyond the noise of this run,
// then, when the score cannot tell them apart, the CPU each sample needs; otherwise the incumbent, the least
// risky, stays.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "tune/search_steps.h"

namespace hone::tune {
namespace {

// A finalist that won, on what, and the sentence that says so.
struct Win {
  size_t winner = 0;
  Signal signal = Signal::kNone;
  std::string reason;
};

Signal ScoreSignal(const Objective& objective) {
  const bool open = std::all_of(objective.loads.begin(), objective.loads.end(),
                                [](const Load& l) { return l.open_loop(); });
  return open && !objective.loads.empty() ? Signal::kLatency : Signal::kThroughput;
}

// Among `pool` (entry indices), the one whose key is largest.
template <typename Key>
size_t Largest(const std::vector<size_t>& pool, Key key) {
  return *std::max_element(pool.begin(), pool.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
}

// 1. Meets every SLO where the incumbent does not.
std::optional<Win> WinOnSlo(const std::vector<Entry>& entries, const std::vector<size_t>& challengers) {
  if (entries[0].score.feasible) return std::nullopt;
  std::vector<size_t> pool;
  for (size_t i : challengers) {
    if (entries[i].score.feasible) pool.push_back(i);
  }
  if (pool.empty()) return std::nullopt;
  const size_t w = Largest(pool, [&](size_t i) { return entries[i].score_pair.ratio; });
  return Win{w, Signal::kSlo,
             fmt::format("{} meets every SLO, which the incumbent does not ({} its score)", entries[w].candidate.id,
                         PairText(entries[w].score_pair))};
}

// 2. The score beyond this run's noise, by a gain worth a change; among those the best cannot be told apart from,
// the least risky.
std::optional<Win> WinOnScore(const SearchContext& context, const Rounds& rounds, const std::vector<Entry>& entries,
                              const std::vector<size_t>& challengers) {
  std::vector<size_t> pool;
  for (size_t i : challengers) {
    const PairedRatio& p = entries[i].score_pair;
    if (p.above_one() && p.ratio >= 1 + context.settings.same_within &&
        entries[i].score.feasible >= entries[0].score.feasible) {
      pool.push_back(i);
    }
  }
  if (pool.empty()) return std::nullopt;
  const size_t best = Largest(pool, [&](size_t i) { return entries[i].score_pair.ratio; });
  size_t winner = best;
  for (size_t i : pool) {
    if (entries[i].candidate.risk >= entries[winner].candidate.risk) continue;
    if (!PairedScore(context.objective, rounds, best, i).above_one()) winner = i;
  }
  const Signal signal = ScoreSignal(context.objective);
  std::string reason = fmt::format("{}: {} {} the incumbent's, beyond the noise", entries[winner].candidate.id,
                                   SignalName(signal), PairText(entries[winner].score_pair));
  if (winner != best) {
    reason += fmt::format("; the best, {} ({}), is not told apart from it and is riskier", entries[best].candidate.id,
                          PairText(entries[best].score_pair));
  }
  return Win{winner, signal, reason};
}

// 3. Not told apart on the score: not measured slower, and less CPU per sample beyond its own noise and by a gain
// worth a change.
std::optional<Win> WinOnCpu(const SearchContext& context, const std::vector<Entry>& entries,
                            const std::vector<size_t>& challengers) {
  std::vector<size_t> pool;
  for (size_t i : challengers) {
    const Entry& e = entries[i];
    if (!e.score_pair.below_one() && e.score.feasible >= entries[0].score.feasible && e.cpu_pair.above_one() &&
        e.cpu_pair.ratio >= 1 + context.settings.same_within) {
      pool.push_back(i);
    }
  }
  if (pool.empty()) return std::nullopt;
  const size_t w = Largest(pool, [&](size_t i) { return entries[i].cpu_pair.ratio; });
  return Win{w, Signal::kCpuPerSample,
             fmt::format("{}: {} not told apart from the incumbent's ({}), and it needs less CPU per sample: the "
                         "incumbent's over its {}",
                         entries[w].candidate.id, SignalName(ScoreSignal(context.objective)),
                         PairText(entries[w].score_pair), PairText(entries[w].cpu_pair))};
}

// 4. Why the incumbent stays, told of the best-scoring finalist.
std::string WhyTheIncumbentStays(const SearchContext& context, const std::vector<Entry>& entries,
                                 const std::vector<size_t>& challengers) {
  const Entry& b = entries[Largest(challengers, [&](size_t i) { return entries[i].score_pair.ratio; })];
  if (b.score_pair.below_one()) {
    return fmt::format("every finalist measured worse than the incumbent; the best, {}, {}", b.candidate.id,
                       PairText(b.score_pair));
  }
  if (b.score_pair.above_one()) {
    return fmt::format("the best, {}, is {} the incumbent: a gain too small to be worth a change (less than "
                       "{:.0f}%), and no cheaper in CPU per sample ({})",
                       b.candidate.id, PairText(b.score_pair), 100 * context.settings.same_within,
                       PairText(b.cpu_pair));
  }
  return fmt::format("the best, {}, is {} the incumbent: not told apart, and no cheaper in CPU per sample ({}), so "
                     "the less risky incumbent stays",
                     b.candidate.id, PairText(b.score_pair), PairText(b.cpu_pair));
}

}  // namespace

void JudgeFinalists(const SearchContext& context, const Rounds& rounds, SearchResult& result) {
  std::vector<Entry>& entries = result.entries;
  const Entry& incumbent = entries[0];
  for (Entry& e : entries) {
    e.ratio_vs_incumbent = e.score_pair.measured() ? e.score_pair.ratio
                           : e.measured && incumbent.measured ? ScoreRatio(context.objective, e.trial, incumbent.trial)
                                                              : 0;
  }
  entries[0].ratio_vs_incumbent = incumbent.measured ? 1 : 0;
  result.winner = 0;
  result.decided_by = Signal::kNone;

  std::vector<size_t> challengers;
  for (size_t i : rounds.finalists) {
    if (i != 0 && !rounds.measured(i).empty()) challengers.push_back(i);
  }
  const bool others_measured =
      std::any_of(entries.begin() + 1, entries.end(), [](const Entry& e) { return e.measured; });
  if (!incumbent.measured || !others_measured) {
    result.reason = !incumbent.measured ? "the incumbent could not be measured"
                                        : "no other candidate could be measured (see each one's reason)";
    return;
  }
  if (challengers.empty() || result.rounds < 2) {
    result.reason = result.rounds == 0 ? "the budget left no time to confirm the best candidates, so the incumbent stays"
                                       : "the budget left time for one confirming round only, which cannot measure "
                                         "the noise, so the incumbent stays";
    return;
  }
  // The noise of this run: the widest interval among the finalists' paired ratios.
  for (size_t i : challengers) result.noise = std::max(result.noise, entries[i].score_pair.noise());
  std::optional<Win> win = WinOnSlo(entries, challengers);
  if (!win) win = WinOnScore(context, rounds, entries, challengers);
  if (!win) win = WinOnCpu(context, entries, challengers);
  if (!win) {
    result.reason = WhyTheIncumbentStays(context, entries, challengers);
    return;
  }
  result.winner = static_cast<int>(win->winner);
  result.decided_by = win->signal;
  result.reason = win->reason;
  if (win->signal == Signal::kCpuPerSample) {
    result.noise = std::max(result.noise, entries[win->winner].cpu_pair.noise());
  }
}

}  // namespace hone::tune
