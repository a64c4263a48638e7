// hone prune MODEL -o OUT --ratio R --calibration-data D: removes that share of every feed-forward block's neurons
// and of every Conv's output channels it can follow, refits each block's last layer on the calibration activations, then (unless --no-verify) compares the variant
// with the source on held-out data, evaluates it when the data has labels or gates are given, and benchmarks both.
// Exit 0 when the variant passes, 1 when it misses a tolerance, gate or the speed verdict (it is kept for inspection)
// or when nothing could be pruned (nothing is written then), 2 on bad usage or input.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "base/progress.h"
#include "base/staged_output.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/report_output.h"
#include "cli/variant_flags.h"
#include "harness/prune_search.h"
#include "harness/variant_check.h"
#include "onnx/prune.h"
#include "onnx/transform_summary_json.h"

namespace hone::cli {
namespace {

struct PruneFlags {
  std::string model, output;
  onnx::PruneOptions options;
  double target_speedup = 0;  // 0: --ratio says the share
  std::string allocation = "uniform";
  VariantFlags verify;
};

void AddFlags(CLI::App& sub, PruneFlags& f) {
  onnx::PruneOptions& o = f.options;
  sub.add_option("model", f.model, "the float .onnx model")->required();
  sub.add_option("-o,--output", f.output, "where to write the pruned .onnx model")->required();
  CLI::Option* ratio =
      sub.add_option("--ratio", o.ratio,
                     "share of each feed-forward block's neurons and each Conv's output channels to remove, in [0, 1)")
          ->capture_default_str();
  sub.add_option("--target-speedup", f.target_speedup,
                 "choose the share instead: the gentlest of 0.125, 0.25, ... 0.75 whose model measures at least this "
                 "throughput ratio against the source (side by side, --bench-rounds rounds each)")
      ->excludes(ratio);
  sub.add_option("--head-ratio", o.head_ratio,
                 "share of each attention block's heads to remove, in [0, 1) (0: heads untouched)")
      ->capture_default_str();
  sub.add_option("--keep-multiple", o.keep_multiple, "round the neurons kept to a multiple of this")
      ->capture_default_str();
  sub.add_option("--allocation", f.allocation,
                 "how the neurons kept are shared among feed-forward blocks: uniform (each keeps its share) or global "
                 "(the same total, fewer where removing costs least)")
      ->check(CLI::IsMember({"uniform", "global"}))
      ->capture_default_str();
  sub.add_option("--channel-multiple", o.channel_multiple,
                 "round the Conv channels kept to a multiple of this (0: ONNX Runtime's channel block on this CPU, "
                 "16 with AVX-512, 8 without)")
      ->capture_default_str();
  sub.add_option("--calibration-data", o.calibration_inputs.data_path,
                 "dataset whose activations choose the neurons and refit the weights (.npz with an array per "
                 "input, as bench's --data)")
      ->required();
  sub.add_option("--calibration-samples", o.calibration_samples,
                 "calibrate on the first N samples (0: all); when --data is the same file, the rest verify")
      ->capture_default_str();
  sub.add_option("--calibration-batch", o.calibration_batch, "samples per calibration run")->capture_default_str();
  AddVariantFlags(sub, f.verify);
}

void PrintSummary(const PruneFlags& f, const onnx::PruneSummary& s) {
  const bool channels = s.blocks_of(onnx::PrunedUnit::kChannel) > 0;
  std::string what =
      f.options.ratio > 0
          ? fmt::format("{}, ratio {:g}", channels ? fmt::format("Conv output channels (kept in multiples of {}) and feed-forward neurons", f.options.ChannelMultiple()) : "feed-forward neurons", f.options.ratio)
          : "";
  if (f.options.head_ratio > 0)
    what += fmt::format("{}attention heads, ratio {:g}", what.empty() ? "" : "; ", f.options.head_ratio);
  std::cout << fmt::format("hone prune: {} -> {}\n  {}; refit by least squares on {}\n", f.model, f.output, what,
                           s.calibration);
  for (const auto& b : s.blocks)
    std::cout << fmt::format("  {} -> {}: {} of {} {} kept; output error {:.2f}% refitted ({:.2f}% without)\n",
                             b.up_node, b.down_node, b.kept, b.width,
                             b.unit == onnx::PrunedUnit::kNeuron ? "neurons"
                             : b.unit == onnx::PrunedUnit::kHead ? "heads"
                                                                 : "channels",
                             100 * b.relative_error,
                             100 * b.relative_error_unrepaired);
  if (!s.blocks.empty())
    std::cout << fmt::format("  weights of the pruned layers: {} -> {} values ({:.0f}%)\n", s.weights_before,
                             s.weights_after, 100.0 * static_cast<double>(s.weights_after) /
                                                  static_cast<double>(std::max<int64_t>(s.weights_before, 1)));
  for (const auto& r : s.refused) std::cout << "  not pruned: " << r << "\n";
  for (const auto& w : s.warnings) std::cerr << "hone prune: warning: " << w << "\n";
}

// --target-speedup: measures the shares gentlest first and sets f.options.ratio to the first that is fast enough.
// kExitOk when one is; kExitCheckFailed (nothing written) when none is; kExitUsage on bad input.
int ChooseRatio(PruneFlags& f) {
  harness::PruneSearchSettings search;
  search.source_path = f.model;
  search.prune = f.options;
  search.target_speedup = f.target_speedup;
  // On the verification rows (held out, or the user's --data), else the calibration data: speed does not depend on
  // which rows, and the search is not the verification.
  search.inputs = f.verify.data.data_path.empty() ? f.options.calibration_inputs : f.verify.data;
  if (Status s = ApplyInputFlags(f.verify.data_flags, search.inputs); !s.ok()) {
    std::cerr << "hone prune: " << s.message() << "\n";
    return kExitUsage;
  }
  search.session.intra_op_threads = f.verify.intra_op_threads;
  search.rounds = f.verify.bench_rounds;
  search.window_s = f.verify.bench_window_ms / 1000.0;
  search.batch = f.verify.bench_batch;
  std::unique_ptr<Progress> progress = f.verify.quiet ? nullptr : Progress::ForStderr("--target-speedup");
  search.progress = progress.get();
  auto found = harness::SearchPruneRatio(search);
  if (progress) progress->Finish();
  if (!found.ok()) {
    std::cerr << "hone prune: " << found.status().message() << "\n";
    return found.status().code() == StatusCode::kInternal ? kExitCheckFailed : kExitUsage;
  }
  std::cout << fmt::format("hone prune: --target-speedup {:g}: shares tried gentlest first, each measured against the "
                           "source in {} alternating rounds (throughput ratio, median and range)\n",
                           f.target_speedup, search.rounds);
  const harness::PruneSearchStep* fastest = nullptr;
  for (const auto& step : found->steps) {
    if (step.measured)
      std::cout << fmt::format("  share {:<6g} {}: {:.2f}x ({:.2f}x-{:.2f}x)\n", step.ratio, step.kept, step.speedup,
                               step.speedup_min, step.speedup_max);
    else
      std::cout << fmt::format("  share {:<6g} {}\n", step.ratio, step.note);
    if (step.measured && (!fastest || step.speedup > fastest->speedup)) fastest = &step;
  }
  if (!found->chosen) {
    std::cerr << fmt::format("hone prune: no share up to {:g} reached {:g}x{}; nothing was written to '{}'\n",
                             search.ratios.back(), f.target_speedup,
                             fastest ? fmt::format(" (the fastest measured: {:.2f}x at share {:g})", fastest->speedup,
                                                   fastest->ratio)
                                     : std::string(),
                             f.output);
    return kExitCheckFailed;
  }
  std::cout << fmt::format("  chosen: share {:g}, the gentlest that reached {:g}x\n", *found->chosen, f.target_speedup);
  f.options.ratio = *found->chosen;
  return kExitOk;
}

int Run(PruneFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "hone prune: " << s.message() << "\n";
    return kExitUsage;
  };
  f.options.calibration_threads = f.verify.intra_op_threads;
  f.options.allocation = f.allocation == "global" ? onnx::PruneOptions::Allocation::kGlobal
                                                  : onnx::PruneOptions::Allocation::kUniform;
  if (Status s = f.options.Validate(); !s.ok()) return fail(s);
  if (Status s = RouteReports({{"--json", f.verify.json_path}},
                              {f.model, f.output, f.verify.data.data_path, f.options.calibration_inputs.data_path});
      !s.ok())
    return fail(s);
  auto staged = StagedOutput::Create(f.output, f.model);
  if (!staged.ok()) return fail(staged.status());
  harness::VariantCheck check;
  // Verification data must not be the rows the weights were refitted on.
  ScratchFile held_out;
  if (Status s = HoldOutCalibrationRows(f.verify, f.options.calibration_inputs.data_path,
                                        f.options.calibration_samples, held_out, check);
      !s.ok())
    return fail(s);
  if (f.target_speedup != 0) {
    const int code = ChooseRatio(f);
    if (code != kExitOk) return code;
  }
  std::unique_ptr<Progress> progress = f.verify.quiet ? nullptr : Progress::ForStderr("calibration batch");
  f.options.progress = progress.get();
  auto summary = onnx::PruneFile(f.model, staged->path(), f.options);
  if (progress) progress->Finish();
  if (!summary.ok()) return TransformFailed(summary.status(), *staged, f.output, "hone prune");
  PrintSummary(f, *summary);
  const VariantReport report{"prune", f.model, f.output, onnx::PruneSummaryToJson(f.options, *summary)};
  if (summary->blocks.empty()) {
    std::cerr << "hone prune: nothing to prune: " << f.model << " has no feed-forward block, attention block or Conv hone can prune"
              << (summary->refused.empty() ? "" : " (see 'not pruned' above)") << ", so no variant was written to '"
              << f.output << "'\n";
    return FinishVariantReport(f.verify, report, false, "nothing changed", nullptr, kExitCheckFailed);
  }
  return CommitAndVerify(*staged, report, f.verify, check, "hone prune");
}

}  // namespace

