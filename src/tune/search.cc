#include "tune/search.h"

#include "harness/speed_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hone::tune {
namespace {

const LoadFigures* FindLoad(const TrialResult& trial, const Load& load) {
  for (const LoadFigures& f : trial.loads) {
    if (f.load == load) return &f;
  }
  return nullptr;
}

double SloPercentileAt(const Objective& objective, const Load& load) {
  for (const Slo& slo : objective.slos) {
    if (slo.load == load) return slo.percentile;
  }
  return 99;
}

// a better than b: feasibility first, then the score ratio.
bool Better(const Objective& objective, const Entry& a, const Entry& b) {
  if (a.measured != b.measured) return a.measured;
  if (a.score.feasible != b.score.feasible) return a.score.feasible;
  if (!a.score.feasible && !objective.slos.empty() && a.score.worst_margin != b.score.worst_margin) {
    return a.score.worst_margin > b.score.worst_margin;  // closer to meeting the SLOs
  }
  return ScoreRatio(objective, a.trial, b.trial) > 1;
}

// "+-12% over 3 paired rounds" or "+-25%, from earlier measurements: too few rounds to measure it here".
std::string NoiseText(const SearchResult& r) {
  return r.noise_from_rounds ? fmt::format("+-{:.0f}%", 100 * r.noise)
                             : fmt::format("+-{:.0f}%, taken from earlier measurements: too few rounds to measure it "
                                           "here",
                                           100 * r.noise);
}

struct PairedRatio {
  double median = 0, spread = 0;
  int rounds = 0;
};

}  // namespace

Score ScoreTrial(const Objective& objective, const TrialResult& trial) {
  Score score;
  uint64_t errors = 0;
  bool measured = !trial.loads.empty();
  for (const LoadFigures& f : trial.loads) {
    errors += f.errors;
    measured = measured && f.throughput_sps > 0;
  }
  score.feasible = measured && errors == 0;
  score.worst_margin = objective.slos.empty() ? 0 : 1e9;
  for (const Slo& slo : objective.slos) {
    const LoadFigures* f = FindLoad(trial, slo.load);
    SloResult r = f ? JudgeSlo(slo, *f) : SloResult{&slo, false, 0, -1, "not measured"};
    score.feasible = score.feasible && r.met;
    // A miss for errors or a rate not kept up counts as below every met SLO, whatever the percentile says.
    score.worst_margin = std::min(score.worst_margin, r.met ? r.margin : std::min(r.margin, -1e-6));
    score.slo_results.push_back(r);
  }
  return score;
}

double ScoreRatio(const Objective& objective, const TrialResult& a, const TrialResult& b) {
  double log_sum = 0;
  int n = 0;
  for (const Load& load : objective.loads) {
    const LoadFigures* fa = FindLoad(a, load);
    const LoadFigures* fb = FindLoad(b, load);
    if (!fa || !fb) continue;
    double ratio = 0;
    if (load.open_loop) {
      double q = SloPercentileAt(objective, load);
      double pa = double(fa->Percentile(q)), pb = double(fb->Percentile(q));
      ratio = pa > 0 ? pb / pa : 0;
    } else {
      ratio = fb->throughput_sps > 0 ? fa->throughput_sps / fb->throughput_sps : 0;
    }
    if (ratio <= 0) return 0;
    log_sum += std::log(ratio);
    ++n;
  }
  return n ? std::exp(log_sum / n) : 0;
}

double ScoreSpread(const TrialResult& trial) {
  double spread = 0;
  for (const LoadFigures& f : trial.loads) {
    // Closed loop scores throughput; open loop, where throughput is the rate, scores the latency percentile.
    spread = std::max(spread, f.load.open_loop ? f.p99_spread : f.throughput_spread);
  }
  return spread;
}

