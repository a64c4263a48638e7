// hone evaluate MODEL --data test.npz: task quality (classification, embedding or regression), calibration,
// slices, robustness under perturbations and numerical stability; with --against, the deltas that --gate checks.
// Exit 0 when every gate passes (or none is given), 1 when one fails, 2 on bad usage.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "base/progress.h"
#include "bench/report.h"
#include "check/evaluate_report.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/report_output.h"
#include "harness/served_evaluate.h"
#include "onnx/model_json.h"
#include "report/system_info.h"

namespace hone::cli {
namespace {

struct EvaluateFlags {
  check::EvaluateSettings settings;
  InputFlags inputs;
  RuntimeFlags runtime_raw;
  bench::RuntimeSweep runtime;
  std::string task = "auto", scores = "auto";
  std::vector<std::string> perturb, gates;
  std::string json_path;
  bool quiet = false;
  std::string repository, against_repository, labels_file;  // a repository's model, served in this process
};

void AddFlags(CLI::App& sub, EvaluateFlags& f) {
  check::EvaluateSettings& s = f.settings;
  check::TaskOptions& t = s.task_options;
  sub.add_option("model", s.model_path, "the .onnx file; with --model-repository, the model's name")->required();
  sub.add_option("--model-repository", f.repository,
                 "evaluate the repository's model MODEL as hone serve runs it (an ensemble with its processing "
                 "stages), in this process, on raw inputs (--data texts.txt, a folder of images) or an .npz");
  sub.add_option("--against-repository", f.against_repository,
                 "with --model-repository: the reference, the same model name served from this repository "
                 "(embeddings: measured against it; classification: deltas)");
  sub.add_option("--labels-file", f.labels_file,
                 "with --model-repository: the classes of the samples, one integer a line in their order (a "
                 "folder's files sorted by name)");
  AddInputFlags(sub, s.inputs, f.inputs);
  sub.add_option("--batch", s.batch, "samples per run (default: the inputs' batch size, 1 for a dynamic one)");
  AddRuntimeFlags(sub, f.runtime, f.runtime_raw, RuntimeFlagUse::kSingleRun);
  sub.add_option("--task", f.task,
                 "auto|classification|embedding|regression (auto: integer labels -> classification, other "
                 "labels -> regression, no labels with --against -> embedding)")
      ->capture_default_str();
  sub.add_option("--output-name", s.output, "the model output to evaluate (default: the model's first)");
  sub.add_option("--labels", s.labels_key, "the dataset array with the labels or targets (default: label, labels, "
                                           "target, targets or y)");
  sub.add_option("--scores", f.scores, "classifier outputs are auto|logits|probabilities")->capture_default_str();
  sub.add_option("--top-k", t.classification.top_k, "k for top-k accuracy")->capture_default_str();
  sub.add_option("--ece-bins", t.classification.ece_bins, "equal-width confidence bins for ECE")
      ->capture_default_str();
  sub.add_option("--recall-k", t.embedding.recall_k, "neighbours for embedding recall@k")->capture_default_str();
  sub.add_option("--retrieval-samples", t.embedding.max_retrieval_samples,
                 "embedding retrieval and pairwise similarities use the first N samples (cost grows as N^2)")
      ->capture_default_str();
  sub.add_option("--slice", s.slice_key, "the dataset array of group ids: the headline metric per group");
  sub.add_option("--perturb", f.perturb,
                 "KIND:AMOUNT[,AMOUNT...]: gaussian (standard deviation in input units), brightness (added), "
                 "contrast (factor); repeatable, e.g. gaussian:0.01,0.05");
  sub.add_option("--perturb-seed", s.perturb_seed, "seed for perturbation noise")->capture_default_str();
  sub.add_option("--stability-epsilon", s.stability_epsilon,
                 "stability probe: gaussian noise of EPSILON x each input's range (0: off)")
      ->capture_default_str();
  sub.add_option("--against", s.against_path,
                 "a reference model, or its saved outputs (.npz/.npy): report deltas (embeddings: measure against "
                 "it)");
  sub.add_option("--gate", f.gates,
                 "conditions that must hold, e.g. 'accuracy_drop<=0.005,ece_increase<=0.01,worst_slice_drop<=0.01'; "
                 "exit 1 when one fails");
  sub.add_option("--json", f.json_path, "write the report as JSON to FILE (-: standard output, the text report then "
                                       "going to standard error)");
  sub.add_flag("--quiet", f.quiet, "no progress on standard error (the passes of each model over the dataset)");
}

Status Apply(EvaluateFlags& f) {
  check::EvaluateSettings& s = f.settings;
  HONE_RETURN_IF_ERROR(ApplyInputFlags(f.inputs, s.inputs));
  HONE_RETURN_IF_ERROR(ApplyRuntimeFlags(f.runtime_raw, f.runtime));
  HONE_ASSIGN_OR_RETURN(s.session, SingleSession(f.runtime, "evaluate"));
  auto task = check::ParseTask(f.task);
  if (!task) return Status::InvalidArgument("--task '" + f.task + "': expected auto, classification, embedding or "
                                            "regression");
  s.task = *task;
  auto scores = check::ParseScoreKind(f.scores);
  if (!scores) return Status::InvalidArgument("--scores '" + f.scores + "': expected auto, logits or probabilities");
  s.task_options.classification.scores = *scores;
  for (const auto& p : f.perturb) {
    HONE_ASSIGN_OR_RETURN(auto parsed, check::ParsePerturbations(p));
    s.perturbations.insert(s.perturbations.end(), parsed.begin(), parsed.end());
  }
  for (const auto& g : f.gates) {
    HONE_ASSIGN_OR_RETURN(auto parsed, check::ParseGates(g));
    s.gates.insert(s.gates.end(), parsed.begin(), parsed.end());
  }
  if (s.batch < 0) return Status::InvalidArgument("--batch: expected >= 1");
  if (s.task_options.classification.top_k < 1) return Status::InvalidArgument("--top-k: expected >= 1");
  if (s.task_options.classification.ece_bins < 1) return Status::InvalidArgument("--ece-bins: expected >= 1");
  if (s.task_options.embedding.recall_k < 1) return Status::InvalidArgument("--recall-k: expected >= 1");
  if (s.task_options.embedding.max_retrieval_samples < 2)
    return Status::InvalidArgument("--retrieval-samples: expected >= 2");
  if (!(s.stability_epsilon >= 0)) return Status::InvalidArgument("--stability-epsilon: expected >= 0");
  return Status::Ok();
}

int Run(EvaluateFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "hone evaluate: " << s.message() << "\n";
    return kExitUsage;
  };
  if (Status s = Apply(f); !s.ok()) return fail(s);
  const std::vector<std::string> inputs = {f.settings.model_path, f.settings.against_path,
                                           f.settings.inputs.data_path};
  if (Status s = RefuseOverwritingInputs({{"--save-optimized", f.runtime.save_optimized_path}}, inputs); !s.ok())
    return fail(s);
  if (Status s = RouteReports({{"--json", f.json_path}}, inputs); !s.ok()) return fail(s);
  std::unique_ptr<Progress> progress = f.quiet ? nullptr : Progress::ForStderr("pass");
  f.settings.progress = progress.get();
  const bool served = !f.repository.empty();
  if (!served && (!f.against_repository.empty() || !f.labels_file.empty()))
    return fail(Status::InvalidArgument("--against-repository and --labels-file need --model-repository"));
  if (served && !f.settings.against_path.empty())
    return fail(Status::InvalidArgument("with --model-repository the reference is --against-repository"));
  auto report = served ? harness::EvaluateServed({f.repository, f.settings.model_path, 0, f.against_repository,
                                               f.labels_file, f.settings})
                       : check::Evaluate(f.settings);
  if (progress) progress->Finish();
  if (!report.ok()) return fail(report.status());
  report->machine = report::DescribeMachine(report::ReadSystemInfo());
  std::cout << check::EvaluateReportToText(*report);
  int code = report->passed() ? kExitOk : kExitCheckFailed;
  if (!f.json_path.empty()) {
    Result<nlohmann::json> model =
        served ? Result<nlohmann::json>(onnx::ServedModelJson(f.settings.model_path, "in process: " + f.repository,
                                                              "in-process", runtime::ModelMetadata{}))
               : onnx::ModelFileJson(f.settings.model_path);
    Status s = model.ok() ? WriteJsonReport(f.json_path, "evaluate", *model, check::EvaluateReportToJson(*report))
                          : model.status();
    if (!s.ok()) code = fail(s);
  }
  return code;
}

}  // namespace

Command AddEvaluateCommand(CLI::App& app) {
  auto flags = std::make_shared<EvaluateFlags>();
  CLI::App* sub = app.add_subcommand(
      "evaluate", "measure a model's task quality on a labelled dataset: accuracy, calibration, slices, "
                  "robustness, stability; with --against and --gate, exit 1 when quality drops too far");
  sub->footer("Examples:\n"
                 "  hone evaluate models/fashion_mnist/model.onnx --data models/fashion_mnist/test.npz\n"
                 "  hone evaluate model.int8.onnx --data models/fashion_mnist/test.npz --against models/fashion_mnist/model.onnx --gate 'accuracy_drop<=0.005'\n"
                 "  hone evaluate fashion --model-repository examples/image-classification --output-name logits --data examples/image-classification/images/png --labels-file examples/image-classification/images/labels.txt");
  AddFlags(*sub, *flags);
  return [flags] { return Run(*flags); };
}

}  // namespace hone::cli
