#include "check/gates.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace hone::check {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string_view OpText(GateOp op) {
  switch (op) {
    case GateOp::kLessEqual: return "<=";
    case GateOp::kLess: return "<";
    case GateOp::kGreaterEqual: return ">=";
    case GateOp::kGreater: return ">";
  }
  return "?";
}

}  // namespace

std::string Gate::ToString() const { return fmt::format("{}{}{:g}", metric, OpText(op), threshold); }

Result<std::vector<Gate>> ParseGates(std::string_view text) {
  std::vector<Gate> gates;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item = Trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                    : comma - start));
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    auto bad = [&](std::string_view why) {
      return Status::InvalidArgument(
          fmt::format("--gate '{}': {}; expected METRIC<=X, METRIC<X, METRIC>=X or METRIC>X", item, why));
    };
    size_t at = item.find_first_of("<>");
    if (at == std::string_view::npos) return bad("no comparison");
    Gate g;
    const bool equal = at + 1 < item.size() && item[at + 1] == '=';
    g.op = item[at] == '<' ? (equal ? GateOp::kLessEqual : GateOp::kLess)
                           : (equal ? GateOp::kGreaterEqual : GateOp::kGreater);
    g.metric = std::string(Trim(item.substr(0, at)));
    std::string_view number = Trim(item.substr(at + (equal ? 2 : 1)));
    if (g.metric.empty()) return bad("no metric name");
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), g.threshold);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(g.threshold))
      return bad(fmt::format("'{}' is not a number", number));
    gates.push_back(std::move(g));
  }
  return gates;
}

Result<std::vector<GateResult>> CheckGates(const std::vector<Gate>& gates, const std::vector<Metric>& metrics) {
  std::vector<GateResult> results;
  for (const Gate& g : gates) {
    const Metric* m = FindMetric(metrics, g.metric);
    if (!m) {
      std::string names;
      for (const Metric& known : metrics) names += (names.empty() ? "" : ", ") + known.name;
      return Status::NotFound(fmt::format("--gate {}: this evaluation has no metric '{}' (metrics: {})",
                                          g.ToString(), g.metric, names));
    }
    GateResult r{g, m->value, false};
    switch (g.op) {
      case GateOp::kLessEqual: r.passed = m->value <= g.threshold; break;
      case GateOp::kLess: r.passed = m->value < g.threshold; break;
      case GateOp::kGreaterEqual: r.passed = m->value >= g.threshold; break;
      case GateOp::kGreater: r.passed = m->value > g.threshold; break;
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace hone::check
