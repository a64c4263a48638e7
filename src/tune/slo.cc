#include "tune/slo.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/units.h"

namespace hone::tune {
namespace {

// Parses a non-negative decimal number at the start of `text`, advancing it.
std::optional<double> TakeNumber(std::string_view& text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value) || value < 0) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return value;
}

Status SloError(std::string_view text, std::string_view what) {
  return Status::InvalidArgument(fmt::format(
      "--slo '{}': {} (expected PERCENTILE<=BOUND@LOAD, e.g. 'p99<=5ms@concurrency=8' or 'p95<=20ms@rate=2000')",
      text, what));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

Result<Slo> ParseSlo(std::string_view text) {
  Slo slo;
  slo.text = std::string(Trim(text));
  std::string_view rest = slo.text;
  if (rest.empty() || (rest[0] != 'p' && rest[0] != 'P')) return SloError(text, "it must start with a percentile such as p99");
  rest.remove_prefix(1);
  auto percentile = TakeNumber(rest);
  if (!percentile || *percentile <= 0 || *percentile > 100) return SloError(text, "the percentile must be in (0, 100]");
  slo.percentile = *percentile;
  rest = Trim(rest);
  if (rest.starts_with("<=")) {
    rest.remove_prefix(2);
  } else if (rest.starts_with("<")) {
    slo.strict = true;
    rest.remove_prefix(1);
  } else {
    return SloError(text, "the percentile must be followed by <= or <");
  }
  rest = Trim(rest);
  auto bound = TakeNumber(rest);
  if (!bound || *bound <= 0) return SloError(text, "the bound must be a positive number with a unit");
  double scale = 0;
  if (rest.starts_with("us")) {
    scale = 1e3, rest.remove_prefix(2);
  } else if (rest.starts_with("ms")) {
    scale = 1e6, rest.remove_prefix(2);
  } else if (rest.starts_with("s")) {
    scale = 1e9, rest.remove_prefix(1);
  } else {
    return SloError(text, "the bound needs a unit (us, ms or s)");
  }
  slo.bound_ns = *bound * scale;
  rest = Trim(rest);
  if (!rest.starts_with("@")) return SloError(text, "the bound must be followed by @concurrency=N or @rate=R");
  rest.remove_prefix(1);
  rest = Trim(rest);
  if (rest.starts_with("concurrency=")) {
    rest.remove_prefix(12);
    auto n = TakeNumber(rest);
    if (!n || *n < 1 || *n != std::floor(*n) || *n > 4096 || !Trim(rest).empty())
      return SloError(text, "concurrency must be a whole number from 1 to 4096");
    slo.load.concurrency = static_cast<int64_t>(*n);
  } else if (rest.starts_with("rate=")) {
    rest.remove_prefix(5);
    auto r = TakeNumber(rest);
    if (rest.starts_with("/s")) rest.remove_prefix(2);
    if (!r || *r <= 0 || !Trim(rest).empty()) return SloError(text, "rate must be a positive number of requests/s");
    slo.load = Load::Open(*r);
  } else {
    return SloError(text, "the load must be concurrency=N or rate=R");
  }
  return slo;
}

uint64_t LoadFigures::Percentile(double q) const {
  if (q == 50) return p50_ns;
  if (q == 95) return p95_ns;
  if (q == 99) return p99_ns;
  return percentile_ns;
}

LoadFigures FiguresFromPoint(const bench::PointResult& point, const Load& load, double cost_per_hour,
                             double extra_percentile) {
  LoadFigures f;
  f.load = load;
  f.throughput_sps = point.throughput_sps();
  f.achieved_rate = point.achieved_rate();
  f.p50_ns = point.latency.Percentile(50);
  f.p95_ns = point.latency.Percentile(95);
  f.p99_ns = point.latency.Percentile(99);
  if (extra_percentile > 0) f.percentile_ns = point.latency.Percentile(extra_percentile);
  f.requests = point.requests;
  const double samples = static_cast<double>(point.requests) * static_cast<double>(std::max<int64_t>(point.point.batch, 1));
  if (samples > 0 && point.cpu_time.count() > 0) f.cpu_us_per_sample = double(point.cpu_time.count()) / 1e3 / samples;
  f.errors = point.errors_anywhere;
  f.first_error = point.first_error_anywhere;
  f.stable = point.stable();
  f.cost_per_1000 = point.CostPer1000(cost_per_hour);
  return f;
}

SloResult JudgeSlo(const Slo& slo, const LoadFigures& figures) {
  SloResult r;
  r.slo = &slo;
  r.measured_ns = static_cast<double>(figures.Percentile(slo.percentile));
  r.margin = (slo.bound_ns - r.measured_ns) / slo.bound_ns;
  bool within = slo.strict ? r.measured_ns < slo.bound_ns : r.measured_ns <= slo.bound_ns;
  bool kept_up = !slo.load.open_loop() || figures.achieved_rate >= 0.95 * slo.load.rate;
  bool measured = figures.throughput_sps > 0;
  r.met = measured && within && kept_up && figures.errors == 0;
  std::string figure = fmt::format("p{:g} {} at {} (bound {})", slo.percentile, FormatDuration(r.measured_ns),
                                   slo.load.Label(), FormatDuration(slo.bound_ns));
  if (!measured) {
    r.detail = fmt::format("nothing completed at {}", slo.load.Label());
  } else if (figures.errors > 0) {
    r.detail = fmt::format("{}: {} request errors ({})", figure, figures.errors, figures.first_error);
  } else if (!kept_up) {
    r.detail = fmt::format("{}: missed, only {:.0f} of the {:g} requests/s were sent (the target could not keep up)",
                           figure, figures.achieved_rate, slo.load.rate);
  } else if (r.met) {
    r.detail = fmt::format("{}: met with {:.0f}% to spare", figure, 100 * r.margin);
  } else {
    r.detail = fmt::format("{}: missed by {:.0f}% of the bound", figure, -100 * r.margin);
  }
  return r;
}

nlohmann::json LoadJson(const Load& load) {
  return {{"mode", load.open_loop() ? "open_loop" : "closed_loop"},
          {"concurrency", load.open_loop() ? nlohmann::json() : nlohmann::json(load.concurrency)},
          {"rate", load.open_loop() ? nlohmann::json(load.rate) : nlohmann::json()}};
}

nlohmann::json SloJson(const Slo& slo) {
  return {{"text", slo.text}, {"percentile", slo.percentile}, {"strict", slo.strict},
          {"bound_ms", slo.bound_ns / 1e6}, {"load", LoadJson(slo.load)}};
}

nlohmann::json LoadFiguresJson(const LoadFigures& f) {
  nlohmann::json j = {{"load", f.load.Label()},
                      {"load_spec", LoadJson(f.load)},
                      {"throughput_sps", f.throughput_sps},
                      {"p50_ms", f.p50_ns / 1e6},
                      {"p95_ms", f.p95_ns / 1e6},
                      {"p99_ms", f.p99_ns / 1e6},
                      {"throughput_spread", f.throughput_spread},
                      {"p99_spread", f.p99_spread},
                      {"repeats", f.repeats},
                      {"requests", f.requests},
                      {"cpu_us_per_sample", f.cpu_us_per_sample > 0 ? nlohmann::json(f.cpu_us_per_sample) : nlohmann::json()},
                      {"errors", f.errors},
                      {"stable", f.stable},
                      {"cost_per_1000", f.cost_per_1000 ? nlohmann::json(*f.cost_per_1000) : nlohmann::json()}};
  if (f.load.open_loop()) j["achieved_rate"] = f.achieved_rate;
  if (!f.first_error.empty()) j["first_error"] = f.first_error;
  return j;
}

Result<double> ParseBudgetSeconds(std::string_view text) {
  std::string_view rest = Trim(text);
  if (rest.empty()) return Status::InvalidArgument("--budget is empty (expected a duration such as 15m, 90s or 1h)");
  double total = 0;
  while (!rest.empty()) {
    auto n = TakeNumber(rest);
    if (!n) break;
    double scale = 1;
    if (rest.starts_with("h")) {
      scale = 3600, rest.remove_prefix(1);
    } else if (rest.starts_with("m") && !rest.starts_with("ms")) {
      scale = 60, rest.remove_prefix(1);
    } else if (rest.starts_with("s")) {
      rest.remove_prefix(1);
    } else if (!rest.empty()) {
      break;
    }
    total += *n * scale;
  }
  if (!rest.empty() || total <= 0) {
    return Status::InvalidArgument(
        fmt::format("--budget '{}': expected a positive duration such as 15m, 90s, 1h30m or 300 (seconds)", text));
  }
  return total;
}

}  // namespace hone::tune
