// How a stage picks among its candidates without a brute-force grid and without letting noise decide:
//   1. rank:    every candidate is measured once, briefly, at every load;
//   2. confirm: the best few and the incumbent (the best of the stages before) are measured again in rounds, each
//               once a round, in an order that turns round every round (A B C, C B A, ...), until the paired ratio
//               of every finalist to the incumbent is told apart from 1 or shown to lie within a hair of it, or the
//               rounds or the budget run out (paired_ratio.h: the noise is measured in this run);
//   3. judge:   a finalist wins on the score (throughput in a closed loop, the SLO's percentile in an open one)
//               only when its paired interval lies above 1. When none does, a finalist that is not slower and needs
//               less CPU per sample beyond its own interval wins on that quieter signal; otherwise the less risky
//               one stays. A candidate that meets every SLO always beats one that does not;
//   4. label:   every entry gets its outcome and one sentence saying why, with the signal that decided.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tune/candidate.h"
#include "tune/paired_ratio.h"
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
// How much less CPU a sample a needs than b: the geometric mean over loads of b's CPU per sample over a's. > 1: a
// is cheaper. 0 when either lacks the figure.
double CpuRatio(const TrialResult& a, const TrialResult& b);
// The largest spread, over a trial's loads, of the figure the score uses there: throughput in a closed loop, p99 in
// an open loop ((max - min) / median over its repeats; 0 with one repeat).
double ScoreSpread(const TrialResult& trial);

// What a candidate came to.
enum class Outcome { kChosen, kRankedOut, kNotConfirmed, kRejected, kNotMeasured };
std::string_view OutcomeName(Outcome outcome);  // "chosen", "ranked out", "not confirmed", "rejected", "not measured"

// What told the winner apart from the incumbent.
enum class Signal {
  kNone,          // nothing: the incumbent stays
  kSlo,           // it meets every SLO, which the incumbent does not
  kThroughput,    // its paired throughput ratio lies above 1 (closed loop)
  kLatency,       // its paired latency ratio at the SLO's percentile lies above 1 (open loop)
  kCpuPerSample,  // the score could not tell them apart; it needs less CPU per sample beyond the noise
};
std::string_view SignalName(Signal signal);  // "none", "SLO", "throughput", "latency", "CPU per sample"

struct Entry {
  Candidate candidate;
  TrialResult trial;  // the confirmed (merged) measurement for finalists, else the ranking one
  Score score;
  bool measured = false;
  Outcome outcome = Outcome::kRankedOut;
  std::string reason;
  double ratio_vs_incumbent = 0;  // the score's: the paired ratio for finalists, else the ranking run's
  PairedRatio score_pair;         // finalists: the score against the incumbent, round by round
  PairedRatio cpu_pair;           // finalists: the CPU per sample against the incumbent's (> 1: cheaper)
};

struct SearchResult {
  std::vector<Entry> entries;  // in the order given; entries[0] is the incumbent
  int winner = 0;              // index into entries
  Signal decided_by = Signal::kNone;
  int rounds = 0;              // confirming rounds run
  // The half-width of the 95% interval of the deciding paired ratio ("+-6%"), measured in this run's rounds; 0
  // when no two rounds ran (then nothing was decided on the score).
  double noise = 0;
  std::string reason;          // one sentence: why the winner won
  bool interrupted = false;
};

// One measurement of `candidate` with windows of `window_s`.
using MeasureFn = std::function<Result<TrialResult>(const Candidate& candidate, double window_s)>;

struct SearchSettings {
  double rank_window_s = 0.25;
  double confirm_window_s = 0.5;
  // Confirming rounds: at least min_rounds when the budget allows (fewer than 2 decide nothing), then more until
  // every finalist is told apart or max_rounds; 0 when the budget has no room.
  int min_rounds = 3;
  int max_rounds = 8;
  // Paired ratios whose whole interval lies within 1 +- this are the same for every purpose: the rounds stop. A
  // win on the score or on CPU per sample must also be at least this large (a smaller gain is not worth a change).
  double same_within = 0.03;
  int finalists = 2;        // besides the incumbent
  // One short ranking window cannot order candidates whose scores lie this close to the best-ranked one (the
  // paired rounds measure +-5% to +-30% on a shared 2-core machine): among those, the finalists are the ones that
  // need the least CPU per sample, the signal neighbours on the machine disturb far less.
  double rank_tie = 0.10;
  // Checked before each measurement: false stops the search (budget spent or Ctrl-C); what is left is ranked out.
  std::function<bool()> may_continue;
  std::function<void(const std::string&)> progress;  // "rank 3 of 6: batch32-delay0"
};

// candidates[0] is the incumbent, measured like the others (the same run, the same machine state).
SearchResult Search(const std::vector<Candidate>& candidates, const Objective& objective, const MeasureFn& measure,
                    const SearchSettings& settings);

}  // namespace hone::tune
