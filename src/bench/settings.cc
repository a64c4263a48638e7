#include "bench/settings.h"

#include <cmath>
#include <fmt/format.h>

namespace hone::bench {

Status RunLength::Validate() const {
  if (warmup_requests < 0) return Status::InvalidArgument("--warmup-requests: expected >= 0");
  constexpr double kDay = 86400;  // bounds keep every duration well inside the clock's range
  if (!(warmup_s >= 0 && warmup_s <= kDay)) return Status::InvalidArgument("--warmup-s: expected 0..86400");
  if (!(window_s > 0 && window_s <= kDay)) return Status::InvalidArgument("--window-ms: expected > 0, at most a day");
  if (!(max_window_s > 0 && max_window_s <= kDay))
    return Status::InvalidArgument("--max-window-ms: expected > 0, at most a day");
  return stability.Validate();
}

Status RunLength::CheckCanFinish() const {
  HONE_RETURN_IF_ERROR(Validate());
  if (max_window_s < window_s)
    return Status::InvalidArgument(fmt::format(
        "--max-window-ms {:g} is below --window-ms {:g}: windows start at --window-ms and grow up to "
        "--max-window-ms for a slow target; raise --max-window-ms to {:g} or more, or lower --window-ms",
        max_window_s * 1e3, window_s * 1e3, window_s * 1e3));
  const double covered_s = stability.windows * window_s;
  // A small allowance for the floating-point product (3 x 0.1 s must meet 0.3 s).
  if (covered_s < stability.min_duration_s * (1 - 1e-9)) {
    const double window_ms_needed = std::ceil(stability.min_duration_s * 1e3 / stability.windows);
    const int windows_needed = static_cast<int>(std::ceil(stability.min_duration_s / window_s - 1e-9));
    return Status::InvalidArgument(fmt::format(
        "--stability-windows {} x --window-ms {:g} cover {:g} s, less than --min-duration-s {:g}: a target fast "
        "enough to fill its windows could never be reported stable, so the run would end unstable after "
        "--max-windows {}; raise --window-ms to {:g} or more, or --stability-windows to {} (and --max-windows with "
        "it), or lower --min-duration-s to {:g}",
        stability.windows, window_s * 1e3, covered_s, stability.min_duration_s, stability.max_windows,
        window_ms_needed, windows_needed, covered_s));
  }
  return Status::Ok();
}

std::vector<runtime::SessionOptions> RuntimeSweep::Expand() const {
  std::vector<runtime::SessionOptions> out;
  for (int intra : intra_op_threads)
    for (int inter : inter_op_threads)
      for (auto mode : execution_modes)
        for (auto opt : graph_optimizations)
          for (bool spin : spinning)
            for (bool ar : arena) {
              runtime::SessionOptions o;
              o.intra_op_threads = intra;
              o.inter_op_threads = inter;
              o.execution_mode = mode;
              o.graph_optimization = opt;
              o.allow_spinning = spin;
              o.cpu_arena = ar;
              if (out.empty()) o.optimized_model_path = save_optimized_path;
              out.push_back(o);
            }
  return out;
}

Status BenchSettings::Validate() const {
  if (model_path.empty()) return Status::InvalidArgument("no model given");
  switch (mode) {
    case LoadMode::kClosedLoop:
    case LoadMode::kOffline:
      if (concurrency.empty()) return Status::InvalidArgument("--concurrency: expected at least one value");
      for (int64_t c : concurrency)
        if (c < 1 || c > 4096)
          return Status::InvalidArgument("--concurrency " + std::to_string(c) + ": expected 1..4096");
      break;
    case LoadMode::kOpenLoop:
      if (rates.empty()) return Status::InvalidArgument("--rate: expected at least one value");
      for (double r : rates)
        if (!(r > 0) || !std::isfinite(r))
          return Status::InvalidArgument("--rate " + fmt::format("{}", r) + ": expected a rate > 0 requests/s");
      break;
  }
  for (int64_t b : batch_sizes)
    if (b < 1) return Status::InvalidArgument("--batch " + std::to_string(b) + ": expected >= 1");
  if (open_loop_workers < 0 || open_loop_workers > 4096)
    return Status::InvalidArgument("--workers: expected 0..4096 (0: 64)");
  if (!(cost_per_hour >= 0) || !std::isfinite(cost_per_hour))
    return Status::InvalidArgument("--cost-per-hour: expected >= 0");
  for (const auto* list : {&runtime.intra_op_threads, &runtime.inter_op_threads})
    for (int t : *list)
      if (t < 0) return Status::InvalidArgument("thread count " + std::to_string(t) + ": expected >= 0 (0: default)");
  for (auto o : runtime.Expand()) HONE_RETURN_IF_ERROR(o.Validate());
  return run.CheckCanFinish();
}

std::string BenchPoint::Label() const {
  switch (load.mode) {
    case LoadMode::kClosedLoop: return fmt::format("concurrency {}, batch {}", load.concurrency, batch);
    case LoadMode::kOpenLoop: return fmt::format("rate {:g}/s, batch {}", load.rate, batch);
    case LoadMode::kOffline:
      return load.concurrency == 1 ? fmt::format("offline batch {}", batch)
                                   : fmt::format("offline batch {}, {} outstanding", batch, load.concurrency);
  }
  return "";
}

std::vector<BenchSettings> SettingsForLoads(const BenchSettings& base, const std::vector<Load>& loads) {
  std::vector<BenchSettings> out;
  for (LoadMode mode : {LoadMode::kClosedLoop, LoadMode::kOpenLoop, LoadMode::kOffline}) {
    BenchSettings s = base;
    s.mode = mode;
    s.concurrency.clear();
    s.rates.clear();
    for (const Load& load : loads) {
      if (load.mode != mode) continue;
      if (mode == LoadMode::kOpenLoop) {
        s.rates.push_back(load.rate);
      } else {
        s.concurrency.push_back(load.concurrency);
      }
    }
    if (!s.concurrency.empty() || !s.rates.empty()) out.push_back(std::move(s));
  }
  return out;
}

std::vector<BenchPoint> ExpandPoints(const BenchSettings& settings, size_t session_count,
                                     const std::vector<int64_t>& batch_sizes) {
  std::vector<BenchPoint> points;
  for (size_t s = 0; s < session_count; ++s)
    for (int64_t batch : batch_sizes) {
      BenchPoint p;
      p.session_index = s;
      p.batch = batch;
      if (settings.mode == LoadMode::kOpenLoop) {
        for (double r : settings.rates) {
          p.load = Load::Open(r);
          points.push_back(p);
        }
      } else {
        for (int64_t c : settings.concurrency) {
          p.load = Load{settings.mode, c, 0};
          points.push_back(p);
        }
      }
    }
  return points;
}

}  // namespace hone::bench
