// Quality gates: conditions on named metrics ("accuracy_drop<=0.005") that decide whether an evaluation passes.
// `hone evaluate --gate` uses them, and so will `hone tune` after every optimization step.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "check/metric.h"

namespace hone::check {

enum class GateOp { kLessEqual, kLess, kGreaterEqual, kGreater };

struct Gate {
  std::string metric;  // a Metric's name
  GateOp op = GateOp::kLessEqual;
  double threshold = 0;
  // "accuracy_drop<=0.005"
  std::string ToString() const;
};

// Parses comma-separated conditions "NAME<=X", "NAME<X", "NAME>=X", "NAME>X" (spaces allowed around parts).
// InvalidArgument naming the condition when one has no operator, no name or no finite number.
Result<std::vector<Gate>> ParseGates(std::string_view text);

struct GateResult {
  Gate gate;
  double value = 0;  // the metric's value
  bool passed = false;
};

// Each gate's verdict. NotFound naming the metric and listing those available when a gate names no metric. A NaN
// value fails every gate.
Result<std::vector<GateResult>> CheckGates(const std::vector<Gate>& gates, const std::vector<Metric>& metrics);

}  // namespace hone::check
