// Comparing two sets of named outputs, the reference's and the candidate's: which pairs are compared, each pair's
// error statistics and verdict, and the report that `hone compare` prints. Pure: no models are run here (see
// compare_runner.h for that).
//
//   CompareSettings settings;
//   HONE_RETURN_IF_ERROR(settings.tolerances.ParseAtol("logits:1e-3"));
//   HONE_ASSIGN_OR_RETURN(CompareReport report, CompareOutputs(reference, candidate, settings));
//   if (!report.passed()) ...
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "check/classifier_agreement.h"
#include "check/error_stats.h"
#include "check/output_match.h"
#include "check/tolerance.h"
#include "runtime/session_options.h"
#include "tensor/npz.h"

namespace hone::check {

struct CompareSettings {
  // --- affect the verdict ---
  // Per-output tolerances and check statistic, keyed by the reference's output name.
  Tolerances tolerances;
  // Reference output name -> candidate output name, for pairs named differently; the rest pair by equal names.
  std::map<std::string, std::string> output_map;
  // Also fail when any output of either side holds a NaN or Inf (Polygraphy's --validate).
  bool validate = false;
  // --- affect the report only ---
  int top_k = 5;  // top-k overlap for classifier-like outputs
};

struct OutputComparison {
  std::string reference_name, candidate_name;
  DataType reference_type = DataType::kInvalid, candidate_type = DataType::kInvalid;
  Shape reference_shape, candidate_shape;
  bool shapes_match = false;
  Tolerance tolerance;
  // NaN and Inf counts of each side, whether or not the shapes match.
  NonFiniteCounts reference_non_finite, candidate_non_finite;
  // When the shapes match:
  ErrorStats errors;
  MatchResult match;
  double worst_reference = 0, worst_candidate = 0;  // the values at errors.worst_index
  std::optional<ClassifierAgreement> classifier;

  bool passed = false;
  std::string failure;  // why it failed, one sentence; empty when it passed
};

struct CompareReport {
  std::string reference, candidate;  // what each side was: "model 'a.onnx'", "saved outputs 'ref.npz'"
  std::string inputs;                // where the inputs came from; empty when both sides were saved outputs
  std::string runtime;               // ONNX Runtime version and session options; empty when no model ran
  std::optional<runtime::SessionOptions> session;  // the same, structured; none when no model ran
  std::string machine;               // the hardware and software, as the caller describes it; empty: not said
  std::vector<OutputComparison> outputs;                   // in the reference's output order
  std::vector<std::string> reference_only, candidate_only;  // outputs left out: no partner
  bool validate = false;
  std::vector<std::string> validation_failures;  // "reference output 'x': 3 NaN, 0 Inf"

  bool passed() const;
};

// Pairs the outputs (settings.output_map, then equal names) and compares each pair. InvalidArgument when a
// mapping or a per-output tolerance names an output that does not exist or is not compared, or when no output
// pairs up at all (the message lists both sides' names). Mismatched shapes are a failed output, not an error.
Result<CompareReport> CompareOutputs(const std::vector<NamedTensor>& reference,
                                     const std::vector<NamedTensor>& candidate, const CompareSettings& settings);

}  // namespace hone::check
