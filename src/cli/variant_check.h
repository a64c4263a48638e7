// The proof every variant `hone quantize` and `hone convert` write must carry: its outputs compared with the
// source's on held-out data (hone compare), its task quality against the source's when the data has labels (hone
// evaluate), and an in-process benchmark of both in the same run (hone bench). The summary: size, p50, p99 and
// throughput as ratios to the source, max error and cosine similarity per output, the accuracy delta, a verdict.
//
// It ties check, bench and onnx together, which only cli (or a future tune) may; the logic lives here rather
// than in one command so that quantize and convert report alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/results.h"
#include "check/compare.h"
#include "check/evaluate.h"
#include "runtime/input_options.h"
#include "runtime/session_options.h"

namespace hone::cli {

struct VariantCheck {
  std::string source_path, variant_path;
  // Held-out inputs (and labels): never the calibration rows. data_path empty: inputs generated from the model.
  runtime::InputOptions data;
  std::string data_note;  // said in the report when the data is a slice: "rows 500..1999 of 'test.npz'"
  runtime::SessionOptions session;
  // The verdict on outputs. With tolerances_given, the compare's own rule (--atol/--rtol/--error-stat); otherwise
  // every output's cosine similarity must reach min_cosine.
  check::Tolerances tolerances;
  bool tolerances_given = false;
  double min_cosine = 0.99;
  // Gates on the evaluation (labels present). Empty: accuracy_drop <= max_accuracy_drop.
  std::vector<check::Gate> gates;
  double max_accuracy_drop = 0.01;
  bool bench = true;
  int64_t bench_batch = 0;  // 0: the inputs' default batch
  double bench_window_s = 0.5;
};

struct VariantOutcome {
  uint64_t source_bytes = 0, variant_bytes = 0;  // model files plus their external data files
  check::CompareReport compare;
  std::optional<check::EvaluateReport> evaluate;
  std::optional<bench::BenchReport> source_bench, variant_bench;
  std::vector<std::string> failures;  // one sentence each; empty when the variant passed
  bool passed() const { return failures.empty(); }
};

// Runs the comparison, the evaluation (when the data has a label array: label, labels, target, targets or y) and
// the benchmarks. Errors (a model that does not load, data that does not fit) name what is at fault; a variant
// that misses a tolerance or gate is not an error but an outcome with failures.
Result<VariantOutcome> CheckVariant(const VariantCheck& check);

// The summary table and verdict. Every number has a unit or is a ratio; says what was measured and how.
std::string VariantOutcomeToText(const VariantCheck& check, const VariantOutcome& outcome);

// Writes rows [first, end) of every array of the .npz at `path` that has more than `first` rows to `out_path`
// (arrays with fewer rows are copied whole): the held-out part of a dataset whose first rows calibrated the model.
// InvalidArgument naming the file when no array has rows left.
Status WriteHeldOutRows(const std::string& path, int64_t first, const std::string& out_path);

}  // namespace hone::cli