Command AddPruneCommand(CLI::App& app) {
  auto flags = std::make_shared<PruneFlags>();
  CLI::App* sub = app.add_subcommand(
      "prune", "remove a share of a transformer's feed-forward neurons and attention heads, or of a CNN's Conv "
               "channels, refit the weights on calibration data, then verify and measure the variant");
  sub->footer("Examples:\n"
              "  hone prune encoder.onnx -o encoder.pruned.onnx --ratio 0.25 --calibration-data texts.npz "
              "--calibration-samples 1000 --data texts.npz --min-cosine 0.95 --gate 'cosine_mean>=0.98'\n"
              "  hone prune encoder.onnx -o encoder.heads.onnx --ratio 0 --head-ratio 0.25 --calibration-data cal.npz "
              "--data held_out.npz --min-cosine 0.95\n"
              "  hone prune cnn.onnx -o cnn.pruned.onnx --ratio 0.5 --calibration-data train.npz "
              "--calibration-samples 1000 --data test.npz --max-accuracy-drop 0.01\n"
              "  hone prune cnn.onnx -o cnn.pruned.onnx --target-speedup 1.3 --calibration-data test.npz "
              "--calibration-samples 1000 --data test.npz --min-cosine 0.99 --max-range-error 0.2");
  AddFlags(*sub, *flags);
  return [flags] { return Run(*flags); };
}

}  // namespace hone::cli
