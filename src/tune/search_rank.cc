// Step 1 of the search: one short measurement of every candidate, and the order they rank in.
#include <fmt/format.h>

#include "tune/search_steps.h"

namespace hone::tune {

bool Better(const Objective& objective, const Entry& a, const Entry& b) {
  if (a.measured != b.measured) return a.measured;
  if (a.score.feasible != b.score.feasible) return a.score.feasible;
  if (!a.score.feasible && !objective.slos.empty() && a.score.worst_margin != b.score.worst_margin) {
    return a.score.worst_margin > b.score.worst_margin;  // closer to meeting the SLOs
  }
  return ScoreRatio(objective, a.trial, b.trial) > 1;
}

void RankEntries(const SearchContext& context, SearchResult& result) {
  for (size_t i = 0; i < result.entries.size(); ++i) {
    Entry& e = result.entries[i];
    if (!context.may_continue()) {
      result.interrupted = true;
      e.outcome = Outcome::kNotMeasured;
      e.reason = "not measured: the budget ran out or the run was stopped";
      continue;
    }
    context.say(fmt::format("rank {} of {}: {}", i + 1, result.entries.size(), e.candidate.id));
    auto trial = context.measure(e.candidate, context.settings.rank_window_s);
    if (!trial.ok()) {
      e.outcome = Outcome::kRejected;
      e.reason = trial.status().message();
      continue;
    }
    e.trial = std::move(*trial);
    e.measured = !e.trial.loads.empty();
    e.score = ScoreTrial(context.objective, e.trial);
    if (e.trial.interrupted) result.interrupted = true;
  }
}

}  // namespace hone::tune
