// One measurement of one candidate at every load tune judges (the SLO loads, or the curve's): served by hone serve
// in this process over loopback (served_model.h) or, for the reference figures, in process with no server.
// Short windows rank candidates; the search repeats the few best (search.h) for figures with a spread.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/remote_client.h"
#include "bench/results.h"
#include "runtime/input_options.h"
#include "runtime/model_metadata.h"
#include "tune/candidate.h"
#include "tune/slo.h"

namespace hone::tune {

// The windows of a trial together hold at least this many requests, so that a slow model (milliseconds a sample)
// gets windows long enough for its p99 to rest on more than a handful of them (bench's window sizing lengthens each
// window, up to max_window_s); the figures say how many (LoadFigures::requests).
inline constexpr uint64_t kTrialMinRequests = 300;
inline constexpr int kTrialWindows = 3;

struct TrialPlan {
  std::vector<Load> loads;
  runtime::InputOptions inputs;  // the held-out data (or generated inputs)
  bench::RemoteProtocol protocol = bench::RemoteProtocol::kHttp;
  double window_s = 0.25;        // one measurement window; the stopping rule needs three that agree
  double cost_per_hour = 0;
  double extra_percentile = 0;   // an SLO percentile other than p50/p95/p99
  std::string work_dir;          // each served trial writes its repository under it
  std::string model_name;
  runtime::ModelMetadata metadata;  // the source model's, for the config's warm-up
  const std::atomic<bool>* stop = nullptr;
};

struct TrialResult {
  std::string candidate_id;
  std::vector<LoadFigures> loads;  // in the plan's order
  double wall_s = 0;
  double ready_s = 0;              // served: from start to the model ready (load and warm-up)
  // The first load's point as bench measured it (server and client breakdowns: the profile's served split).
  std::optional<bench::PointResult> first_point;
  bool interrupted = false;
};

// Serves `candidate` from a repository written under plan.work_dir and measures it at every load. Errors: the
// candidate does not load (the server's reason), or nothing answers.
Result<TrialResult> MeasureServed(const Candidate& candidate, const TrialPlan& plan);

// The candidate's model in process (bench's in-process target, its session options), no server: the reference
// that shows what serving costs.
Result<TrialResult> MeasureInProcess(const Candidate& candidate, const TrialPlan& plan);

// Medians over repeats of the same candidate, with the spread (max - min) / median of throughput and p99.
TrialResult MergeRepeats(const std::vector<TrialResult>& repeats);

}  // namespace hone::tune
