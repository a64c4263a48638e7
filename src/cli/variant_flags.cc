#include "cli/variant_flags.h"

#include <fmt/format.h>

#include <iostream>

#include "base/progress.h"
#include "check/gates.h"
#include "cli/commands.h"
#include "cli/report_output.h"
#include "harness/variant_check_json.h"
#include "onnx/model_json.h"

namespace hone::cli {

void AddVariantFlags(CLI::App& app, VariantFlags& f) {
  app.add_flag("--no-verify", f.no_verify, "write the variant without comparing, evaluating or benchmarking it");
  app.add_flag("--no-bench", f.no_bench, "verify the variant's outputs but do not benchmark it");
  app.add_flag("--quiet", f.quiet, "no progress on standard error (calibration batches, verification rounds)");
  AddInputFlags(app, f.data, f.data_flags);
  app.add_option("--intra-op-threads", f.intra_op_threads,
                 "ONNX Runtime threads inside one operator for calibration, verification and bench (0: default)")
      ->capture_default_str();
  AddToleranceFlags(app, f.tolerance);
  app.add_option("--gate", f.gates, "conditions on the evaluation with labels, e.g. 'accuracy_drop<=0.005' "
                                    "(default: accuracy_drop<=--max-accuracy-drop)");
  app.add_option("--output-name", f.output,
                 "the output the evaluation and its gates read (default: the model's first), as hone evaluate's");
  app.add_option("--max-accuracy-drop", f.max_accuracy_drop, "the default gate, as a ratio (0.01 = 1 point)")
      ->capture_default_str();
  app.add_flag("--allow-slower", f.allow_slower,
               "pass a variant that measured slower than its source (the verdict still says so)");
  app.add_option("--bench-rounds", f.bench_rounds,
                 "speed: rounds of source and variant measured in alternating order; the verdict takes the median "
                 "ratio against the source's own spread")
      ->capture_default_str();
  app.add_option("--bench-batch", f.bench_batch, "samples per request in the benchmark (default: the inputs')");
  app.add_option("--bench-window-ms", f.bench_window_ms,
                 "speed: each measurement is a short warm-up and two windows of this length")
      ->capture_default_str();
  app.add_option("--json", f.json_path,
                 "write the report (what changed, the verification and its verdict) as JSON to FILE (-: standard "
                 "output, the text report then going to standard error)");
}

int FinishVariantReport(const VariantFlags& flags, const VariantReport& report, bool written,
                        std::string_view verdict, nlohmann::json verification, int code) {
  if (flags.json_path.empty()) return code;
  Result<nlohmann::json> source = onnx::ModelFileJson(report.source);
  Result<nlohmann::json> variant = written ? onnx::ModelFileJson(report.output) : Result<nlohmann::json>(nullptr);
  Status s = !source.ok() ? source.status() : variant.status();
  if (s.ok()) {
    nlohmann::json body = {{"output", report.output},
                           {"transform", report.transform},
                           {"variant_model", *variant},
                           {"verdict", std::string(verdict)},
                           {"verification", std::move(verification)}};
    s = WriteJsonReport(flags.json_path, report.kind, *source, std::move(body));
  }
  if (!s.ok()) {
    std::cerr << "hone " << report.kind << ": " << s.message() << "\n";
    return kExitUsage;
  }
  return code;
}

int VerifyVariant(const VariantReport& report, VariantFlags& f, harness::VariantCheck& check,
                  const std::string& command) {
  const std::string& source = report.source;
  const std::string& variant = report.output;
  auto fail = [&command](const Status& s) {
    std::cerr << command << ": " << s.message() << "\n";
    return kExitUsage;
  };
  check.source_path = source;
  check.variant_path = variant;
  if (Status s = ApplyInputFlags(f.data_flags, f.data); !s.ok()) return fail(s);
  check.data = f.data;
  check.session.intra_op_threads = f.intra_op_threads;
  if (Status s = ApplyToleranceFlags(f.tolerance, check.tolerances); !s.ok()) return fail(s);
  for (const auto& g : f.gates) {
    auto parsed = check::ParseGates(g);
    if (!parsed.ok()) return fail(parsed.status());
    check.gates.insert(check.gates.end(), parsed->begin(), parsed->end());
  }
  check.max_accuracy_drop = f.max_accuracy_drop;
  check.output = f.output;
  check.bench = !f.no_bench;
  check.allow_slower = f.allow_slower;
  check.bench_rounds = f.bench_rounds;
  check.bench_batch = f.bench_batch;
  if (f.bench_rounds < 1) return fail(Status::InvalidArgument("--bench-rounds: expected >= 1"));
  if (!(f.bench_window_ms > 0)) return fail(Status::InvalidArgument("--bench-window-ms: expected > 0"));
  check.bench_window_s = f.bench_window_ms / 1000.0;
  std::unique_ptr<Progress> progress = f.quiet ? nullptr : Progress::ForStderr("verification round");
  check.progress = progress.get();
  auto outcome = harness::CheckVariant(check);
  if (progress) progress->Finish();
  if (!outcome.ok()) return fail(outcome.status());
  std::cout << harness::VariantOutcomeToText(check, *outcome);
  const nlohmann::json verification = harness::VariantOutcomeToJson(check, *outcome);
  if (!outcome->passed()) {
    std::cerr << command << ": the variant failed verification; it is kept at '" << variant << "' for inspection\n";
    return FinishVariantReport(f, report, true, "failed", verification, kExitCheckFailed);
  }
  return FinishVariantReport(f, report, true, "passed", verification, kExitOk);
}

Status HoldOutCalibrationRows(VariantFlags& f, const std::string& calibration_path, int64_t calibration_samples,
                              const ScratchFile& held_out, harness::VariantCheck& check) {
  if (f.no_verify || !(f.data.data_path.empty() || SamePath(f.data.data_path, calibration_path))) return Status::Ok();
  if (calibration_samples == 0)
    return Status::InvalidArgument(
        "verification needs held-out data: give --data with other samples than --calibration-data, or "
        "--calibration-samples N so that the rows after N verify (or --no-verify)");
  HONE_RETURN_IF_ERROR(harness::WriteHeldOutRows(calibration_path, calibration_samples, held_out.path()));
  f.data.data_path = held_out.path();
  check.data_note =
      fmt::format("rows {} and after of '{}'; rows before calibrated", calibration_samples, calibration_path);
  return Status::Ok();
}

int CommitAndVerify(StagedOutput& staged, const VariantReport& report, VariantFlags& f, harness::VariantCheck& check,
                    const std::string& command) {
  if (Status s = staged.Commit(); !s.ok()) {
    std::cerr << command << ": " << s.message() << "\n";
    return kExitUsage;
  }
  if (f.no_verify) {
    std::cout << "not verified (--no-verify): outputs, quality and speed against the source were not checked\n";
    return FinishVariantReport(f, report, true, "not verified", nullptr, kExitOk);
  }
  return VerifyVariant(report, f, check, command);
}

int TransformFailed(const Status& status, const StagedOutput& staged, const std::string& output,
                    const std::string& command) {
  const std::string message = staged.NameFinal(status.message());
  std::cerr << command << ": " << message << "\n";
  if (status.code() != StatusCode::kInternal) return kExitUsage;
  std::cerr << command << ": nothing was written to '" << output << "'\n";
  return kExitCheckFailed;
}

}  // namespace hone::cli