SearchResult Search(const std::vector<Candidate>& candidates, const Objective& objective, const MeasureFn& measure,
                    const SearchSettings& settings) {
  SearchResult result;
  auto may_continue = [&] { return !settings.may_continue || settings.may_continue(); };
  auto say = [&](const std::string& text) {
    if (settings.progress) settings.progress(text);
  };
  for (const Candidate& c : candidates) result.entries.push_back(Entry{c, {}, {}, false, "ranked out", "", 0});
  if (result.entries.empty()) return result;

  // 1. Rank: one short measurement each.
  for (size_t i = 0; i < result.entries.size(); ++i) {
    Entry& e = result.entries[i];
    if (!may_continue()) {
      result.interrupted = true;
      e.reason = "not measured: the budget ran out or the run was stopped";
      continue;
    }
    say(fmt::format("rank {} of {}: {}", i + 1, result.entries.size(), e.candidate.id));
    auto trial = measure(e.candidate, settings.rank_window_s);
    if (!trial.ok()) {
      e.outcome = "rejected";
      e.reason = trial.status().message();
      continue;
    }
    e.trial = std::move(*trial);
    e.measured = !e.trial.loads.empty();
    e.score = ScoreTrial(objective, e.trial);
    if (e.trial.interrupted) result.interrupted = true;
  }
  std::vector<size_t> order(result.entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return Better(objective, result.entries[a], result.entries[b]); });

  // 2. Confirm the finalists: the incumbent and the best others, in alternating order.
  std::vector<size_t> finalists = {0};
  for (size_t i : order) {
    if (static_cast<int>(finalists.size()) > settings.finalists) break;
    if (i != 0 && result.entries[i].measured && result.entries[i].outcome != "rejected") finalists.push_back(i);
  }
  // rounds[i][k]: finalist i's measurement in round k (no loads when it failed). Every finalist is measured once a
  // round, next to the others, so a drift of the machine weighs on all of them alike and cancels in their ratios.
  std::vector<std::vector<TrialResult>> rounds(result.entries.size());
  int rounds_run = 0;
  for (int round = 0; round < settings.confirm_repeats && finalists.size() > 1; ++round) {
    bool complete = true;
    for (size_t k = 0; k < finalists.size(); ++k) {
      size_t i = finalists[round % 2 == 0 ? k : finalists.size() - 1 - k];
      if (!may_continue()) {
        result.interrupted = true;
        complete = false;
        break;
      }
      say(fmt::format("confirm round {} of {}: {}", round + 1, settings.confirm_repeats, result.entries[i].candidate.id));
      auto trial = measure(result.entries[i].candidate, settings.confirm_window_s);
      rounds[i].push_back(trial.ok() ? std::move(*trial) : TrialResult{});
    }
    if (!complete) break;
    ++rounds_run;
  }
  std::vector<std::vector<TrialResult>> repeats(result.entries.size());
  for (size_t i : finalists) {
    for (const TrialResult& t : rounds[i]) {
      if (!t.loads.empty()) repeats[i].push_back(t);
    }
    Entry& e = result.entries[i];
    if (!repeats[i].empty()) {
      e.trial = MergeRepeats(repeats[i]);
      e.score = ScoreTrial(objective, e.trial);
    }
  }
  // a's score over b's, round by round: the median and the spread of those ratios.
  auto paired = [&](size_t a, size_t b) {
    std::vector<double> ratios;
    for (int k = 0; k < rounds_run; ++k) {
      double r = ScoreRatio(objective, rounds[a][static_cast<size_t>(k)], rounds[b][static_cast<size_t>(k)]);
      if (r > 0) ratios.push_back(r);
    }
    PairedRatio p;
    if (ratios.empty()) return p;
    p.median = harness::Median(ratios);
    p.spread = (*std::max_element(ratios.begin(), ratios.end()) - *std::min_element(ratios.begin(), ratios.end())) /
               p.median;
    p.rounds = static_cast<int>(ratios.size());
    return p;
  };

  // 3. Judge with the noise band.
  const Entry& incumbent = result.entries[0];
  size_t best = 0;
  for (size_t i : finalists) {
    if (Better(objective, result.entries[i], result.entries[best])) best = i;
  }
  for (Entry& e : result.entries) {
    if (e.measured && incumbent.measured) e.ratio_vs_incumbent = ScoreRatio(objective, e.trial, incumbent.trial);
  }
  // The noise: how much the paired ratio of the best against the incumbent moves from round to round. With fewer
  // than two rounds this run cannot tell, so the noise seen before it (settings.prior_noise) stands in, or how much
  // each of the two moved against itself; never below the floor.
  result.noise = settings.min_noise;
  PairedRatio best_pair = best != 0 ? paired(best, 0) : PairedRatio{};
  if (best_pair.rounds >= 2) {
    result.entries[best].ratio_vs_incumbent = best_pair.median;
    result.noise = std::max(result.noise, best_pair.spread);
  } else {
    result.noise_from_rounds = false;
    result.noise = std::max(result.noise, settings.prior_noise);
    for (size_t i : {size_t{0}, best}) result.noise = std::max(result.noise, ScoreSpread(result.entries[i].trial));
  }
  for (size_t i : finalists) {
    PairedRatio p = paired(i, 0);
    if (i != 0 && p.rounds >= 2) result.entries[i].ratio_vs_incumbent = p.median;
  }
  size_t winner = best;
  const Entry& b = result.entries[best];
  bool confirmed = finalists.size() > 1 && !repeats[best].empty() && !repeats[0].empty();
  if (best != 0) {
    bool feasibility_gain = b.score.feasible && !incumbent.score.feasible && incumbent.measured;
    if (!confirmed) {
      winner = 0;
      result.reason = "the budget left no time to confirm the best candidate, so the incumbent stays";
    } else if (!feasibility_gain && b.ratio_vs_incumbent <= 1 + result.noise) {
      winner = 0;
      result.reason = fmt::format("the best, {}, is {:.2f}x the incumbent: within the noise ({})", b.candidate.id,
                                  b.ratio_vs_incumbent, NoiseText(result));
    }
  }
  if (winner != 0) {
    // A less risky finalist within the noise of the best wins.
    for (size_t i : finalists) {
      const Entry& e = result.entries[i];
      if (i == 0 || i == best || repeats[i].empty() || e.candidate.risk >= result.entries[winner].candidate.risk ||
          e.score.feasible != b.score.feasible) {
        continue;  // an unconfirmed runner-up never wins on its short ranking trial
      }
      PairedRatio p = paired(best, i);
      double ratio = p.rounds >= 2 ? p.median : ScoreRatio(objective, b.trial, e.trial);
      // It must itself measure better than the incumbent: within the noise of the best is not enough on its own.
      if (ratio > 0 && ratio <= 1 + result.noise && e.ratio_vs_incumbent > 1) winner = i;
    }
    const Entry& w = result.entries[winner];
    const std::string noise = NoiseText(result);
    if (w.score.feasible && !incumbent.score.feasible) {
      result.reason = fmt::format("{} meets every SLO, which the incumbent does not ({:.2f}x its score)",
                                  w.candidate.id, w.ratio_vs_incumbent);
    } else if (winner == best) {
      result.reason = fmt::format("{}: {:.2f}x the incumbent, beyond the noise ({})", w.candidate.id,
                                  w.ratio_vs_incumbent, noise);
    } else {
      result.reason = fmt::format(
          "{} ({:.2f}x the incumbent): the best, {}, is {:.2f}x the incumbent, beyond the noise ({}), but not told "
          "apart from {}, which is less risky",
          w.candidate.id, w.ratio_vs_incumbent, b.candidate.id, b.ratio_vs_incumbent, noise, w.candidate.id);
    }
  } else if (result.reason.empty()) {
    const bool others_measured = std::any_of(result.entries.begin() + 1, result.entries.end(),
                                             [](const Entry& e) { return e.measured; });
    result.reason = others_measured ? "the incumbent measured best"
                                    : "no other candidate could be measured (see each one's reason)";
  }
  result.winner = static_cast<int>(winner);
  for (size_t i = 0; i < result.entries.size(); ++i) {
    Entry& e = result.entries[i];
    bool finalist = std::find(finalists.begin(), finalists.end(), i) != finalists.end();
    if (i == winner) {
      e.outcome = "chosen";
      e.reason = result.reason;
    } else if (e.outcome == "rejected") {
      // keeps the measurement's error
    } else if (!e.measured) {
      if (e.reason.empty()) e.reason = "not measured";
    } else if (finalist) {
      e.outcome = "not confirmed";
      e.reason = fmt::format("{:.2f}x the incumbent over {} confirming round{} (noise {}){}", e.ratio_vs_incumbent,
                             repeats[i].size(), repeats[i].size() == 1 ? "" : "s", NoiseText(result),
                             e.score.feasible ? "" : "; misses an SLO");
    } else {
      e.outcome = "ranked out";
      e.reason = fmt::format("{:.2f}x the incumbent in the ranking run{}", e.ratio_vs_incumbent,
                             e.score.feasible ? "" : "; misses an SLO");
    }
  }
  return result;
}

}  // namespace hone::tune
