// When a candidate's output counts as matching the reference's. Two rules, the same in `hone compare` and in the
// verification of every variant that quantize and convert write (so that one pair gets one verdict everywhere):
//
// - kSimilarity, the default for floating-point outputs when no --atol, --rtol or --error-stat is given: the
//   candidate behaves like the reference. It fails on any NaN or Inf the reference does not have at that element
//   (counted first: the other statistics are over the finite pairs only), on a cosine similarity below
//   min_cosine, and on a largest absolute error above max_range_error times the reference's range (max - min of
//   its finite values), which catches a few badly wrong elements that cosine hides. Integer, bool and string
//   outputs are judged kExact under this default.
// - kAtolRtol, as soon as a tolerance or statistic is given (for all outputs, or for the outputs it names):
//   elementwise or statistical absolute and relative tolerances, as Polygraphy's.
//
// The kAtolRtol rule for one element (reference r, candidate c), as JudgeElement applies it:
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

enum class ToleranceRule { kSimilarity, kAtolRtol, kExact };

// The defaults of kSimilarity. A variant that moves the cosine of an output below 0.999 or one element by more
// than 5% of the output's range has changed what the model computes, not only its rounding.
inline constexpr double kDefaultMinCosine = 0.999;
inline constexpr double kDefaultMaxRangeError = 0.05;

// The tolerance one output is checked with.
struct Tolerance {
  double atol = 1e-5;  // in the output's own units
  double rtol = 1e-5;  // a ratio to |reference|
  CheckStatistic statistic;
  ToleranceRule rule = ToleranceRule::kAtolRtol;
  double min_cosine = kDefaultMinCosine;          // kSimilarity
  double max_range_error = kDefaultMaxRangeError;  // kSimilarity: a ratio to the reference's range

  // One line for the reports: "similarity: no new NaN/Inf, cosine >= 0.999, max |error| <= 5% of the range".
  std::string Describe() const;
};

// Defaults for every output plus overrides by output name, as given by --atol, --rtol and --error-stat. Until one
// of them is given for all outputs, the rule is kSimilarity (see above); an output named in one is kAtolRtol.
class Tolerances {
 public:
  Tolerances() { defaults.rule = ToleranceRule::kSimilarity; }

  Tolerance defaults;

  // One flag value: "1e-3" sets the default, "logits:1e-3" one output's (the name is everything before the last
  // ':'). InvalidArgument naming the flag and its text unless the number is finite and >= 0.
  Status ParseAtol(std::string_view text) { return ParseValue("--atol", text, defaults.atol, atol_); }
  Status ParseRtol(std::string_view text) { return ParseValue("--rtol", text, defaults.rtol, rtol_); }
  // --min-cosine and --max-range-error: the kSimilarity thresholds. InvalidArgument unless in [-1, 1] and >= 0.
  Status SetSimilarity(double min_cosine, double max_range_error);
  // "max" sets the default; "logits:quantile:0.9" one output's (the text after the first ':' must be a statistic).
  Status ParseStatistic(std::string_view text);

  void SetAtol(const std::string& output, double atol) { atol_[output] = atol; }
  void SetRtol(const std::string& output, double rtol) { rtol_[output] = rtol; }
  void SetStatistic(const std::string& output, CheckStatistic s) { statistic_[output] = s; }

  // The tolerance for `output`: its overrides (kAtolRtol), else the defaults. The caller turns kSimilarity into
  // kExact for outputs that are not floating point.
  Tolerance For(const std::string& output) const;
  // Every output name that has an override (sorted, unique), so that a caller can reject names that match nothing.
  std::vector<std::string> NamedOutputs() const;

 private:
  Status ParseValue(const char* flag, std::string_view text, double& default_value,
                    std::map<std::string, double>& per_output);
  std::map<std::string, double> atol_, rtol_;
  std::map<std::string, CheckStatistic> statistic_;
};

enum class ElementVerdict { kMatch, kMismatch, kUnjudged };

// The rule above for one element.
ElementVerdict JudgeElement(double reference, double candidate, double atol, double rtol);

}  // namespace hone::check
