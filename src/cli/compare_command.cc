// hone compare REFERENCE CANDIDATE: run both on the same inputs (or read saved outputs) and check each shared
// output against per-output tolerances. Exit 0 when every output matches, 1 on a mismatch, 2 on bad usage.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

#include "bench/report.h"
#include "check/compare_report.h"
#include "check/compare_runner.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/report_output.h"
#include "cli/tolerance_flags.h"
#include "harness/speed_comparison.h"
#include "harness/variant_check_json.h"
#include "onnx/model_json.h"
#include "report/system_info.h"

namespace hone::cli {
namespace {

struct CompareFlags {
  check::CompareJob job;
  InputFlags inputs;
  RuntimeFlags runtime_raw;
  bench::RuntimeSweep runtime;
  ToleranceFlags tolerance;
  std::vector<std::string> map;
  std::string json_path;
  bool bench = false;
  int bench_rounds = 5;
  double bench_window_ms = 250;
};

void AddFlags(CLI::App& sub, CompareFlags& f) {
  check::CompareJob& job = f.job;
  sub.add_option("reference", job.reference_path,
                 "the reference: a model (.onnx) or saved outputs (.npz with an array per output, .npy for one)")
      ->required();
  sub.add_option("candidate", job.candidate_path, "the candidate: a model or saved outputs, as the reference")
      ->required();
  AddInputFlags(sub, job.inputs, f.inputs);
  sub.add_option("--batch", job.batch, "samples per run (default: the inputs' batch size, 1 for a dynamic one)");
  AddRuntimeFlags(sub, f.runtime, f.runtime_raw, RuntimeFlagUse::kSingleRun);
  AddToleranceFlags(sub, f.tolerance);
  sub.add_option("--map", f.map, "REFERENCE=CANDIDATE: pair outputs with different names (repeatable)");
  sub.add_flag("--validate", job.settings.validate, "also fail when any output of either side holds NaN or Inf");
  sub.add_option("--top-k", job.settings.top_k, "top-k overlap for classifier-like outputs")->capture_default_str();
  sub.add_option("--save-outputs", job.save_reference_outputs,
                 "write the reference's outputs to FILE (.npz, or .npy for one output) to use as a saved reference");
  sub.add_option("--save-candidate-outputs", job.save_candidate_outputs, "write the candidate's outputs to FILE");
  sub.add_flag("--bench", f.bench,
               "also measure the two models' speed side by side: rounds alternating reference and candidate in "
               "process, medians with the reference's own spread (the exit code still says only whether outputs match)");
  sub.add_option("--bench-rounds", f.bench_rounds, "--bench: pairs of measurements")->capture_default_str();
  sub.add_option("--bench-window-ms", f.bench_window_ms, "--bench: each measurement is a warm-up and two windows of this")
      ->capture_default_str();
  sub.add_option("--json", f.json_path, "write the report as JSON to FILE (-: standard output, the text report then "
                                       "going to standard error)");
}

Status Apply(CompareFlags& f) {
  HONE_RETURN_IF_ERROR(ApplyInputFlags(f.inputs, f.job.inputs));
  HONE_RETURN_IF_ERROR(ApplyRuntimeFlags(f.runtime_raw, f.runtime));
  HONE_ASSIGN_OR_RETURN(f.job.session, SingleSession(f.runtime, "compare"));
  HONE_RETURN_IF_ERROR(ApplyToleranceFlags(f.tolerance, f.job.settings.tolerances));
  for (const auto& m : f.map) {
    size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size())
      return Status::InvalidArgument("--map '" + m + "': expected REFERENCE_OUTPUT=CANDIDATE_OUTPUT");
    f.job.settings.output_map[m.substr(0, eq)] = m.substr(eq + 1);
  }
  if (f.job.batch < 0) return Status::InvalidArgument("--batch: expected >= 1");
  if (f.job.settings.top_k < 1) return Status::InvalidArgument("--top-k: expected >= 1");
  if (f.bench && (f.bench_rounds < 1 || !(f.bench_window_ms > 0)))
    return Status::InvalidArgument("--bench-rounds and --bench-window-ms: expected >= 1 and > 0");
  if (f.bench)
    for (const std::string* path : {&f.job.reference_path, &f.job.candidate_path})
      if (path->ends_with(".npy") || path->ends_with(".npz"))
        return Status::InvalidArgument("--bench measures two models; '" + *path + "' holds saved outputs");
  return Status::Ok();
}

int Run(CompareFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "hone compare: " << s.message() << "\n";
    return kExitUsage;
  };
  if (Status s = Apply(f); !s.ok()) return fail(s);
  const std::vector<std::string> inputs = {f.job.reference_path, f.job.candidate_path, f.job.inputs.data_path};
  if (Status s = RefuseOverwritingInputs({{"--save-outputs", f.job.save_reference_outputs},
                                          {"--save-candidate-outputs", f.job.save_candidate_outputs},
                                          {"--save-optimized", f.runtime.save_optimized_path},
                                          {"--json", f.json_path}},
                                         inputs);
      !s.ok())
    return fail(s);
  if (Status s = RouteReports({{"--json", f.json_path}}, inputs); !s.ok()) return fail(s);
  auto report = check::RunCompare(f.job);
  if (!report.ok()) return fail(report.status());
  report->machine = report::DescribeMachine(report::ReadSystemInfo());
  std::cout << check::CompareReportToText(*report);
  std::optional<harness::SpeedComparison> speed;
  if (f.bench) {
    harness::SpeedComparisonSettings b;
    b.source_path = f.job.reference_path;
    b.variant_path = f.job.candidate_path;
    b.inputs = f.job.inputs;
    b.session = f.job.session;
    b.rounds = f.bench_rounds;
    b.batch = f.job.batch;
    b.window_s = f.bench_window_ms / 1000;
    auto measured = harness::CompareSpeed(b);
    if (!measured.ok()) return fail(measured.status().WithContext("--bench"));
    speed = std::move(*measured);
    std::cout << fmt::format("speed, candidate against reference:\n  {:<24} {:>14} {:>14} {:>10}\n", "", "reference",
                             "candidate", "ratio")
              << harness::SpeedComparisonRows(*speed, "reference", "candidate") << "  " << speed->verdict_detail << "\n";
  }
  int code = report->passed() ? kExitOk : kExitCheckFailed;
  if (!f.json_path.empty()) {
    // The envelope's model is the reference; the candidate, in the same shape, goes in the body.
    Result<nlohmann::json> reference = onnx::ModelFileJson(f.job.reference_path);
    Result<nlohmann::json> candidate = onnx::ModelFileJson(f.job.candidate_path);
    Status s = !reference.ok() ? reference.status() : candidate.status();
    if (s.ok()) {
      nlohmann::json body = check::CompareReportToJson(*report);
      body["candidate_model"] = *candidate;
      body["speed"] = speed ? harness::SpeedComparisonToJson(*speed) : nlohmann::json(nullptr);
      s = WriteJsonReport(f.json_path, "compare", *reference, std::move(body));
    }
    if (!s.ok()) code = fail(s);
  }
  return code;
}

}  // namespace

Command AddCompareCommand(CLI::App& app) {
  auto flags = std::make_shared<CompareFlags>();
  CLI::App* sub = app.add_subcommand(
      "compare", "run two models (or saved outputs) on the same inputs and check every shared output against "
                 "per-output tolerances; exit 1 on a mismatch");
  sub->footer("Examples:\n"
                 "  hone compare models/fashion_mnist/model.onnx model.fp16.onnx --data models/fashion_mnist/test.npz\n"
                 "  hone compare models/fashion_mnist/model.onnx model.int8.onnx --atol 1e-3 --json compare.json\n"
                 "  hone compare model.onnx model.pruned.onnx --data inputs.npz --bench --bench-rounds 5");
  AddFlags(*sub, *flags);
  return [flags] { return Run(*flags); };
}

}  // namespace hone::cli
