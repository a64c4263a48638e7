#include "harness/speed_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/units.h"
#include "bench/bench_runner.h"

namespace hone::harness {
namespace {

Result<bench::BenchReport> Measure(const SpeedComparisonSettings& c, const std::string& model) {
  bench::BenchSettings s;
  s.model_path = model;
  s.inputs = c.inputs;
  s.mode = bench::LoadMode::kClosedLoop;
  s.concurrency = {1};
  if (c.batch > 0) s.batch_sizes = {c.batch};
  s.run.warmup_requests = 10;
  s.run.warmup_s = std::min(0.2, c.window_s);
  s.run.window_s = c.window_s;
  // Two windows each, whatever they show: the spread that matters is across rounds, not within one.
  s.run.stability.windows = 2;
  s.run.stability.max_windows = 2;
  s.run.stability.tolerance = 1.0;
  s.run.stability.min_duration_s = 0;
  s.run.stability.min_requests = 1;
  s.runtime.intra_op_threads = {c.session.intra_op_threads};
  s.runtime.inter_op_threads = {c.session.inter_op_threads};
  s.runtime.graph_optimizations = {c.session.graph_optimization};
  HONE_ASSIGN_OR_RETURN(bench::BenchReport report, bench::RunBench(s));
  if (report.points.empty())
    return Status::Internal(fmt::format("measuring '{}': the bench reported no point", model));
  return report;
}


}  // namespace

Status SpeedComparisonSettings::Validate() const {
  if (rounds < 1) return Status::InvalidArgument(fmt::format("--bench-rounds {}: expected >= 1", rounds));
  if (!(window_s > 0)) return Status::InvalidArgument("--bench-window-ms: expected > 0");
  if (batch < 0) return Status::InvalidArgument("--bench-batch: expected >= 1");
  return Status::Ok();
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void JudgeSpeed(const SpeedComparisonSettings& c, SpeedComparison& out) {
  std::vector<double> ratios, p50_ratios, p99_ratios, source_sps, variant_sps, source_p99, variant_p99, source_p50,
      variant_p50;
  for (const SpeedRound& r : out.rounds) {
    ratios.push_back(r.throughput_ratio());
    p50_ratios.push_back(r.source_p50_ns ? double(r.variant_p50_ns) / double(r.source_p50_ns) : 0);
    p99_ratios.push_back(r.p99_ratio());
    source_sps.push_back(r.source_sps);
    variant_sps.push_back(r.variant_sps);
    source_p50.push_back(double(r.source_p50_ns));
    variant_p50.push_back(double(r.variant_p50_ns));
    source_p99.push_back(double(r.source_p99_ns));
    variant_p99.push_back(double(r.variant_p99_ns));
  }
  out.throughput_ratio = Median(ratios);
  out.p50_ratio = Median(p50_ratios);
  out.p99_ratio = Median(p99_ratios);
  if (!ratios.empty()) {
    out.throughput_ratio_min = *std::min_element(ratios.begin(), ratios.end());
    out.throughput_ratio_max = *std::max_element(ratios.begin(), ratios.end());
    out.p99_ratio_min = *std::min_element(p99_ratios.begin(), p99_ratios.end());
    out.p99_ratio_max = *std::max_element(p99_ratios.begin(), p99_ratios.end());
  }
  out.source_sps = Median(source_sps);
  out.variant_sps = Median(variant_sps);
  out.source_p50_ns = uint64_t(Median(source_p50));
  out.variant_p50_ns = uint64_t(Median(variant_p50));
  out.source_p99_ns = uint64_t(Median(source_p99));
  out.variant_p99_ns = uint64_t(Median(variant_p99));
  out.source_throughput_spread = Spread(source_sps);
  out.source_p99_spread = Spread(source_p99);

  const double band = std::max(c.min_noise, out.source_throughput_spread);
  const double p99_band = std::max(c.min_p99_noise, out.source_p99_spread);
  const std::string figures =
      out.rounds.size() < 2
          ? fmt::format("throughput {:.2f}x, p99 {:.2f}x in 1 round (the source's own spread is not known)",
                        out.throughput_ratio, out.p99_ratio)
          : fmt::format("throughput {:.2f}x (median of {} rounds, {:.2f}x to {:.2f}x), p99 {:.2f}x ({:.2f}x to "
                        "{:.2f}x); the source against itself: throughput spread {:.1f}%, p99 spread {:.1f}%",
                        out.throughput_ratio, out.rounds.size(), out.throughput_ratio_min, out.throughput_ratio_max,
                        out.p99_ratio, out.p99_ratio_min, out.p99_ratio_max, 100 * out.source_throughput_spread,
                        100 * out.source_p99_spread);
  if (out.errors > 0) {
    out.verdict = SpeedVerdict::kSlower;
    out.verdict_detail = fmt::format("{} request(s) failed while measuring speed (first: {})", out.errors,
                                     out.first_error);
  } else if (out.source_sps <= 0 || out.variant_sps <= 0) {
    out.verdict = SpeedVerdict::kSlower;
    out.verdict_detail = "no request completed in a measurement; speed unknown: " + figures;
  } else if (out.throughput_ratio < 1 - band) {
    out.verdict = SpeedVerdict::kSlower;
    out.verdict_detail = fmt::format("slower than the source: throughput below {:.2f}x; {}", 1 - band, figures);
  } else if (out.p99_ratio > 1 + p99_band) {
    out.verdict = SpeedVerdict::kSlower;
    out.verdict_detail = fmt::format("slower than the source at the tail: p99 above {:.2f}x; {}", 1 + p99_band, figures);
  } else if (out.throughput_ratio > 1 + band) {
    out.verdict = SpeedVerdict::kFaster;
    out.verdict_detail = "faster than the source: " + figures;
  } else {
    out.verdict = SpeedVerdict::kNotDistinguishable;
    out.verdict_detail = fmt::format("as fast as the source within the noise (±{:.0f}%): {}", 100 * band, figures);
  }
}

Result<SpeedComparison> CompareSpeed(const SpeedComparisonSettings& c) {
  HONE_RETURN_IF_ERROR(c.Validate());
  SpeedComparison out;
  if (c.progress) c.progress->Start(static_cast<size_t>(c.rounds));
  for (int i = 0; i < c.rounds; ++i) {
    SpeedRound round;
    round.variant_first = i % 2 == 1;
    bench::BenchReport source, variant;
    if (round.variant_first) {
      HONE_ASSIGN_OR_RETURN(variant, Measure(c, c.variant_path));
      HONE_ASSIGN_OR_RETURN(source, Measure(c, c.source_path));
    } else {
      HONE_ASSIGN_OR_RETURN(source, Measure(c, c.source_path));
      HONE_ASSIGN_OR_RETURN(variant, Measure(c, c.variant_path));
    }
    const bench::PointResult &s = source.points[0], &v = variant.points[0];
    for (const bench::PointResult* p : {&s, &v})
      if (p->errors_anywhere > 0) {
        if (out.errors == 0) out.first_error = p->first_error_anywhere;
        out.errors += p->errors_anywhere;
      }
    round.source_sps = s.throughput_sps();
    round.variant_sps = v.throughput_sps();
    round.source_p50_ns = s.latency.Percentile(50);
    round.variant_p50_ns = v.latency.Percentile(50);
    round.source_p99_ns = s.latency.Percentile(99);
    round.variant_p99_ns = v.latency.Percentile(99);
    out.rounds.push_back(round);
    if (c.progress)
      c.progress->StepDone(static_cast<size_t>(i) + 1,
                           fmt::format("variant/source throughput {:.2f}x, p99 {:.2f}x", round.throughput_ratio(),
                                       round.p99_ratio()));
    out.source_report = std::move(source);
    out.variant_report = std::move(variant);
  }
  JudgeSpeed(c, out);
  return out;
}

double Spread(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double median = Median(values);
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return median > 0 ? (*hi - *lo) / median : 0;
}

std::string SpeedComparisonRows(const SpeedComparison& sp, std::string_view source, std::string_view variant) {
  std::string t;
  t += fmt::format("  {:<24} {:>14} {:>14} {:>10}\n", "p50 latency", FormatDuration(double(sp.source_p50_ns)),
                   FormatDuration(double(sp.variant_p50_ns)), fmt::format("{:.2f}x", sp.p50_ratio));
  t += fmt::format("  {:<24} {:>14} {:>14} {:>10}\n", "p99 latency", FormatDuration(double(sp.source_p99_ns)),
                   FormatDuration(double(sp.variant_p99_ns)), fmt::format("{:.2f}x", sp.p99_ratio));
  t += fmt::format("  {:<24} {:>14.1f} {:>14.1f} {:>10}\n", "throughput (samples/s)", sp.source_sps, sp.variant_sps,
                   fmt::format("{:.2f}x", sp.throughput_ratio));
  std::string rounds;
  for (const auto& r : sp.rounds) rounds += fmt::format("{}{:.2f}x", rounds.empty() ? "" : " ", r.throughput_ratio());
  const auto& points = sp.source_report.points;
  // One round measures the source once: there is no spread to judge noise by, and the report must not print 0%.
  const std::string spread =
      sp.rounds.size() < 2 ? fmt::format("one round, so the {}'s own spread is not known (--bench-rounds)", source)
                           : fmt::format("the {}'s own spread {:.1f}%", source, 100 * sp.source_throughput_spread);
  t += fmt::format("  bench: in process, closed loop, {}, {}; {} alternating {} and {} "
                   "(throughput ratio per round: {}; {})\n",
                   points.empty() ? "" : points[0].point.Label(),
                   sp.source_report.sessions.empty() ? "" : sp.source_report.sessions[0].options.ToString(),
                   sp.rounds.size() == 1 ? std::string("1 round") : fmt::format("medians of {} rounds", sp.rounds.size()),
                   source, variant, rounds, spread);
  return t;
}

}  // namespace hone::harness
