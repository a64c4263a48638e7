// The search's steps (search.h), one file each: rank, confirm, judge, label. Internal to the tune part.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tune/search.h"

namespace hone::tune {

struct SearchContext {
  const Objective& objective;
  const MeasureFn& measure;
  const SearchSettings& settings;
  bool may_continue() const { return !settings.may_continue || settings.may_continue(); }
  void say(const std::string& text) const {
    if (settings.progress) settings.progress(text);
  }
};

// The confirming rounds: which entries were finalists (the incumbent, 0, first) and what each measured, round by
// round (a measurement that failed has no loads).
struct Rounds {
  std::vector<size_t> finalists;
  // The challengers the ranking run could not order (within rank_tie of the best-ranked one), when two or more:
  // the finalists among them were picked by CPU per sample.
  std::vector<size_t> tied;
  std::vector<std::vector<TrialResult>> by_entry;  // by entry index, then by round
  int run = 0;                                     // complete rounds
  bool is_finalist(size_t i) const;
  bool is_tied(size_t i) const;
  // Entry i's measurements that have figures.
  std::vector<TrialResult> measured(size_t i) const;
};

// a better than b on what was measured so far: measured first, then every SLO met, then closer to meeting them,
// then the score ratio.
bool Better(const Objective& objective, const Entry& a, const Entry& b);
// a against b over the complete rounds: the score's paired ratio, and the CPU per sample's (> 1: a is cheaper).
PairedRatio PairedScore(const Objective& objective, const Rounds& rounds, size_t a, size_t b);
PairedRatio PairedCpu(const Rounds& rounds, size_t a, size_t b);

// 1. One short measurement of every entry; result.entries must hold the candidates, entries[0] the incumbent.
void RankEntries(const SearchContext& context, SearchResult& result);
// 2. The finalists measured in rounds until told apart (search.h); their merged trials and scores filled in.
Rounds ConfirmFinalists(const SearchContext& context, SearchResult& result);
// 3. The winner, the signal that decided, the noise and the reason.
void JudgeFinalists(const SearchContext& context, const Rounds& rounds, SearchResult& result);
// 4. Every entry's outcome and reason.
void LabelEntries(const Rounds& rounds, const SearchSettings& settings, SearchResult& result);

}  // namespace hone::tune
