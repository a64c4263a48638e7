// How a stage picks among its candidates without a brute-force grid and without letting noise decide:
//   1. every candidate is measured once, briefly, at every load (rank);
//   2. the two best and the incumbent (the best of the stages before) are measured again, in alternating order,
//      with longer windows (confirm); their medians and spreads decide;
//   3. the best must beat the incumbent by more than the noise (the larger of a floor and the spreads of the two),
//      and a runner-up within the noise of the best wins when it is less risky.
// A candidate that meets every SLO always beats one that does not.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "tune/candidate.h"
#include "tune/slo.h"
#include "tune/trial.h"

namespace hone::tune {

struct Objective {
  std::vector<Slo> slos;  // empty: maximise throughput at `loads`
  std::vector<Load> loads;  // the loads trials measure: one per distinct SLO load, or the default load
};

struct Score {
  bool feasible = false;  // every SLO met (no SLO: measured without errors)
  double worst_margin = 0;  // the smallest SLO margin (how close to the bound the worst SLO is)
  std::vector<SloResult> slo_results;
};

Score ScoreTrial(const Objective& objective, const TrialResult& trial);
// How much better a is than b: the geometric mean over loads of a's throughput over b's (closed loop) and b's
// latency at the SLO percentile (p99 without one) over a's (open loop, where throughput is the rate). > 1: better.
double ScoreRatio(const Objective& objective, const TrialResult& a, const TrialResult& b);
// The larger spread (throughput or p99) of a trial's loads.
double TrialSpread(const TrialResult& trial);

struct Entry {
  Candidate candidate;
  TrialResult trial;  // the confirmed (merged) measurement for finalists, else the ranking one
  Score score;
  bool measured = false;
  std::string outcome;  // "chosen", "ranked out", "not confirmed", "rejected"
  std::string reason;
  double ratio_vs_incumbent = 0;
};

struct SearchResult {
  std::vector<Entry> entries;  // in the order given; entries[0] is the incumbent
  int winner = 0;              // index into entries
  double noise = 0;            // the band within which two figures are not told apart
  std::string reason;          // one sentence: why the winner won
  bool interrupted = false;
};

using MeasureFn = std::function<Result<TrialResult>(const Candidate& candidate, double window_s)>;

struct SearchSettings {
  double rank_window_s = 0.25;
  double confirm_window_s = 0.5;
  int confirm_repeats = 3;  // measurements per finalist when confirming; 0 when the budget has no room
  double min_noise = 0.05;
  int finalists = 2;        // besides the incumbent
  // Checked before each measurement: false stops the search (budget spent or Ctrl-C); what is left is ranked out.
  std::function<bool()> may_continue;
  std::function<void(const std::string&)> progress;  // "rank 3 of 6: batch32-delay0"
};

// candidates[0] is the incumbent, measured like the others (the same run, the same machine state).
SearchResult Search(const std::vector<Candidate>& candidates, const Objective& objective, const MeasureFn& measure,
                    const SearchSettings& settings);

}  // namespace hone::tune
