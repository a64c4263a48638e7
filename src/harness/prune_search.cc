#include "harness/prune_search.h"

#include <map>

#include <fmt/format.h>

#include "base/scratch_dir.h"
#include "harness/speed_comparison.h"
#include "onnx/prune.h"

namespace hone::harness {
namespace {

// "channels 16/32, neurons 32/64, heads 8/12": the units a pruned model kept, summed per kind.
std::string KeptCounts(const onnx::PruneSummary& s) {
  std::map<onnx::PrunedUnit, std::pair<int64_t, int64_t>> kept;
  for (const auto& b : s.blocks) {
    kept[b.unit].first += b.kept;
    kept[b.unit].second += b.width;
  }
  std::string text;
  for (const auto& [unit, k] : kept)
    text += fmt::format("{}{} {}/{}", text.empty() ? "" : ", ",
                        unit == onnx::PrunedUnit::kNeuron ? "neurons"
                        : unit == onnx::PrunedUnit::kHead ? "heads"
                                                          : "channels",
                        k.first, k.second);
  return text;
}

}  // namespace

Status PruneSearchSettings::Validate() const {
  if (!(target_speedup > 1))
    return Status::InvalidArgument(
        fmt::format("--target-speedup {:g}: expected a throughput ratio above 1 (1.5: half as fast again)",
                    target_speedup));
  if (ratios.empty()) return Status::InvalidArgument("--target-speedup: no shares to try");
  for (double r : ratios)
    if (!(r > 0 && r < 1)) return Status::InvalidArgument(fmt::format("share {:g}: expected in (0, 1)", r));
  onnx::PruneOptions probe = prune;
  probe.ratio = ratios.front();
  return probe.Validate();
}

Result<PruneSearchResult> SearchPruneRatio(const PruneSearchSettings& settings) {
  HONE_RETURN_IF_ERROR(settings.Validate());
  ScratchDir dir("hone_prune_search");
  PruneSearchResult result;
  std::string previous_kept;
  if (settings.progress) settings.progress->Start(settings.ratios.size());
  for (size_t i = 0; i < settings.ratios.size(); ++i) {
    PruneSearchStep step;
    step.ratio = settings.ratios[i];
    onnx::PruneOptions options = settings.prune;
    options.ratio = step.ratio;
    const std::string path = dir.File(fmt::format("share{}.onnx", i));
    HONE_ASSIGN_OR_RETURN(onnx::PruneSummary summary, onnx::PruneFile(settings.source_path, path, options));
    step.pruned = !summary.blocks.empty();
    step.kept = KeptCounts(summary);
    if (!step.pruned) {
      step.note = "nothing to prune at this share (the rounding keeps every unit)";
    } else if (step.kept == previous_kept) {
      step.note = "the same counts as the share before: the same model";
    } else {
      SpeedComparisonSettings speed;
      speed.source_path = settings.source_path;
      speed.variant_path = path;
      speed.inputs = settings.inputs;
      speed.session = settings.session;
      speed.rounds = settings.rounds;
      speed.window_s = settings.window_s;
      speed.batch = settings.batch;
      HONE_ASSIGN_OR_RETURN(SpeedComparison measured, CompareSpeed(speed));
      step.measured = true;
      step.speedup = measured.throughput_ratio;
      step.speedup_min = measured.throughput_ratio_min;
      step.speedup_max = measured.throughput_ratio_max;
      step.note = measured.verdict_detail;
      previous_kept = step.kept;
    }
    if (settings.progress)
      settings.progress->StepDone(i + 1, step.measured ? fmt::format("share {:g} ({}): {:.2f}x ({:.2f}x-{:.2f}x)", step.ratio,
                                                              step.kept, step.speedup, step.speedup_min,
                                                              step.speedup_max)
                                                : fmt::format("share {:g}: {}", step.ratio, step.note));
    const bool reached = step.measured && step.speedup >= settings.target_speedup;
    result.steps.push_back(std::move(step));
    if (reached) {
      result.chosen = settings.ratios[i];
      break;
    }
  }
  return result;
}

}  // namespace hone::harness
