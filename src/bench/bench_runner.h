// The whole in-process benchmark: loads the model once per runtime configuration, prepares its inputs, and
// measures every point of the sweep. Returns the report; printing is report_*.h's job.
#pragma once

#include <functional>

#include "base/progress.h"
#include "base/result.h"
#include "bench/load_generator.h"
#include "bench/results.h"
#include "bench/settings.h"
#include "runtime/input_pool.h"

namespace hone::bench {

// What a caller sees and controls of a running benchmark. Everything may be left empty: the runner is quiet then.
struct RunnerHooks {
  ProgressFn window_done;                                 // after each measurement window
  std::function<void(const std::string&)> status;         // "loading model (intra=2 ...)" and the like
  // Points of the sweep: "point 3 of 12: concurrency 4, batch 1", with each window's figures as they come.
  Progress* progress = nullptr;
  // Set (by InterruptScope, interrupt.h) to stop the sweep: the point being measured is dropped, no further point
  // runs, and the report of the points that finished comes back with interrupted and points_not_run filled in.
  const std::atomic<bool>* stop = nullptr;
};

// InvalidArgument/NotFound for bad settings, a model that does not load, or inputs that do not fit the model:
// the message names the thing at fault. Request errors during measurement are counted in the report instead.
// Settings that could never finish (RunLength::CheckCanFinish) are refused before the model loads.
Result<BenchReport> RunBench(const BenchSettings& settings, const RunnerHooks& hooks = {});

// Builds the requests for `batch`: up to 64 distinct batches cut from the pool in order.
Result<RequestSet> MakeRequests(const runtime::InputPool& pool, int64_t batch);
// Bytes of input data in `requests`: hone's own memory, for the report's peak-RSS split.
uint64_t RequestBytes(const RequestSet& requests);

// The batch sizes a run measures: `asked` (--batch), or the pool's default when empty. InvalidArgument naming
// --batch when the model cannot take one: a fixed first dimension of another size, or no shared batch dimension
// at all (each request is then one sample of whole tensors).
Result<std::vector<int64_t>> ResolveBatches(const runtime::InputPool& pool, const std::vector<int64_t>& asked);
// The report's input fields (source, mode, pool bytes) from the pool.
void DescribeInputs(const runtime::InputPool& pool, BenchReport& report);

}  // namespace hone::bench
