// Progress of long work that goes in steps (the points of a sweep, calibration batches, verification rounds, the
// rows of an evaluation): "point 3 of 12: concurrency 4, batch 1 (12.0 s elapsed, about 36 s left)".
//
// On a terminal it is one line that rewrites itself ("\r...\x1b[K") and is cleared by Finish(), so the report that
// follows starts on a clean line; piped (a log file, CI) it writes a line for the first and the last finished
// step and for those between at most one a second, and nothing else, so the log stays readable. Library code takes a `Progress*` that may be null and stays quiet then: whether to show
// progress is the command line's decision (--quiet).
//
// Thread-safe: every method may be called from any thread (a load generator reports from its measuring thread).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace hone {

class Progress {
 public:
  using Sink = std::function<void(std::string_view text)>;
  using Clock = std::function<double()>;  // seconds, monotonic

  // Writes to standard error, as a terminal line when standard error is a terminal. `noun` names one step
  // ("point", "batch", "round", "row").
  static std::unique_ptr<Progress> ForStderr(std::string noun);
  // Sends what ForStderr's progress would write to `sink` instead, as piped lines (one per finished step, at most
  // one a second between the first and the last), for embedders with a display of their own (the Python module's
  // callback or logger); an empty function restores standard error. Affects progress created afterwards.
  static void SetStderrSink(Sink sink);

  // The seam for tests: `sink` receives exactly what would be written; `terminal` chooses the updating line.
  Progress(std::string noun, bool terminal, Sink sink, Clock clock);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  Progress(Progress&&) = delete;
  ~Progress();

  // Begins (or begins again) a run of `total` steps (0: not known; no time left is then shown). Restarts the clock.
  void Start(size_t total);
  // Changes the number of steps once it is better known, keeping the clock and the steps done.
  void SetTotal(size_t total);
  // Terminal only: shows what the current step is doing ("window 2: 812.4 req/s") beside its place in the run.
  // Piped, it writes nothing: only finished steps make lines there.
  void Update(std::string_view detail);
  // Step `done` (1-based count of steps finished so far) is finished; `label` says which it was.
  void StepDone(size_t done, std::string_view label);
  // Clears the terminal line (nothing piped). Idempotent; the destructor calls it.
  void Finish();

  // The text of one line, without "\r" or a newline (exposed for tests):
  // "point 3 of 12: LABEL (12.0 s elapsed, about 36 s left)". `done` steps finished of `total`, `step` shown.
  static std::string Line(std::string_view noun, size_t step, size_t total, std::string_view label,
                          double elapsed_s, size_t done);

 private:
  void WriteTerminal(const std::string& line);  // requires mu_

  const std::string noun_;
  const bool terminal_;
  const Sink sink_;
  const Clock clock_;
  std::mutex mu_;
  size_t total_ = 0;          // guarded by mu_
  size_t done_ = 0;           // guarded by mu_
  double start_s_ = 0;        // guarded by mu_
  bool line_shown_ = false;   // guarded by mu_: a terminal line is on screen
  double last_piped_s_ = -1e9;  // guarded by mu_: when the last piped line was written
};

}  // namespace hone
