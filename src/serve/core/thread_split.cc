#include "serve/core/thread_split.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace hone::serve {

std::map<std::string, ThreadShare> SplitThreads(int cores, const std::vector<ThreadDemand>& demands) {
  cores = std::max(cores, 1);
  int64_t claimed = 0, shared_instances = 0, shared_models = 0;
  for (const ThreadDemand& d : demands) {
    if (d.instances == 0) continue;  // runs no ONNX Runtime session (an ensemble, a processing stage)
    const int64_t instances = std::max(d.instances, 1);
    if (d.explicit_threads) {
      claimed += instances * (*d.explicit_threads > 0 ? *d.explicit_threads : cores);
    } else {
      shared_instances += instances;
      ++shared_models;
    }
  }
  const int64_t pool = std::max<int64_t>(cores - claimed, 0);
  const int64_t even = shared_instances > 0 ? std::max<int64_t>(pool / shared_instances, 1) : 0;
  int64_t left = shared_instances > 0 ? pool - even * shared_instances : 0;

  std::vector<const ThreadDemand*> sorted;
  for (const ThreadDemand& d : demands) sorted.push_back(&d);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->model < b->model; });
  const std::string claimed_note =
      claimed > 0 ? fmt::format(" (of {}, after {} thread(s) that configs set)", cores, claimed) : "";

  std::map<std::string, ThreadShare> out;
  for (const ThreadDemand* d : sorted) {
    ThreadShare& share = out[d->model];
    if (d->instances == 0) {
      share.why = "no ONNX Runtime sessions";
      continue;
    }
    const int64_t instances = std::max(d->instances, 1);
    if (d->explicit_threads) {
      share.threads_per_instance = *d->explicit_threads;
      share.why = *d->explicit_threads > 0 ? "intra_op_thread_count set in its config"
                                           : "intra_op_thread_count 0 in its config: ONNX Runtime's default";
      continue;
    }
    int64_t threads = even;
    if (left >= instances) {
      ++threads;
      left -= instances;
    }
    share.threads_per_instance = static_cast<int>(threads);
    if (pool < shared_instances) {
      share.why = fmt::format("{} core(s){} for {} instance(s) of {} model(s): oversubscribed, 1 each",
                              pool, claimed_note, shared_instances, shared_models);
    } else {
      share.why = fmt::format("{} core(s){} split over {} instance(s) of {} model(s)", pool, claimed_note,
                              shared_instances, shared_models);
    }
  }
  return out;
}

}  // namespace hone::serve
