// When a candidate's output counts as matching the reference's: per-output absolute and relative tolerances and
// the statistic they are applied to.
//
// The rule for one element (reference r, candidate c), as JudgeElement applies it:
//   - c is NaN and r is not: mismatch (under every statistic);
//   - r is NaN: a NaN candidate matches; any other candidate is not judged (counted as "unjudged": the reference
//     itself has no number there; --validate fails on reference NaNs);
//   - r or c infinite: match only when both are the same infinity (an infinite error is never "within rtol");
//   - otherwise: mismatch only when |c - r| > atol AND |c - r| > rtol * |r|.
// Statistics (as Polygraphy's --check-error-stat): elementwise (every element must match, the default); max, mean
// or quantile:Q of the absolute and relative errors over the finite elements, passing when the absolute statistic
// <= atol OR the relative one <= rtol. A NaN or Inf disagreement fails every statistic.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace hone::check {

enum class ErrorStatistic { kElementwise, kMax, kMean, kQuantile };

struct CheckStatistic {
  ErrorStatistic kind = ErrorStatistic::kElementwise;
  double quantile = 0.99;  // kQuantile only; in (0, 1]

  // "elementwise", "max", "mean", "quantile:0.99"
  std::string Name() const;
  bool operator==(const CheckStatistic&) const = default;
};

// Parses "elementwise", "max", "mean", "quantile" (0.99) or "quantile:Q" with 0 < Q <= 1; nullopt otherwise.
std::optional<CheckStatistic> ParseCheckStatistic(std::string_view text);

// The tolerance one output is checked with.
struct Tolerance {
  double atol = 1e-5;  // in the output's own units
  double rtol = 1e-5;  // a ratio to |reference|
  CheckStatistic statistic;
};

// Defaults for every output plus overrides by output name, as given by --atol, --rtol and --error-stat.
class Tolerances {
 public:
  Tolerance defaults;

  // One flag value: "1e-3" sets the default, "logits:1e-3" one output's (the name is everything before the last
  // ':'). InvalidArgument naming the flag and its text unless the number is finite and >= 0.
  Status ParseAtol(std::string_view text) { return ParseValue("--atol", text, defaults.atol, atol_); }
  Status ParseRtol(std::string_view text) { return ParseValue("--rtol", text, defaults.rtol, rtol_); }
  // "max" sets the default; "logits:quantile:0.9" one output's (the text after the first ':' must be a statistic).
  Status ParseStatistic(std::string_view text);

  void SetAtol(const std::string& output, double atol) { atol_[output] = atol; }
  void SetRtol(const std::string& output, double rtol) { rtol_[output] = rtol; }
  void SetStatistic(const std::string& output, CheckStatistic s) { statistic_[output] = s; }

  // The tolerance for `output`: its overrides, else the defaults.
  Tolerance For(const std::string& output) const;
  // Every output name that has an override (sorted, unique), so that a caller can reject names that match nothing.
  std::vector<std::string> NamedOutputs() const;

 private:
  static Status ParseValue(const char* flag, std::string_view text, double& default_value,
                           std::map<std::string, double>& per_output);
  std::map<std::string, double> atol_, rtol_;
  std::map<std::string, CheckStatistic> statistic_;
};

enum class ElementVerdict { kMatch, kMismatch, kUnjudged };

// The rule above for one element.
ElementVerdict JudgeElement(double reference, double candidate, double atol, double rtol);

}  // namespace hone::check
