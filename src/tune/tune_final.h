// The end of `hone tune`: the winner written as OUT/repository, served from there by hone serve, measured over the
// wire at every SLO load (and along a concurrency curve), and its outputs over the wire checked against the
// winner in process and against the source model on the held-out rows. The verdict rests on this, not on the
// stages' in-process or ranking figures.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/served_model.h"
#include "tune/capacity.h"
#include "tune/tune_state.h"
#include "tune/wire_check.h"

namespace hone::tune {

struct FinalCheck {
  bool ran = false;
  std::string error;         // the repository could not be written or served
  TrialResult trial;         // at the SLO loads, merged over repeats
  std::vector<SloResult> slo_results;
  bool slos_met = false;
  std::optional<WireCheck> wire;  // the held-out rows over the wire; none without data or when it failed
  std::string outputs_detail;     // what the wire check found, or why it did not run
  std::string repository;
  std::string config_text;
  double ready_s = 0;
  // The winner against the baseline, both served, measured in alternating rounds at the SLO loads: the ratio the
  // summary and the verdict give (the stages' figures were each measured against the stage's incumbent only).
  // Not measured when the baseline is the winner.
  PairedRatio vs_baseline, cpu_vs_baseline;
  // What one replica of the final repository holds within each SLO (capacity.h), and the replicas
  // --expected-load needs.
  std::vector<SloCapacity> capacity;
  std::optional<ReplicaPlan> replicas;

  // The wire's outputs are the winner's, match the source, and pass every gate. False without data: tune cannot
  // vouch for outputs it did not check.
  bool quality_met() const;
};

// Writes the repository, serves it and measures. `curve_loads` are measured once each for the chart.
FinalCheck RunFinalCheck(TuneState& state, const std::string& repository, const std::string& model_name,
                         std::vector<TrialResult>* curves);

// Concurrency points for the latency-throughput curves: 1, 2, 4, ... up to twice the largest SLO concurrency.
std::vector<Load> CurveLoads(const TuneState& state);

// Rounds of the winner against the baseline (FinalCheck::vs_baseline).
int FinalPairedRounds(const TuneState& state);

// The capacity search's own probes for each SLO (tune_capacity.cc), besides the curve's loads and the repeats.
int CapacityProbes(const TuneState& state);
// Each SLO's capacity on the served final repository, starting from the final's curve (its loads are not measured
// again), with what the budget has left.
std::vector<SloCapacity> MeasureCapacity(TuneState& state, harness::ServedModel& served, const TrialResult* curve);

nlohmann::json FinalJson(const FinalCheck& final_check);
// [{gate, value, passed, on}] of the gates on the wire's outputs.
nlohmann::json GatesJson(const FinalCheck& final_check);

}  // namespace hone::tune
