// The bookkeeping a runner does around the points of a sweep: the progress line ("point 3 of 12: ..."), the stop
// flag (Ctrl-C, interrupt.h), and what an interrupted run leaves undone. Shared by the in-process and the remote
// runner so that both report progress and interruption alike.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "base/progress.h"
#include "bench/load_generator.h"
#include "bench/results.h"

namespace hone::bench {

class SweepProgress {
 public:
  // `all`: every point of the sweep in the order it runs; `session_labels`: the runtime configuration of each
  // session (named in labels only when there are several). `progress` and `stop` may be null.
  SweepProgress(Progress* progress, const std::atomic<bool>* stop, std::vector<BenchPoint> all,
                std::vector<std::string> session_labels);

  // Whether the sweep must stop before its next point.
  bool stopped() const;
  // A window of point `index` finished: the progress line shows it.
  void Window(size_t index, const WindowProgress& window);
  // Point `index` finished.
  void Done(size_t index);
  // The sweep stopped before point `index` finished: marks `report` interrupted, with that point and every later
  // one as not run.
  void Interrupted(size_t index, BenchReport& report) const;
  // "concurrency 4, batch 1", with the session's runtime options when the sweep has several sessions.
  std::string Label(size_t index) const;

 private:
  Progress* const progress_;
  const std::atomic<bool>* const stop_;
  const std::vector<BenchPoint> all_;
  const std::vector<std::string> session_labels_;
};

}  // namespace hone::bench
