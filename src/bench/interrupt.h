// Ctrl-C in the middle of a benchmark: the first SIGINT asks the run to stop, so that the points that finished are
// still reported (text, JSON, CSV) and the report says which did not run; a second SIGINT ends the process at once
// with exit code 130 (128 + SIGINT, what shells expect of a program that Ctrl-C stopped).
//
// The handler only sets a flag (and, the second time, calls _exit): the load generator checks the flag between
// measurement windows and before each point, never from the handler.
#pragma once

#include <atomic>

namespace hone::bench {

// The exit code of a run that was interrupted: 130, as a shell reports a program stopped by SIGINT.
inline constexpr int kExitInterrupted = 130;

// Installs the SIGINT handler while it lives and restores the previous one when destroyed. One at a time per
// process (the flag is process-wide); not for use from several threads at once.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // Set once SIGINT arrived; hand it to RunnerHooks::stop.
  const std::atomic<bool>* flag() const;
  // Whether a second SIGINT ends the process (the command line's default). An embedder whose process must outlive
  // a run (the Python module: the interpreter, a notebook's kernel) turns it off; a second Ctrl-C then only
  // repeats the request to stop.
  static void SetSecondInterruptExits(bool exits);
};

}  // namespace hone::bench
