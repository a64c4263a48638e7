// The verification flags `hone quantize` and `hone convert` share (--no-verify, --data, tolerances, gates, bench),
// and the step that turns them into a VariantCheck, runs it and prints the summary.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/scratch_dir.h"
#include "base/staged_output.h"
#include "cli/common_flags.h"
#include "cli/tolerance_flags.h"
#include "harness/variant_check.h"

namespace hone::cli {

struct VariantFlags {
  bool no_verify = false, no_bench = false, allow_slower = false;
  runtime::InputOptions data;
  InputFlags data_flags;
  int intra_op_threads = 0;
  ToleranceFlags tolerance;
  std::vector<std::string> gates;
  std::string output;  // --output-name: the output the evaluation and gates read
  double max_accuracy_drop = 0.01;
  int bench_rounds = 3;
  int64_t bench_batch = 0;
  double bench_window_ms = 250;
  bool quiet = false;  // no progress on standard error (calibration batches, verification rounds)
  std::string json_path;  // --json FILE|-
};

// What the command made, for its --json report ("quantize" or "convert" in the envelope).
struct VariantReport {
  std::string kind;  // "quantize"
  std::string source, output;
  nlohmann::json transform;  // onnx::QuantizeSummaryToJson, ConvertSummaryToJson
};

// Writes the --json report when one was asked for: the transform, the variant's model object (when `written`),
// `verdict` ("passed", "failed", "not verified", "nothing changed") and `verification` (VariantOutcomeToJson, or
// null). Returns `code`, or 2 when the report cannot be written (said on standard error).
int FinishVariantReport(const VariantFlags& flags, const VariantReport& report, bool written,
                        std::string_view verdict, nlohmann::json verification, int code);

void AddVariantFlags(CLI::App& app, VariantFlags& flags);

// Verifies `variant` against `source` with `flags` (check carries what the command already set, such as the
// held-out note), prints the summary and returns the exit code: 0 passed, 1 failed (the variant stays on disk),
// 2 for bad flags or data. `command` prefixes error messages ("hone quantize").
// Ends with FinishVariantReport.
int VerifyVariant(const VariantReport& report, VariantFlags& flags, harness::VariantCheck& check,
                  const std::string& command);

class ScratchFile;

// Verification data must not be the rows that calibrated (or refitted) the variant: when --data is the calibration
// file, or absent, the rows after `calibration_samples` of it are written to `held_out` and verify instead (said in
// check.data_note). InvalidArgument when that leaves nothing to verify on (calibration_samples 0: all of them).
// Nothing to do under --no-verify or with other --data.
Status HoldOutCalibrationRows(VariantFlags& flags, const std::string& calibration_path, int64_t calibration_samples,
                              const ScratchFile& held_out, harness::VariantCheck& check);

// The end of every transform command once its variant is written to `staged`: renamed into place, then verified
// (VerifyVariant), or said not to be under --no-verify. Returns the exit code.
int CommitAndVerify(StagedOutput& staged, const VariantReport& report, VariantFlags& flags,
                    harness::VariantCheck& check, const std::string& command);

// A transform that failed: Internal is a bug in the rewrite (said, nothing written, exit 1); anything else is the
// user's to fix (exit 2). The message names the final path rather than the staging one.
int TransformFailed(const Status& status, const StagedOutput& staged, const std::string& output,
                    const std::string& command);

// A path for a file of this process (the held-out rows), in a scratch directory removed on destruction.
class ScratchFile {
 public:
  const std::string& path() const { return path_; }

 private:
  ScratchDir dir_{"hone_variant"};
  std::string path_ = dir_.File("held_out.npz");
};

}  // namespace hone::cli
