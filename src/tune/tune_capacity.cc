// The capacity search (capacity.h) run on the served final repository with what the budget has left after the final
// check (the search's stages are not shortened for it: a run whose budget is spent says capacity was not measured,
// and a larger --budget measures it). The final's curve gives the first loads for free (a closed-loop SLO's search
// starts from what the curve already measured); each probe is one short served measurement at one load.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "bench/remote_runner.h"
#include "tune/tune_final.h"

namespace hone::tune {

int CapacityProbes(const TuneState& state) { return state.given.settings->quick ? 4 : 8; }

std::vector<SloCapacity> MeasureCapacity(TuneState& state, harness::ServedModel& served, const TrialResult* curve) {
  std::vector<SloCapacity> out;
  const bool quick = state.given.settings->quick;
  for (const Slo& slo : state.given.objective.slos) {
    if (state.stopped()) break;
    // The curve's points, each usable once: a load measured again (the repeats of the load found) is measured anew.
    std::vector<LoadFigures> known;
    if (curve && !slo.load.open_loop()) known = curve->loads;
    CapacityProbeFn probe = [&](const Load& load) -> Result<LoadFigures> {
      for (auto it = known.begin(); it != known.end(); ++it) {
        if (it->load == load) {
          LoadFigures f = *it;
          known.erase(it);
          return f;
        }
      }
      state.Say(fmt::format("capacity of {}: {}", slo.text, load.Label()));
      bench::BenchSettings s;
      s.inputs = state.given.plan.inputs;
      s.cost_per_hour = state.given.plan.cost_per_hour;
      s.run.warmup_s = 0.2;
      s.run.window_s = quick ? 0.1 : 0.25;
      s.run.stability.tolerance = 0.2;
      s.run.stability.max_windows = 3;
      s.run.stability.min_duration_s = 3 * s.run.window_s;
      s.run.max_window_s = std::max(2.0, 8 * s.run.window_s);
      bench::RunnerHooks hooks;
      hooks.stop = state.given.settings->stop;
      auto report = bench::RunRemoteBench(bench::SettingsForLoads(s, {load}).front(), served.Remote(), hooks);
      if (!report.ok()) return report.status();
      if (report->points.empty()) return Status::Internal("no point measured");
      return FiguresFromPoint(report->points[0], load, state.given.plan.cost_per_hour, state.given.plan.extra_percentile);
    };
    CapacitySearch search;
    search.repeats = quick ? 2 : 3;
    search.max_probes = CapacityProbes(state) + static_cast<int>(known.size());
    // An equal share of what is left for each SLO still to measure.
    const size_t remaining = state.given.objective.slos.size() - out.size();
    const auto end = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int64_t>(1000 * std::max(0.0, state.left_s()) /
                                                                    static_cast<double>(remaining)));
    search.may_continue = [&state, end] {
      return !state.stopped() && state.left_s() > 0 && std::chrono::steady_clock::now() < end;
    };
    out.push_back(FindCapacity(slo, search, probe));
  }
  return out;
}

}  // namespace hone::tune
