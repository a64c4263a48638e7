#include "harness/variant_check_json.h"

#include "check/compare_report.h"
#include "check/evaluate_report.h"

namespace hone::harness {
namespace {

const char* VerdictName(SpeedVerdict v) {
  switch (v) {
    case SpeedVerdict::kFaster: return "faster";
    case SpeedVerdict::kNotDistinguishable: return "not distinguishable";
    case SpeedVerdict::kSlower: return "slower";
  }
  return "unknown";
}

double Us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

}  // namespace

nlohmann::json SpeedComparisonToJson(const SpeedComparison& s) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const SpeedRound& r : s.rounds)
    rounds.push_back({{"variant_first", r.variant_first},
                      {"source_samples_per_s", r.source_sps},
                      {"variant_samples_per_s", r.variant_sps},
                      {"source_p50_us", Us(r.source_p50_ns)},
                      {"variant_p50_us", Us(r.variant_p50_ns)},
                      {"source_p99_us", Us(r.source_p99_ns)},
                      {"variant_p99_us", Us(r.variant_p99_ns)},
                      {"throughput_ratio", r.throughput_ratio()},
                      {"p99_ratio", r.p99_ratio()}});
  return {{"verdict", VerdictName(s.verdict)},
          {"detail", s.verdict_detail},
          {"rounds", rounds},
          {"throughput_ratio", {{"median", s.throughput_ratio}, {"min", s.throughput_ratio_min},
                                {"max", s.throughput_ratio_max}}},
          {"p50_ratio", s.p50_ratio},
          {"p99_ratio", {{"median", s.p99_ratio}, {"min", s.p99_ratio_min}, {"max", s.p99_ratio_max}}},
          {"source", {{"samples_per_s", s.source_sps}, {"p50_us", Us(s.source_p50_ns)},
                      {"p99_us", Us(s.source_p99_ns)}}},
          {"variant", {{"samples_per_s", s.variant_sps}, {"p50_us", Us(s.variant_p50_ns)},
                       {"p99_us", Us(s.variant_p99_ns)}}},
          // With one round the source was measured once: its spread is unknown, not zero.
          {"source_spread", s.rounds.size() < 2
                                ? nlohmann::json(nullptr)
                                : nlohmann::json{{"throughput", s.source_throughput_spread},
                                                 {"p99", s.source_p99_spread}}},
          {"errors", s.errors},
          {"first_error", s.first_error}};
}

nlohmann::json VariantOutcomeToJson(const VariantCheck& check, const VariantOutcome& o) {
  return {{"passed", o.passed()},
          {"failures", o.failures},
          {"notes", o.notes},
          {"identical", o.identical},
          {"load_error", o.load_error},
          {"size", {{"source_bytes", o.source_bytes}, {"variant_bytes", o.variant_bytes},
                    {"ratio", o.source_bytes ? double(o.variant_bytes) / double(o.source_bytes) : 0.0}}},
          {"data_note", check.data_note},
          {"compare", check::CompareReportToJson(o.compare)},
          {"evaluate", o.evaluate ? check::EvaluateReportToJson(*o.evaluate) : nlohmann::json(nullptr)},
          {"speed", o.speed ? SpeedComparisonToJson(*o.speed) : nlohmann::json(nullptr)}};
}

}  // namespace hone::harness
