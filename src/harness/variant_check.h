// The proof every variant must carry before hone calls it good (quantize and convert today; tune's stages next).
// PASSED means all of:
//   - the variant loads in ONNX Runtime and is not a byte-for-byte copy of its source (something changed);
//   - its outputs match the source's on held-out inputs under the same rules and defaults as `hone compare`
//     (check/tolerance.h): no NaN or Inf the source does not have, cosine and largest error within bounds;
//   - its task quality passes the gates against the source when the data has labels or gates are given
//     (`hone evaluate`);
//   - it is not slower: both measured in the same run in alternating rounds (speed_comparison.h), unless the user
//     allows a slower variant, which is then said in the verdict.
// Without a speed measurement (bench off) the verdict says that speed was not measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/result.h"
#include "check/compare.h"
#include "check/evaluate.h"
#include "harness/speed_comparison.h"
#include "runtime/input_options.h"
#include "runtime/session_options.h"

namespace hone::harness {

struct VariantCheck {
  std::string source_path, variant_path;
  // Held-out inputs (and labels): never the calibration rows. data_path empty: inputs generated from the model.
  runtime::InputOptions data;
  std::string data_note;  // said in the report when the data is a slice: "rows 500..1999 of 'test.npz'"
  runtime::SessionOptions session;
  // The verdict on outputs: hone compare's rules and defaults (--atol/--rtol/--min-cosine/--max-range-error).
  check::Tolerances tolerances;
  // Gates on the evaluation: with labels, empty means accuracy_drop <= max_accuracy_drop; without labels they are
  // evaluated only when given (against the source: cosine_mean_drop, ...), and need data_path.
  std::vector<check::Gate> gates;
  std::string output;  // the output the evaluation and its gates read (hone evaluate's --output-name); empty: the first
  double max_accuracy_drop = 0.01;
  std::string slice_key;                          // the gates' slices (worst_slice_drop); empty: none
  std::vector<check::Perturbation> perturbations;  // the gates' robustness figures; empty: none
  bool bench = true;
  bool allow_slower = false;  // a slower variant passes, with the slowdown said in the verdict
  int bench_rounds = 3;
  int64_t bench_batch = 0;  // 0: the inputs' default batch
  double bench_window_s = 0.25;
  // The speed comparison's rounds as they finish ("round 2 of 3"); null: quiet. Not owned; outlives CheckVariant.
  Progress* progress = nullptr;
};

struct VariantOutcome {
  uint64_t source_bytes = 0, variant_bytes = 0;  // model files plus their external data files
  bool identical = false;  // the variant's files are byte-for-byte the source's
  std::string load_error;  // ONNX Runtime's refusal to load the variant; empty when it loads
  check::CompareReport compare;
  std::optional<check::EvaluateReport> evaluate;
  std::optional<SpeedComparison> speed;
  std::vector<std::string> failures;  // one sentence each; empty when the variant passed
  std::vector<std::string> notes;     // what the verdict does not cover, or allowed despite it
  bool passed() const { return failures.empty(); }
};

// Runs the checks in order and stops at the first that makes the rest meaningless (a variant that does not load or
// did not change). Errors (the source does not load, data that does not fit) name what is at fault; a variant
// that misses a tolerance, gate or the speed verdict is not an error but an outcome with failures.
Result<VariantOutcome> CheckVariant(const VariantCheck& check);

// The summary table and verdict. Every number has a unit or is a ratio; says what was measured and how.
std::string VariantOutcomeToText(const VariantCheck& check, const VariantOutcome& outcome);

// Writes rows [first, first + count) (count < 0: to the end) of every array of the .npz at `path` that has more
// than `first` rows to `out_path` (arrays with fewer rows are copied whole): the held-out part of a dataset whose
// first rows calibrated the model, or a few rows of it. InvalidArgument naming the file when no array has rows left.
Status WriteHeldOutRows(const std::string& path, int64_t first, const std::string& out_path, int64_t count = -1);

}  // namespace hone::harness
