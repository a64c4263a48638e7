#include "tune/search.h"

#include <algorithm>
#include <cmath>

#include "tune/search_steps.h"

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

}  // namespace

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kChosen: return "chosen";
    case Outcome::kRankedOut: return "ranked out";
    case Outcome::kNotConfirmed: return "not confirmed";
    case Outcome::kRejected: return "rejected";
    case Outcome::kNotMeasured: return "not measured";
  }
  return "?";
}

std::string_view SignalName(Signal signal) {
  switch (signal) {
    case Signal::kNone: return "none";
    case Signal::kSlo: return "SLO";
    case Signal::kThroughput: return "throughput";
    case Signal::kLatency: return "latency";
    case Signal::kCpuPerSample: return "CPU per sample";
  }
  return "?";
}

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
    if (load.open_loop()) {
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

double CpuRatio(const TrialResult& a, const TrialResult& b) {
  double log_sum = 0;
  int n = 0;
  for (const LoadFigures& fa : a.loads) {
    const LoadFigures* fb = FindLoad(b, fa.load);
    if (!fb || !(fa.cpu_us_per_sample > 0) || !(fb->cpu_us_per_sample > 0)) return 0;
    log_sum += std::log(fb->cpu_us_per_sample / fa.cpu_us_per_sample);
    ++n;
  }
  return n ? std::exp(log_sum / n) : 0;
}

double ScoreSpread(const TrialResult& trial) {
  double spread = 0;
  for (const LoadFigures& f : trial.loads) {
    // Closed loop scores throughput; open loop, where throughput is the rate, scores the latency percentile.
    spread = std::max(spread, f.load.open_loop() ? f.p99_spread : f.throughput_spread);
  }
  return spread;
}

SearchResult Search(const std::vector<Candidate>& candidates, const Objective& objective, const MeasureFn& measure,
                    const SearchSettings& settings) {
  SearchResult result;
  for (const Candidate& c : candidates) {
    Entry e;
    e.candidate = c;
    result.entries.push_back(std::move(e));
  }
  if (result.entries.empty()) return result;
  const SearchContext context{objective, measure, settings};
  RankEntries(context, result);
  const Rounds rounds = ConfirmFinalists(context, result);
  JudgeFinalists(context, rounds, result);
  LabelEntries(rounds, settings, result);
  return result;
}

}  // namespace hone::tune
