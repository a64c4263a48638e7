#include "check/tolerance.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <set>

namespace hone::check {
namespace {

std::optional<double> ParseNumber(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string CheckStatistic::Name() const {
  switch (kind) {
    case ErrorStatistic::kElementwise: return "elementwise";
    case ErrorStatistic::kMax: return "max";
    case ErrorStatistic::kMean: return "mean";
    case ErrorStatistic::kQuantile: return fmt::format("quantile:{:g}", quantile);
  }
  return "?";
}

std::optional<CheckStatistic> ParseCheckStatistic(std::string_view text) {
  if (text == "elementwise") return CheckStatistic{ErrorStatistic::kElementwise};
  if (text == "max") return CheckStatistic{ErrorStatistic::kMax};
  if (text == "mean") return CheckStatistic{ErrorStatistic::kMean};
  if (text == "quantile") return CheckStatistic{ErrorStatistic::kQuantile, 0.99};
  constexpr std::string_view kPrefix = "quantile:";
  if (text.substr(0, kPrefix.size()) == kPrefix) {
    auto q = ParseNumber(text.substr(kPrefix.size()));
    if (q && *q > 0 && *q <= 1) return CheckStatistic{ErrorStatistic::kQuantile, *q};
  }
  return std::nullopt;
}

Status Tolerances::ParseValue(const char* flag, std::string_view text, double& default_value,
                              std::map<std::string, double>& per_output) {
  size_t colon = text.rfind(':');
  std::string_view name = colon == std::string_view::npos ? std::string_view() : text.substr(0, colon);
  std::string_view number = colon == std::string_view::npos ? text : text.substr(colon + 1);
  auto value = ParseNumber(number);
  if (!value || !std::isfinite(*value) || *value < 0)
    return Status::InvalidArgument(fmt::format("{} '{}': expected a number >= 0, or OUTPUT:NUMBER", flag, text));
  if (colon == std::string_view::npos) {
    default_value = *value;
    defaults.rule = ToleranceRule::kAtolRtol;
  } else {
    if (name.empty())
      return Status::InvalidArgument(fmt::format("{} '{}': the output name before ':' is empty", flag, text));
    per_output[std::string(name)] = *value;
  }
  return Status::Ok();
}

Status Tolerances::ParseStatistic(std::string_view text) {
  if (auto s = ParseCheckStatistic(text)) {
    defaults.statistic = *s;
    defaults.rule = ToleranceRule::kAtolRtol;
    return Status::Ok();
  }
  size_t colon = text.find(':');
  if (colon != std::string_view::npos && colon > 0)
    if (auto s = ParseCheckStatistic(text.substr(colon + 1))) {
      statistic_[std::string(text.substr(0, colon))] = *s;
      return Status::Ok();
    }
  return Status::InvalidArgument(fmt::format(
      "--error-stat '{}': expected elementwise, max, mean or quantile:Q (0 < Q <= 1), optionally as OUTPUT:STAT",
      text));
}

Status Tolerances::SetSimilarity(double min_cosine, double max_range_error) {
  if (!(min_cosine >= -1 && min_cosine <= 1))
    return Status::InvalidArgument(fmt::format("--min-cosine {:g}: expected a cosine similarity in [-1, 1]", min_cosine));
  if (!(max_range_error >= 0) || !std::isfinite(max_range_error))
    return Status::InvalidArgument(
        fmt::format("--max-range-error {:g}: expected a ratio >= 0 of the output's range", max_range_error));
  defaults.min_cosine = min_cosine;
  defaults.max_range_error = max_range_error;
  return Status::Ok();
}

Tolerance Tolerances::For(const std::string& output) const {
  Tolerance t = defaults;
  bool named = false;
  if (auto it = atol_.find(output); it != atol_.end()) t.atol = it->second, named = true;
  if (auto it = rtol_.find(output); it != rtol_.end()) t.rtol = it->second, named = true;
  if (auto it = statistic_.find(output); it != statistic_.end()) t.statistic = it->second, named = true;
  if (named) t.rule = ToleranceRule::kAtolRtol;
  return t;
}

std::string Tolerance::Describe() const {
  switch (rule) {
    case ToleranceRule::kSimilarity:
      return fmt::format("similarity: no NaN/Inf the reference lacks, cosine >= {:g}, max |error| <= {:g}% of the "
                         "reference's range (--atol/--rtol for elementwise tolerances)",
                         min_cosine, 100 * max_range_error);
    case ToleranceRule::kExact: return "exact: every element equal (not a floating-point output)";
    case ToleranceRule::kAtolRtol: break;
  }
  return fmt::format("atol {:g}, rtol {:g}, statistic {}", atol, rtol, statistic.Name());
}

std::vector<std::string> Tolerances::NamedOutputs() const {
  std::set<std::string> names;
  for (const auto& [name, v] : atol_) names.insert(name);
  for (const auto& [name, v] : rtol_) names.insert(name);
  for (const auto& [name, v] : statistic_) names.insert(name);
  return {names.begin(), names.end()};
}

ElementVerdict JudgeElement(double reference, double candidate, double atol, double rtol) {
  if (std::isnan(reference)) return std::isnan(candidate) ? ElementVerdict::kMatch : ElementVerdict::kUnjudged;
  if (std::isnan(candidate)) return ElementVerdict::kMismatch;
  if (std::isinf(reference) || std::isinf(candidate))
    return reference == candidate ? ElementVerdict::kMatch : ElementVerdict::kMismatch;
  const double error = std::fabs(candidate - reference);
  return error > atol && error > rtol * std::fabs(reference) ? ElementVerdict::kMismatch : ElementVerdict::kMatch;
}

}  // namespace hone::check
