#include "base/progress.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fmt/format.h>

namespace hone {
namespace {

// "12.0 s", "3 min 5 s", "1 h 2 min": a progress line wants a glance, not precision.
std::string Span(double s) {
  if (!(s >= 0) || !std::isfinite(s)) s = 0;
  if (s < 60) return fmt::format("{:.1f} s", s);
  const auto whole = static_cast<long long>(s);
  if (whole < 3600) return fmt::format("{} min {} s", whole / 60, whole % 60);
  return fmt::format("{} h {} min", whole / 3600, whole % 3600 / 60);
}

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::mutex stderr_sink_mu;
Progress::Sink& StderrSink() {
  static Progress::Sink sink;
  return sink;
}

}  // namespace

void Progress::SetStderrSink(Sink sink) {
  std::lock_guard lock(stderr_sink_mu);
  StderrSink() = std::move(sink);
}

std::unique_ptr<Progress> Progress::ForStderr(std::string noun) {
  {
    std::lock_guard lock(stderr_sink_mu);
    if (StderrSink()) return std::make_unique<Progress>(std::move(noun), false, StderrSink(), SteadySeconds);
  }
  return std::make_unique<Progress>(std::move(noun), isatty(STDERR_FILENO) != 0,
                  [](std::string_view text) {
                    std::fwrite(text.data(), 1, text.size(), stderr);
                    std::fflush(stderr);
                  },
                  SteadySeconds);
}

Progress::Progress(std::string noun, bool terminal, Sink sink, Clock clock)
    : noun_(std::move(noun)), terminal_(terminal), sink_(std::move(sink)), clock_(std::move(clock)) {
  start_s_ = clock_();
}

Progress::~Progress() { Finish(); }

std::string Progress::Line(std::string_view noun, size_t step, size_t total, std::string_view label,
                           double elapsed_s, size_t done) {
  std::string out = total > 0 ? fmt::format("{} {} of {}", noun, step, total) : fmt::format("{} {}", noun, step);
  if (!label.empty()) out += fmt::format(": {}", label);
  out += fmt::format(" ({} elapsed", Span(elapsed_s));
  // The time left assumes the steps to come take as long as the finished ones did on average; before the first
  // finishes there is nothing to go on.
  if (total > 0 && done > 0 && done <= total)
    out += done == total ? ", done" : fmt::format(", about {} left", Span(elapsed_s / done * (total - done)));
  return out + ")";
}

void Progress::Start(size_t total) {
  std::lock_guard lock(mu_);
  total_ = total;
  done_ = 0;
  start_s_ = clock_();
}

void Progress::SetTotal(size_t total) {
  std::lock_guard lock(mu_);
  total_ = total;
}

void Progress::WriteTerminal(const std::string& line) {
  sink_("\r" + line + "\x1b[K");
  line_shown_ = true;
}

void Progress::Update(std::string_view detail) {
  std::lock_guard lock(mu_);
  if (!terminal_) return;
  WriteTerminal(Line(noun_, done_ + 1, total_, detail, clock_() - start_s_, done_));
}

void Progress::StepDone(size_t done, std::string_view label) {
  std::lock_guard lock(mu_);
  done_ = done;
  const double now = clock_();
  const std::string line = Line(noun_, done, total_, label, now - start_s_, done);
  if (terminal_) {
    WriteTerminal(line);
    return;
  }
  // Piped, fast steps (calibration batches) would fill the log: the first and the last step always make a line,
  // the ones between at most one a second.
  const bool last = total_ > 0 && done >= total_;
  if (done > 1 && !last && now - last_piped_s_ < 1.0) return;
  last_piped_s_ = now;
  sink_(line + "\n");
}

void Progress::Finish() {
  std::lock_guard lock(mu_);
  if (terminal_ && line_shown_) sink_("\r\x1b[K");
  line_shown_ = false;
}

}  // namespace hone
