// What the user asks a benchmark to do (requested settings), and the list of measurement points it normalizes to.
// Kept apart from results, as MLPerf LoadGen keeps test settings apart from results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/arrival_schedule.h"
#include "bench/load.h"
#include "bench/stability.h"
#include "runtime/input_options.h"
#include "runtime/session_options.h"

namespace hone::bench {


struct RunLength {
  // Warm-up ends when both are met; its requests are not measured.
  int64_t warmup_requests = 20;
  double warmup_s = 1.0;
  // Length of one measurement window: the shortest. Windows grow for a slow target so that each holds enough
  // requests (window_sizing.h), up to max_window_s; warm-up waits for its requests at most that long too.
  double window_s = 1.0;
  double max_window_s = 60.0;
  // When to stop measuring: the last `windows` windows agree within `tolerance` on throughput and p99.
  StabilitySettings stability;

  // Each field in its range. MeasurePoint checks this much.
  Status Validate() const;
  // Validate, and that these settings can ever produce a report worth the name, so that a run that cannot is
  // refused before anything loads (InvalidArgument naming the flags and their numbers):
  //   --max-window-ms must not be below --window-ms (windows only grow, from the one to the other);
  //   the reported windows, --stability-windows of them at least --window-ms long, must be able to cover
  //   --min-duration-s for a target fast enough to fill a window (else it is never reported stable).
  Status CheckCanFinish() const;
};

// Each runtime knob takes a list; the sweep runs every combination.
struct RuntimeSweep {
  std::vector<int> intra_op_threads = {0};
  std::vector<int> inter_op_threads = {0};
  std::vector<runtime::ExecutionMode> execution_modes = {runtime::ExecutionMode::kSequential};
  std::vector<runtime::GraphOptimization> graph_optimizations = {runtime::GraphOptimization::kAll};
  std::vector<bool> spinning = {true};
  std::vector<bool> arena = {true};
  std::string save_optimized_path;  // write the optimized graph of the first configuration here

  // Every combination, in the order the lists give.
  std::vector<runtime::SessionOptions> Expand() const;
};

struct BenchSettings {
  std::string model_path;
  runtime::InputOptions inputs;

  LoadMode mode = LoadMode::kClosedLoop;
  std::vector<int64_t> concurrency = {1};  // closed loop; offline: batches outstanding
  std::vector<double> rates;               // open loop, requests/s
  ArrivalProcess arrival = ArrivalProcess::kPoisson;
  uint64_t arrival_seed = 1;               // its own seed, apart from the inputs' seed
  // Samples per request. Empty: the inputs' default (a full-rank --shape's first dimension, or 1).
  std::vector<int64_t> batch_sizes;
  // Open loop: threads that send requests. 0: as many as the largest concurrency the target could use (64).
  int open_loop_workers = 0;

  RunLength run;
  RuntimeSweep runtime;
  double cost_per_hour = 0;  // the machine's price per hour, for cost per 1,000 predictions; 0: not reported

  Status Validate() const;
};

// One measurement: a session configuration, a load and a batch size.
struct BenchPoint {
  size_t session_index = 0;  // into the expanded runtime sweep
  Load load;
  int64_t batch = 1;
  // "concurrency 4, batch 1" / "rate 500/s, batch 1" / "offline batch 64"
  std::string Label() const;
};

// `base` once per load mode among `loads` (closed loop first, then open loop, then offline), each listing the
// concurrencies or rates of its loads in their order: what runs `loads` as bench sweeps.
std::vector<BenchSettings> SettingsForLoads(const BenchSettings& base, const std::vector<Load>& loads);

// The points of a sweep, sessions outermost (a session loads once), then batch sizes, then loads.
std::vector<BenchPoint> ExpandPoints(const BenchSettings& settings, size_t session_count,
                                     const std::vector<int64_t>& batch_sizes);

}  // namespace hone::bench
