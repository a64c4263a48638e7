// The compression stage, the last and riskiest: structured pruning of the user's model (hone prune: a share of every
// feed-forward block's neurons and every Conv's output channels removed, the next layer refitted by least squares on
// the calibration rows), at a quarter and at a half, and each pruned model quantized again the way the incumbent was when the precision stage
// chose dynamic INT8, so that the two compound. Every variant is verified against the user's model (outputs within
// the run's tolerances, the gates, not slower), then searched against the incumbent through hone serve.
#include <fmt/format.h>

#include <filesystem>

#include "onnx/prune.h"
#include "onnx/quantize.h"
#include "tune/tune_state.h"

namespace hone::tune {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

// The shares tried, gentlest first: a quarter loses little quality on the encoders measured (all-MiniLM-L6-v2:
// embedding cosine 0.989 to the source), a half buys more speed at a larger loss (0.965).
constexpr double kRatios[] = {0.25, 0.5};

}  // namespace

std::vector<PrecisionVariant> PlanCompressionVariants(TuneState& state, std::string* skip_reason) {
  std::vector<PrecisionVariant> variants;
  const TuneSettings& settings = *state.given.settings;
  if (settings.inputs.data_path.empty() || state.given.calibration_rows == 0) {
    *skip_reason = "pruning refits the weights on real activations: it needs --data with rows to calibrate on";
    return variants;
  }
  if (!state.ledger.compute_first) {
    *skip_reason = state.ledger.profile.profile
                       ? "the profile says Conv/MatMul/Gemm are not where the time goes: removing channels or neurons "
                         "would remove little of it"
                       : "no profile to say Conv/MatMul/Gemm are where the time goes (see the profile stage)";
    return variants;
  }
  auto blocks = onnx::FindPrunableInFile(settings.model_path);
  if (!blocks.ok()) {
    *skip_reason = "the model could not be searched for blocks to prune: " + blocks.status().message();
    return variants;
  }
  for (const std::string& r : blocks->refused) state.ledger.skipped.push_back({"compression", "pruning", r});
  if (blocks->ffn_blocks == 0 && blocks->conv_blocks == 0) {
    *skip_reason = "the model has no feed-forward block (MatMul, elementwise activation, MatMul) or Conv whose "
                   "channels hone prune can follow";
    return variants;
  }
  const char* structure = blocks->conv_blocks > 0 ? "conv" : "ffn";
  const std::string source = settings.model_path;
  // Quantized again as the incumbent was: only plain dynamic INT8 is repeated here. A dynamic INT8 incumbent whose
  // fallback kept nodes in FP32 (its id says how many) would need those exclusions carried over, which they are not.
  const Candidate& incumbent = state.ledger.incumbent;
  const bool compound = incumbent.precision == "int8-dynamic" && incumbent.id.find("-fp32x") == std::string::npos;
  if (incumbent.precision != "fp32" && !compound)
    state.ledger.skipped.push_back({"compression", "pruned and quantized as the incumbent",
                                    "the incumbent is " + incumbent.id +
                                        ": only a plain dynamic INT8 incumbent is repeated on the pruned model; the "
                                        "pruned float variants still compete"});
  for (double ratio : kRatios) {
    onnx::PruneOptions prune;
    prune.ratio = ratio;
    prune.calibration_inputs = settings.inputs;
    prune.calibration_samples = state.given.calibration_rows;
    const int percent = static_cast<int>(ratio * 100);
    const std::string id = fmt::format("prune-{}-{}", structure, percent);
    const int risk = 15 + static_cast<int>(ratio * 8);  // riskier than any precision variant, and more with the share
    PrecisionVariant pruned;
    pruned.id = id;
    pruned.what = fmt::format("{}% of the {} pruned, refitted on rows 0..{}", percent,
                              blocks->conv_blocks > 0 ? "Conv channels and feed-forward neurons" : "feed-forward neurons",
                              state.given.calibration_rows - 1);
    pruned.risk = risk;
    pruned.precision = "fp32";
    pruned.compression = id;
    pruned.verify_against = source;
    // Always from the user's float model: the incumbent may be quantized, and pruning needs float weights.
    pruned.make = [prune, source](const std::string&, const std::string& path) -> Status {
      HONE_ASSIGN_OR_RETURN(onnx::PruneSummary summary, onnx::PruneFile(source, path, prune));
      if (summary.blocks.empty()) return Status::FailedPrecondition("no block could be pruned at this share");
      return Status::Ok();
    };
    variants.push_back(pruned);
    if (compound) {
      PrecisionVariant both = pruned;
      both.id = id + "+int8-dynamic";
      both.what = pruned.what + ", then dynamic INT8 as the incumbent";
      both.risk = risk + 10;
      both.precision = "int8-dynamic";
      both.make = [prune, source](const std::string&, const std::string& path) -> Status {
        const std::string pruned_path = path + ".pruned.onnx";
        HONE_ASSIGN_OR_RETURN(onnx::PruneSummary summary, onnx::PruneFile(source, pruned_path, prune));
        if (summary.blocks.empty()) return Status::FailedPrecondition("no block could be pruned at this share");
        onnx::QuantizeOptions dynamic;
        dynamic.mode = onnx::QuantizeMode::kDynamic;
        auto quantized = onnx::QuantizeFile(pruned_path, path, dynamic);
        std::error_code ec;
        fs::remove(pruned_path, ec);
        return quantized.status();
      };
      variants.push_back(both);
    }
  }
  return variants;
}

void RunCompressionStage(TuneState& state) {
  const auto started = Clock::now();
  if (state.stopped()) {
    state.ledger.stages.push_back(StageRecord::Of("compression", 7, StageStatus::kSkipped, "stopped"));
    return;
  }
  std::string skip_reason;
  const std::vector<PrecisionVariant> variants = PlanCompressionVariants(state, &skip_reason);
  if (variants.empty()) {
    state.ledger.stages.push_back(StageRecord::Of("compression", 7, StageStatus::kSkipped, skip_reason));
    return;
  }
  const auto verify_end = started + std::chrono::milliseconds(static_cast<int64_t>(600 * state.StageRoom(7)));
  std::vector<VariantCheckRecord> checks;
  std::vector<Candidate> candidates = {state.ledger.incumbent};
  for (Candidate& c :
       MakeVerifiedVariants(state, {"compression", 7, VariantChange::kCompression}, variants, verify_end, checks))
    candidates.push_back(std::move(c));
  const bool none_passed = candidates.size() < 2;
  SearchStage(state, "compression", 7, std::move(candidates));
  StageRecord& record = state.ledger.stages.back();
  record.variant_checks = checks;
  record.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  if (none_passed) {
    record.status = checks.empty() ? StageStatus::kSkipped : StageStatus::kNoGain;
    record.reason = checks.empty() ? "no pruned variant could be made in the budget (see skipped)"
                                   : "no pruned variant passed its verification against the source (see rejected)";
  }
}

}  // namespace hone::tune
