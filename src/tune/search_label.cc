// Step 4 of the search: every entry's outcome and the sentence that says why.
#include <fmt/format.h>

#include "tune/search_steps.h"

namespace hone::tune {

void LabelEntries(const Rounds& rounds, const SearchSettings& settings, SearchResult& result) {
  const size_t winner = static_cast<size_t>(result.winner);
  for (size_t i = 0; i < result.entries.size(); ++i) {
    Entry& e = result.entries[i];
    const char* slo_note = e.score.feasible ? "" : "; misses an SLO";
    if (i == winner) {
      e.outcome = Outcome::kChosen;
      e.reason = result.reason;
    } else if (e.outcome == Outcome::kRejected) {
      // keeps the measurement's error
    } else if (!e.measured) {
      e.outcome = Outcome::kNotMeasured;
      if (e.reason.empty()) e.reason = "not measured";
    } else if (rounds.is_finalist(i) && i != 0 && e.score_pair.measured()) {
      e.outcome = Outcome::kNotConfirmed;
      e.reason = fmt::format("{} the incumbent's score; CPU per sample {}{}", PairText(e.score_pair),
                             PairText(e.cpu_pair), slo_note);
    } else if (i == 0) {
      e.outcome = Outcome::kNotConfirmed;
      e.reason = fmt::format("the incumbent; {} won", result.entries[winner].candidate.id);
    } else {
      e.outcome = Outcome::kRankedOut;
      e.reason = fmt::format("{:.2f}x the incumbent in the ranking run{}", e.ratio_vs_incumbent, slo_note);
      if (rounds.is_tied(i)) {
        e.reason += fmt::format(
            "; within {:.0f}% of the best-ranked, closer than one short window can order, and it needs more CPU "
            "per sample than the finalists",
            100 * settings.rank_tie);
      }
    }
  }
}

}  // namespace hone::tune
