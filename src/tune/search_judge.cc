// Step 3 of the search: which finalist wins, on which signal, and why (search.h). The order of the tests is the
// order of what matters: meeting the SLOs, then the score told apart from the incumbent's beyond the noise of this
// run, then, when the score cannot tell them apart, the CPU each sample needs; otherwise the incumbent, which is
// the least risky, stays.
#include <fmt/format.h>

#include <algorithm>

#include "tune/search_steps.h"

namespace hone::tune {
namespace {

Signal ScoreSignal(const Objective& objective) {
  const bool open = std::all_of(objective.loads.begin(), objective.loads.end(), [](const Load& l) { return l.open_loop(); });
  return open && !objective.loads.empty() ? Signal::kLatency : Signal::kThroughput;
}

// Among `pool` (entry indices), the one whose key is largest.
template <typename Key>
size_t Largest(const std::vector<size_t>& pool, Key key) {
  return *std::max_element(pool.begin(), pool.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
}

}  // namespace

void JudgeFinalists(const SearchContext& context, const Rounds& rounds, SearchResult& result) {
  std::vector<Entry>& entries = result.entries;
  const Entry& incumbent = entries[0];
  for (Entry& e : entries) {
    if (e.measured && incumbent.measured && !e.score_pair.measured()) {
      e.ratio_vs_incumbent = ScoreRatio(context.objective, e.trial, incumbent.trial);
    } else if (e.score_pair.measured()) {
      e.ratio_vs_incumbent = e.score_pair.ratio;
    }
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

  // 1. Meets every SLO where the incumbent does not.
  std::vector<size_t> pool;
  if (!incumbent.score.feasible) {
    for (size_t i : challengers) {
      if (entries[i].score.feasible) pool.push_back(i);
    }
  }
  if (!pool.empty()) {
    result.winner = static_cast<int>(Largest(pool, [&](size_t i) { return entries[i].score_pair.ratio; }));
    result.decided_by = Signal::kSlo;
    const Entry& w = entries[static_cast<size_t>(result.winner)];
    result.reason = fmt::format("{} meets every SLO, which the incumbent does not ({} its score)", w.candidate.id,
                                PairText(w.score_pair));
    return;
  }
  // 2. The score, beyond this run's noise; among those not told apart from the best, the least risky.
  const Signal score_signal = ScoreSignal(context.objective);
  for (size_t i : challengers) {
    const PairedRatio& p = entries[i].score_pair;
    if (p.above_one() && p.ratio >= 1 + context.settings.same_within &&
        entries[i].score.feasible >= incumbent.score.feasible) {
      pool.push_back(i);
    }
  }
  if (!pool.empty()) {
    const size_t best = Largest(pool, [&](size_t i) { return entries[i].score_pair.ratio; });
    size_t winner = best;
    for (size_t i : pool) {
      if (entries[i].candidate.risk >= entries[winner].candidate.risk) continue;
      if (!PairedScore(context.objective, rounds, best, i).above_one()) winner = i;
    }
    result.winner = static_cast<int>(winner);
    result.decided_by = score_signal;
    const Entry& w = entries[winner];
    result.reason = fmt::format("{}: {} {} the incumbent's, beyond the noise", w.candidate.id, SignalName(score_signal),
                                PairText(w.score_pair));
    if (winner != best) {
      result.reason += fmt::format("; the best, {} ({}), is not told apart from it and is riskier",
                                   entries[best].candidate.id, PairText(entries[best].score_pair));
    }
    return;
  }
  // 3. Not told apart on the score: less CPU per sample, beyond its own noise and by more than a hair.
  for (size_t i : challengers) {
    const Entry& e = entries[i];
    if (!e.score_pair.below_one() && e.score.feasible >= incumbent.score.feasible && e.cpu_pair.above_one() &&
        e.cpu_pair.ratio >= 1 + context.settings.same_within) {
      pool.push_back(i);
    }
  }
  if (!pool.empty()) {
    const size_t winner = Largest(pool, [&](size_t i) { return entries[i].cpu_pair.ratio; });
    result.winner = static_cast<int>(winner);
    result.decided_by = Signal::kCpuPerSample;
    const Entry& w = entries[winner];
    result.noise = std::max(result.noise, w.cpu_pair.noise());
    result.reason = fmt::format(
        "{}: {} not told apart from the incumbent's ({}), and it needs less CPU per sample: the incumbent's over its "
        "{}",
        w.candidate.id, SignalName(score_signal), PairText(w.score_pair), PairText(w.cpu_pair));
    return;
  }
  // 4. The incumbent stays: say why of the best-scoring finalist.
  const size_t best = Largest(challengers, [&](size_t i) { return entries[i].score_pair.ratio; });
  const Entry& b = entries[best];
  const double least = context.settings.same_within;
  result.reason = b.score_pair.below_one()
                      ? fmt::format("every finalist measured worse than the incumbent; the best, {}, {}",
                                    b.candidate.id, PairText(b.score_pair))
                  : b.score_pair.above_one()
                      ? fmt::format("the best, {}, is {} the incumbent: a gain too small to be worth a change (less "
                                    "than {:.0f}%), and no cheaper in CPU per sample ({})",
                                    b.candidate.id, PairText(b.score_pair), 100 * least, PairText(b.cpu_pair))
                      : fmt::format("the best, {}, is {} the incumbent: not told apart, and no cheaper in CPU per "
                                    "sample ({}), so the less risky incumbent stays",
                                    b.candidate.id, PairText(b.score_pair), PairText(b.cpu_pair));
}

}  // namespace hone::tune
