// hone tune MODEL --data D.npz --slo ... -o OUT/: the whole workflow (tune/tune_runner.h). This file only turns
// flags into TuneSettings and prints what the runner returns.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "base/log.h"
#include "base/progress.h"
#include "bench/interrupt.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/report_output.h"
#include "cli/tolerance_flags.h"
#include "tune/capacity.h"
#include "tune/tune_runner.h"

namespace hone::cli {

Command AddTuneCommand(CLI::App& app) {
  struct Flags {
    std::string model, out, budget = "10m", protocol = "http", search = "staged";
    runtime::InputOptions inputs;
    InputFlags input_flags;
    std::vector<std::string> slos, perturb;
    std::string slice;
    std::string gates;
    std::string output;
    std::string expected_load;
    double cost_per_hour = 0;
    bool quick = false, quiet = false, server_log = false;
    ToleranceFlags tolerance;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* sub = app.add_subcommand(
      "tune", "the whole job: baseline, profile, batching, graph, threads, precision, compression, each gated; a report and a "
              "model repository that hone serve serves as is");
  sub->add_option("model", flags->model, "the .onnx file (never modified)")->required();
  AddInputFlags(*sub, flags->inputs, flags->input_flags);
  sub->get_option("--data")->description(
      ".npz with an array per model input (and labels for the quality gates); the first quarter of its rows (at "
      "most 512) calibrate static INT8, the rest are held out for every trial and gate. Without it, 256 rows are "
      "generated from the model (--shape, --range, --seed) and outputs are checked against the source's");
  sub->add_option("--slo", flags->slos,
                  "PERCENTILE<=BOUND@LOAD, e.g. 'p99<=5ms@concurrency=8' or 'p95<=20ms@rate=2000' (repeatable; all "
                  "must hold). None: maximise throughput at concurrency 8");
  sub->add_option("--gate", flags->gates,
                  "quality gates against the original model on held-out rows, e.g. "
                  "'accuracy_drop<=0.01,prediction_agreement>=0.99' (default accuracy_drop<=0.01 with labels)");
  sub->add_option("--output-name", flags->output,
                  "the output the gates evaluate, as hone evaluate's (default: the model's first): an encoder's "
                  "pooled embedding rather than its per-token states, say");
  sub->add_option("--slice", flags->slice,
                  "the dataset array of group ids, for gates on slices (worst_slice_drop<=0.03), as hone evaluate");
  sub->add_option("--perturb", flags->perturb,
                  "KIND:AMOUNT[,AMOUNT...] input perturbations for robustness gates, as hone evaluate (e.g. "
                  "gaussian:0.05 with --gate 'accuracy_drop@gaussian:0.05<=0.02'); repeatable");
  sub->add_option("--budget", flags->budget, "wall time for the whole run: 90s, 15m, 1h")->capture_default_str();
  sub->add_option("--protocol", flags->protocol, "how trials reach hone serve: http or grpc")
      ->check(CLI::IsMember({"http", "grpc"}))
      ->capture_default_str();
  sub->add_option("--cost-per-hour", flags->cost_per_hour, "the machine's price per hour, for cost per 1,000");
  sub->add_option("--expected-load", flags->expected_load,
                  "rate=R (requests/s) or concurrency=N: the traffic to size the deployment for; the report gives the "
                  "replicas it needs from what one replica holds within each SLO, and OUT/deploy/ asks for them");
  sub->add_option("-o,--out", flags->out, "folder for report.json, report.html and repository/ (must not hold them)")
      ->required();
  // How close every variant's outputs and the served winner's must stay to the source's (hone compare's rules):
  // pruning, a lossy step, passes only where the user says how much it may move them.
  AddToleranceFlags(*sub, flags->tolerance);
  sub->add_flag("--quick", flags->quick, "shorter windows and fewer candidates (demos, tests)");
  sub->add_option("--search", flags->search,
                  "staged: the stages in order of risk, each from the best so far; exhaustive: every combination "
                  "the stages could reach (hundreds of trials; writes the best three to OUT/top/ as well), the "
                  "yardstick that scripts/prove-tune measures the staged search against")
      ->check(CLI::IsMember({"staged", "exhaustive"}))
      ->capture_default_str();
  sub->add_flag("-q,--quiet", flags->quiet, "no progress on standard error");
  sub->add_flag("--server-log", flags->server_log,
                "the trial servers' information lines (model loads, thread splits) on standard error; warnings and "
                "errors are always shown");
  sub->footer(
      "Examples:\n"
      "  hone tune models/fashion_mnist/model.onnx --data models/fashion_mnist/test.npz \\\n"
      "      --slo 'p99<=5ms@concurrency=8' --budget 5m -o out/tune\n"
      "  hone serve --model-repository out/tune/repository\n"
      "Exit codes: 0 every SLO and gate met, 1 not met (the report says why), 2 bad usage, 130 interrupted.");
  return [flags] {
    auto fail = [](const Status& s) {
      std::cerr << "hone tune: " << s.message() << "\n";
      return kExitUsage;
    };
    tune::TuneSettings settings;
    settings.model_path = flags->model;
    settings.inputs = flags->inputs;
    if (Status s = ApplyInputFlags(flags->input_flags, settings.inputs); !s.ok()) return fail(s);
    settings.out_dir = flags->out;
    settings.quick = flags->quick;
    settings.search = flags->search == "exhaustive" ? tune::SearchMode::kExhaustive : tune::SearchMode::kStaged;
    settings.cost_per_hour = flags->cost_per_hour;
    settings.protocol = flags->protocol == "grpc" ? bench::RemoteProtocol::kGrpc : bench::RemoteProtocol::kHttp;
    for (const std::string& text : flags->slos) {
      auto slo = tune::ParseSlo(text);
      if (!slo.ok()) return fail(slo.status());
      settings.slos.push_back(*slo);
    }
    if (!flags->gates.empty()) {
      auto gates = check::ParseGates(flags->gates);
      if (!gates.ok()) return fail(gates.status());
      settings.gates = *gates;
    }
    settings.slice_key = flags->slice;
    settings.output = flags->output;
    if (Status s = ApplyToleranceFlags(flags->tolerance, settings.tolerances); !s.ok()) return fail(s);
    if (!flags->expected_load.empty()) {
      auto expected = tune::ParseExpectedLoad(flags->expected_load);
      if (!expected.ok()) return fail(expected.status());
      if (settings.slos.empty())
        return fail(Status::InvalidArgument("--expected-load needs an --slo: the replicas are counted from what one "
                                            "replica holds within it"));
      settings.expected_load = *expected;
    }
    for (const std::string& p : flags->perturb) {
      auto parsed = check::ParsePerturbations(p);
      if (!parsed.ok()) return fail(parsed.status());
      settings.perturbations.insert(settings.perturbations.end(), parsed->begin(), parsed->end());
    }
    auto budget = tune::ParseBudgetSeconds(flags->budget);
    if (!budget.ok()) return fail(budget.status());
    settings.budget_s = *budget;
    settings.argv = Invocation().argv;
    // Each trial starts and stops a server in this process: its load lines would bury the progress.
    if (!flags->server_log) SetMinLogLevel(LogLevel::kWarning);
    std::unique_ptr<Progress> progress = flags->quiet ? nullptr : Progress::ForStderr("step");
    size_t step = 0;
    if (progress) {
      progress->Start(0);
      settings.progress = [&](const std::string& text) { progress->StepDone(++step, text); };
    }
    bench::InterruptScope interrupt;
    settings.stop = interrupt.flag();
    auto outcome = tune::RunTune(settings);
    if (progress) progress->Finish();
    if (!outcome.ok()) return fail(outcome.status());
    std::cout << outcome->summary;
    std::cout << "  report: " << flags->out << "/report.json, " << flags->out << "/report.html\n"
              << "  serve it: hone serve --model-repository " << flags->out << "/repository\n";
    return outcome->exit_code;
  };
}

}  // namespace hone::cli
