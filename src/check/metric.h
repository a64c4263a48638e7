// A named number in an evaluation report. Every figure that gates, deltas and reports refer to is one of these, so
// a value can always be traced to the code that computed it by its name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hone::check {

enum class Better { kHigher, kLower, kNeither };

struct Metric {
  std::string name;   // "accuracy", "ece", "accuracy@gaussian:0.01", "accuracy_drop"
  double value = 0;
  Better better = Better::kNeither;
  std::string unit;   // "ratio", "nats", "count", "output units"
};

// The metric named `name`, or null.
inline const Metric* FindMetric(const std::vector<Metric>& metrics, std::string_view name) {
  for (const Metric& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

// How much worse `candidate` is than `reference` for a metric whose direction is `better`: reference - candidate
// when higher is better, candidate - reference when lower is better (positive = worse either way).
inline double Worsening(Better better, double reference, double candidate) {
  return better == Better::kLower ? candidate - reference : reference - candidate;
}

// "_drop" for a higher-is-better metric, "_increase" for a lower-is-better one, "_change" otherwise.
inline std::string_view WorseningSuffix(Better better) {
  return better == Better::kHigher ? "_drop" : better == Better::kLower ? "_increase" : "_change";
}

}  // namespace hone::check
