#include "tune/capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/units.h"

namespace hone::tune {
namespace {

// The SLO judged at another load: the same percentile and bound.
Slo At(const Slo& slo, const Load& load) {
  Slo s = slo;
  s.load = load;
  return s;
}

CapacityProbe ProbeOf(const Slo& slo, const Load& load, const LoadFigures& f) {
  CapacityProbe p;
  p.load = load;
  p.percentile_ns = f.Percentile(slo.percentile);
  p.throughput_sps = f.throughput_sps;
  p.requests_per_s = load.open_loop() ? f.achieved_rate : f.throughput_sps;  // tune's trials send one sample a request
  p.holds = JudgeSlo(At(slo, load), f).met;
  return p;
}

// Loads in the search's order: a closed loop's concurrency, an open loop's rate.
double Size(const Load& load) { return load.open_loop() ? load.rate : static_cast<double>(load.concurrency); }
Load WithSize(const Load& like, double size) {
  return like.open_loop() ? Load::Open(size) : Load::Closed(std::max<int64_t>(1, std::llround(size)));
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The load found, measured again up to search.repeats runs in all (its probes from the search count; none more once
// a measurement failed): fills the medians and the spread into `out`; true when the median of its runs holds.
bool Confirm(const Slo& slo, const CapacitySearch& search, const CapacityProbeFn& probe, const Load& found,
             bool measure_more, SloCapacity& out) {
  std::vector<double> percentile, throughput, rps;
  auto add = [&](const CapacityProbe& p) {
    percentile.push_back(static_cast<double>(p.percentile_ns));
    throughput.push_back(p.throughput_sps);
    rps.push_back(p.requests_per_s);
  };
  for (const CapacityProbe& p : out.probes) {
    if (Size(p.load) == Size(found)) add(p);
  }
  while (measure_more && static_cast<int>(percentile.size()) < search.repeats && search.may_continue()) {
    Result<LoadFigures> f = probe(found);
    if (!f.ok()) break;
    out.probes.push_back(ProbeOf(slo, found, *f));
    add(out.probes.back());
  }
  out.repeats = static_cast<int>(percentile.size());
  const double p_median = Median(percentile);
  out.percentile_ns = static_cast<uint64_t>(p_median);
  out.throughput_sps = Median(throughput);
  out.requests_per_s = Median(rps);
  if (percentile.size() > 1 && p_median > 0) {
    out.percentile_spread = (*std::max_element(percentile.begin(), percentile.end()) -
                             *std::min_element(percentile.begin(), percentile.end())) / p_median;
  }
  return slo.strict ? p_median < slo.bound_ns : p_median <= slo.bound_ns;
}

}  // namespace

SloCapacity FindCapacity(const Slo& slo, const CapacitySearch& search, const CapacityProbeFn& probe) {
  SloCapacity out;
  out.slo = slo;
  const bool open = slo.load.open_loop();
  int probes = 0;
  bool failed_to_measure = false;
  auto measure = [&](const Load& load) -> std::optional<CapacityProbe> {
    if (failed_to_measure || probes >= search.max_probes || !search.may_continue()) return std::nullopt;
    ++probes;
    Result<LoadFigures> f = probe(load);
    if (!f.ok()) {
      failed_to_measure = true;
      return std::nullopt;
    }
    out.probes.push_back(ProbeOf(slo, load, *f));
    return out.probes.back();
  };

  // Bracket: from the smallest load (closed) or the SLO's rate (open), doubling while it holds; an open loop that
  // fails at the SLO's rate halves instead.
  const double ceiling = open ? slo.load.rate * search.max_rate_factor : static_cast<double>(search.max_concurrency);
  const double floor = open ? slo.load.rate / 64 : 1;
  std::optional<double> lo, hi;  // the largest size that held, the smallest that failed
  double size = open ? slo.load.rate : 1;
  while (true) {
    std::optional<CapacityProbe> p = measure(WithSize(slo.load, size));
    if (!p) break;
    if (p->holds) {
      lo = size;
      if (hi || size >= ceiling) break;
      size = std::min(size * 2, ceiling);
    } else {
      hi = size;
      if (lo || size <= floor) break;
      size = open ? size / 2 : 0;  // closed: concurrency 1 already failed
      if (!open) break;
    }
  }
  // Narrow the bracket: integers for concurrency, to 5% for a rate.
  while (lo && hi) {
    const bool narrow = open ? (*hi - *lo) <= 0.05 * *lo : (*hi - *lo) <= 1;
    if (narrow) break;
    const double mid = open ? (*lo + *hi) / 2 : std::floor((*lo + *hi) / 2);
    std::optional<CapacityProbe> p = measure(WithSize(slo.load, mid));
    if (!p) break;
    (p->holds ? lo : hi) = mid;
  }
  if (hi) out.fails_at = WithSize(slo.load, *hi);
  if (!lo) return out;

  const Load found = WithSize(slo.load, *lo);
  if (!Confirm(slo, search, probe, found, /*measure_more=*/!failed_to_measure, out)) {
    // Held once and not in the median of its runs: the bound sits within this load's noise. Named as failing.
    out.fails_at = found;
    return out;
  }
  out.holds_up_to = found;
  out.at_ceiling = !hi && *lo >= ceiling;
  return out;
}

// Some probe held: a search that ends without a load that holds failed to confirm one (Confirm's median), not
// failed at the smallest load.
bool HeldOnce(const SloCapacity& c) {
  return std::any_of(c.probes.begin(), c.probes.end(), [](const CapacityProbe& p) { return p.holds; });
}

std::string CapacitySentence(const SloCapacity& c, int cores) {
  const std::string bound = fmt::format("p{:g} {} {}", c.slo.percentile, c.slo.strict ? "<" : "<=",
                                        FormatDuration(c.slo.bound_ns));
  const std::string machine = fmt::format("{} core{}", cores, cores == 1 ? "" : "s");
  if (!c.holds_up_to) {
    if (c.fails_at && HeldOnce(c)) {
      return fmt::format("{} held in one run at {} on {} but not in the median of {} runs there: the capacity sits "
                         "within this load's noise (a larger --budget measures it again)",
                         bound, c.fails_at->Label(), machine, c.repeats);
    }
    if (c.fails_at) {
      return fmt::format("{} does not hold even at {} on {}: more replicas do not help; a faster model, config or "
                         "machine does",
                         bound, c.fails_at->Label(), machine);
    }
    return fmt::format("{}: capacity not measured (the budget or the server ended the search)", bound);
  }
  // Held at the largest load measured: the search's ceiling, or the budget ended the search before a load failed.
  const char* upper = c.at_ceiling ? ", the most tried," : !c.fails_at ? ", the most the budget let it try," : "";
  std::string text = fmt::format("{} holds up to {}{} on {} ({:.0f} samples/s, p{:g} {} +-{:.0f}% over {} runs)", bound,
                                 c.holds_up_to->Label(), upper, machine,
                                 c.throughput_sps, c.slo.percentile,
                                 FormatDuration(static_cast<double>(c.percentile_ns)), 50 * c.percentile_spread,
                                 c.repeats);
  const double found = Size(*c.holds_up_to), wanted = Size(c.slo.load);
  if (found >= wanted) {
    text += fmt::format("; the SLO's {} fits one replica", c.slo.load.Label());
  } else {
    text += fmt::format("; at the SLO's {} it needs {} replicas", c.slo.load.Label(),
                        static_cast<int>(std::ceil(wanted / found)));
  }
  return text;
}

Result<ReplicaPlan> ReplicasFor(const std::vector<SloCapacity>& capacities, const Load& expected) {
  ReplicaPlan plan;
  plan.expected = expected;
  bool any = false;
  std::string parts;
  for (const SloCapacity& c : capacities) {
    if (!c.holds_up_to) {
      if (c.fails_at && !HeldOnce(c)) {
        plan.replicas = 0;
        plan.arithmetic = fmt::format("{}: no number of replicas holds it (it fails at {} already)", c.slo.text,
                                      c.fails_at->Label());
        return plan;
      }
      continue;
    }
    any = true;
    double per_replica = 0;
    std::string unit;
    if (expected.open_loop() == c.holds_up_to->open_loop()) {
      per_replica = Size(*c.holds_up_to);
      unit = expected.open_loop() ? fmt::format("{:.0f}/s per replica", per_replica)
                                  : fmt::format("{} per replica", c.holds_up_to->concurrency);
    } else if (expected.open_loop()) {
      per_replica = c.requests_per_s;  // what one replica completes at its capacity concurrency
      unit = fmt::format("{:.0f}/s per replica (its throughput at {})", per_replica, c.holds_up_to->Label());
    } else {
      // Concurrency expected, a rate SLO: Little's law, in flight = rate x latency at capacity (its p50 is not
      // kept here; the percentile bounds it from above, so this errs towards more replicas).
      per_replica = std::max(1.0, c.requests_per_s * static_cast<double>(c.percentile_ns) / 1e9);
      unit = fmt::format("{:.1f} in flight per replica ({:.0f}/s x {})", per_replica, c.requests_per_s,
                         FormatDuration(static_cast<double>(c.percentile_ns)));
    }
    if (per_replica <= 0) continue;
    const int n = std::max(1, static_cast<int>(std::ceil(Size(expected) / per_replica - 1e-9)));
    parts += fmt::format("{}{}: {} / {} -> {} replica{}", parts.empty() ? "" : "; ", c.slo.text,
                         expected.open_loop() ? fmt::format("{:g}/s", expected.rate)
                                              : fmt::format("concurrency {}", expected.concurrency),
                         unit, n, n == 1 ? "" : "s");
    plan.replicas = std::max(plan.replicas, n);
  }
  if (!any) return Status::InvalidArgument("no SLO's capacity was measured: no replica count to give");
  plan.arithmetic = parts;
  return plan;
}

Result<Load> ParseExpectedLoad(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("--expected-load '{}': {} (expected rate=R, requests per second, or concurrency=N)", text, why));
  };
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) return bad("no '='");
  const std::string_view key = text.substr(0, eq), value = text.substr(eq + 1);
  if (key == "concurrency") {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n < 1) return bad("the concurrency is not an integer >= 1");
    return Load::Closed(n);
  }
  if (key == "rate") {
    double r = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), r);
    if (ec != std::errc() || end != value.data() + value.size() || !(r > 0) || !std::isfinite(r))
      return bad("the rate is not a number > 0");
    return Load::Open(r);
  }
  return bad(fmt::format("unknown load '{}'", key));
}

}  // namespace hone::tune
