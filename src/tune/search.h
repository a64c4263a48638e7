// How a stage picks among its candidates without a brute-force grid and without letting noise decide:
//   1. every candidate is measured once, briefly, at every load (rank);
//   2. the two best and the incumbent (the best of the stages before) are measured again with longer windows, once
//      each per round and in alternating order (confirm), so that each round gives paired ratios to the incumbent;
//   3. the best must beat the incumbent by more than the noise: its median paired ratio above 1 + the larger of a
//      floor and the spread of those ratios across rounds (a drift of the shared machine moves both sides of a pair
//      alike and cancels; what is left is the noise). A runner-up within the noise of the best wins when it is less
//      risky.
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
// The largest spread, over a trial's loads, of the figure the score uses there: throughput in a closed loop, p99 in
// an open loop ((max - min) / median over its repeats; 0 with one repeat).
double ScoreSpread(const TrialResult& trial);

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
  // Whether the noise was measured here (two or more paired rounds of the best against the incumbent); false: it is
  // settings.prior_noise or the candidates' own spreads, whichever is larger.
  bool noise_from_rounds = true;
  std::string reason;          // one sentence: why the winner won
  bool interrupted = false;
};

using MeasureFn = std::function<Result<TrialResult>(const Candidate& candidate, double window_s)>;

struct SearchSettings {
  double rank_window_s = 0.25;
  double confirm_window_s = 0.5;
  int confirm_repeats = 3;  // measurements per finalist when confirming; 0 when the budget has no room
  double min_noise = 0.05;
  // The noise to assume when fewer than two confirming rounds ran (the budget had no room): what earlier stages of
  // the same run measured. Without rounds, a single pair of measurements says nothing of the noise.
  double prior_noise = 0.25;
  int finalists = 2;        // besides the incumbent
  // Checked before each measurement: false stops the search (budget spent or Ctrl-C); what is left is ranked out.
  std::function<bool()> may_continue;
  std::function<void(const std::string&)> progress;  // "rank 3 of 6: batch32-delay0"
};

// candidates[0] is the incumbent, measured like the others (the same run, the same machine state).
SearchResult Search(const std::vector<Candidate>& candidates, const Objective& objective, const MeasureFn& measure,
                    const SearchSettings& settings);

}  // namespace hone::tune
