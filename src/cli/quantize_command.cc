// hone quantize MODEL -o OUT --mode dynamic|static|weight-only: writes the quantized variant, then (unless
// --no-verify) compares it with the source on held-out data, evaluates it when the data has labels, and benchmarks
// both. Exit 0 when the variant passes, 1 when it misses a tolerance, gate or the speed verdict (it is kept for
// inspection) or when nothing was quantized or the result does not load (nothing is written then), 2 on bad usage
// or input, an output path that is the input among them.
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "base/progress.h"
#include "base/staged_output.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/report_output.h"
#include "cli/variant_flags.h"
#include "harness/variant_check.h"
#include "onnx/quantize.h"
#include "onnx/transform_summary_json.h"

namespace hone::cli {
namespace {

struct QuantizeFlags {
  std::string model, output;
  std::string mode = "dynamic", dynamic_form = "integer", calibrate = "minmax", weight_range = "auto";
  onnx::QuantizeOptions options;
  bool per_tensor = false, asymmetric_weights = false, external_data = false;
  InputFlags calibration_input_flags;
  VariantFlags verify;
};

void AddFlags(CLI::App& sub, QuantizeFlags& f) {
  onnx::QuantizeOptions& o = f.options;
  sub.add_option("model", f.model, "the float .onnx model")->required();
  sub.add_option("-o,--output", f.output, "where to write the quantized .onnx model")->required();
  sub.add_option("--mode", f.mode, "dynamic (INT8 weights, activations at run time) | static (INT8 QDQ, calibrated) "
                                   "| weight-only (MatMulNBits, 4 or 8 bits)")
      ->capture_default_str();
  sub.add_option("--op-types", o.op_types, "op types to quantize (default: MatMul,Gemm,Conv; weight-only: MatMul, and Gather when named: "
                 "an embedding table in com.microsoft.GatherBlockQuantized)")
      ->delimiter(',');
  sub.add_option("--exclude-ops", o.exclude_op_types, "op types to keep in float (list)")->delimiter(',');
  sub.add_option("--exclude-nodes", o.exclude_nodes, "node names to keep in float (list)")->delimiter(',');
  sub.add_option("--nodes", o.nodes, "quantize only these node names (list; of the op types above)")->delimiter(',');
  sub.add_flag("--per-tensor", f.per_tensor, "one weight scale per tensor instead of one per output channel");
  sub.add_option("--weight-range", f.weight_range,
                 "auto|full|reduced: INT8 weights in 8 or 7 bits (auto: 7 on x86 CPUs without VNNI, whose u8 x s8 "
                 "kernels can saturate)")
      ->capture_default_str();
  sub.add_option("--dynamic-form", f.dynamic_form, "dynamic: integer (MatMulInteger/ConvInteger) | qdq")
      ->capture_default_str();
  sub.add_option("--calibration-data", o.calibration_inputs.data_path,
                 "static: dataset to calibrate on (.npz with an array per input, or .npy), as bench's --data");
  sub.add_option("--calibrate", f.calibrate, "static: minmax|percentile|entropy")->capture_default_str();
  sub.add_option("--percentile", o.percentile, "static, percentile: share of |x| kept in range, %")
      ->capture_default_str();
  sub.add_option("--calibration-samples", o.calibration_samples,
                 "static: calibrate on the first N samples (0: all); when --data is the same file, the rest verify")
      ->capture_default_str();
  sub.add_option("--calibration-batch", o.calibration_batch, "static: samples per calibration run")
      ->capture_default_str();
  sub.add_flag("--symmetric-activations", o.symmetric_activations,
               "static: INT8 activations centred on zero instead of UINT8 with a zero point");
  sub.add_option("--bits", o.bits, "weight-only: 4 or 8")->capture_default_str();
  sub.add_option("--block-size", o.block_size, "weight-only: 32, 64 or 128 weights per scale")->capture_default_str();
  sub.add_flag("--asymmetric", f.asymmetric_weights, "weight-only: a zero point per block as well");
  sub.add_flag("--block-offset", o.weight_only_block_offset,
               "weight-only: each block's minimum as a float offset (llama.cpp's Q4_1 layout; exact on weights "
               "dequantised from Q4_1), added back by a small MatMul on the input's block sums");
  sub.add_option("--accuracy-level", o.accuracy_level,
                 "weight-only: MatMulNBits accuracy_level (0 unset: float compute; 4: int8 compute)")
      ->capture_default_str();
  sub.add_flag("--external-data", f.external_data,
               "write the weights to OUTPUT.data beside the model, page-aligned, so that ONNX Runtime maps them "
               "from the file instead of copying them (less private memory: an LLM's served RSS)");
  AddVariantFlags(sub, f.verify);
}

Status Apply(QuantizeFlags& f) {
  onnx::QuantizeOptions& o = f.options;
  auto mode = onnx::ParseQuantizeMode(f.mode);
  if (!mode) return Status::InvalidArgument("--mode '" + f.mode + "': expected dynamic, static or weight-only");
  o.mode = *mode;
  auto form = onnx::ParseDynamicForm(f.dynamic_form);
  if (!form) return Status::InvalidArgument("--dynamic-form '" + f.dynamic_form + "': expected integer or qdq");
  o.dynamic_form = *form;
  auto method = onnx::ParseCalibrationMethod(f.calibrate);
  if (!method) return Status::InvalidArgument("--calibrate '" + f.calibrate + "': expected minmax, percentile or entropy");
  o.calibration = *method;
  if (f.weight_range == "auto") o.weight_range = onnx::QuantizeOptions::WeightRange::kAuto;
  else if (f.weight_range == "full") o.weight_range = onnx::QuantizeOptions::WeightRange::kFull;
  else if (f.weight_range == "reduced") o.weight_range = onnx::QuantizeOptions::WeightRange::kReduced;
  else return Status::InvalidArgument("--weight-range '" + f.weight_range + "': expected auto, full or reduced");
  o.per_channel = !f.per_tensor;
  o.weight_only_symmetric = !f.asymmetric_weights;
  o.calibration_threads = f.verify.intra_op_threads;
  if (o.mode != onnx::QuantizeMode::kStatic && !o.calibration_inputs.data_path.empty())
    return Status::InvalidArgument("--calibration-data is for --mode static; " + f.mode + " needs no calibration");
  return o.Validate();
}

void PrintSummary(const QuantizeFlags& f, const onnx::QuantizeSummary& s) {
  std::cout << fmt::format("hone quantize: {} -> {}\n  {}\n", f.model, f.output, onnx::DescribeQuantization(f.options));
  std::cout << fmt::format("  quantized {} node(s)", s.quantized.size());
  for (size_t i = 0; i < s.quantized.size() && i < 12; ++i) std::cout << (i ? ", " : ": ") << s.quantized[i];
  if (s.quantized.size() > 12) std::cout << ", ...";
  std::cout << "\n";
  if (s.subgraph_nodes_quantized > 0)
    std::cout << fmt::format("  {} of them inside If/Loop/Scan subgraphs\n", s.subgraph_nodes_quantized);
  if (s.opset_upgrade.upgraded()) std::cout << "  " << s.opset_upgrade.Describe() << "\n";
  for (const auto& k : s.skipped) std::cout << "  kept float: " << k << "\n";
  if (!s.calibration.empty()) std::cout << "  calibration: " << s.calibration << "\n";
  for (const auto& w : s.warnings) std::cerr << "hone quantize: warning: " << w << "\n";
}

int Run(QuantizeFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "hone quantize: " << s.message() << "\n";
    return kExitUsage;
  };
  if (Status s = Apply(f); !s.ok()) return fail(s);
  // Refused before anything is read or written: an output that would replace the model it comes from.
  if (Status s = RouteReports({{"--json", f.verify.json_path}},
                              {f.model, f.output, f.verify.data.data_path, f.options.calibration_inputs.data_path});
      !s.ok())
    return fail(s);
  auto staged = StagedOutput::Create(f.output, f.model);
  if (!staged.ok()) return fail(staged.status());
  harness::VariantCheck check;
  // Verification data must not be the calibration rows: when --data is the calibration file (or absent under
  // static mode), verify on the rows calibration did not use.
  ScratchFile held_out;
  if (f.options.mode == onnx::QuantizeMode::kStatic) {
    if (Status s = HoldOutCalibrationRows(f.verify, f.options.calibration_inputs.data_path,
                                          f.options.calibration_samples, held_out, check);
        !s.ok())
      return fail(s);
  }
  // Calibration runs the model over its dataset: show the batches as they go (--quiet: none).
  const bool calibrates = f.options.mode == onnx::QuantizeMode::kStatic;
  std::unique_ptr<Progress> progress =
      f.verify.quiet || !calibrates ? nullptr : Progress::ForStderr("calibration batch");
  f.options.progress = progress.get();
  auto summary = onnx::QuantizeFile(f.model, staged->path(), f.options,
                                    f.external_data ? onnx::WriteOptions::AlwaysExternal() : onnx::WriteOptions{});
  if (progress) progress->Finish();
  if (!summary.ok()) return TransformFailed(summary.status(), *staged, f.output, "hone quantize");
  PrintSummary(f, *summary);
  if (summary->quantized.empty()) {
    std::cerr << "hone quantize: nothing to quantize: no node of " << f.model << " was changed"
              << (summary->skipped.empty() ? " (no node of the selected op types)" : " (see 'kept float' above)")
              << ", so no variant was written to '" << f.output << "'\n";
  }
  const VariantReport report{"quantize", f.model, f.output, onnx::QuantizeSummaryToJson(f.options, *summary)};
  if (summary->quantized.empty())
    return FinishVariantReport(f.verify, report, false, "nothing changed", nullptr, kExitCheckFailed);
  return CommitAndVerify(*staged, report, f.verify, check, "hone quantize");
}

}  // namespace

Command AddQuantizeCommand(CLI::App& app) {
  auto flags = std::make_shared<QuantizeFlags>();
  CLI::App* sub = app.add_subcommand("quantize", "quantize a model (dynamic INT8, static INT8 QDQ, weight-only "
                                                 "4/8-bit), then verify and measure the variant");
  sub->footer("Examples:\n"
                 "  hone quantize models/fashion_mnist/model.onnx -o model.int8.onnx --mode dynamic --data models/fashion_mnist/test.npz\n"
                 "  hone quantize models/fashion_mnist/model.onnx -o model.qdq.onnx --mode static --calibration-data models/fashion_mnist/test.npz --calibration-samples 500 --data models/fashion_mnist/test.npz");
  AddFlags(*sub, *flags);
  return [flags] { return Run(*flags); };
}

}  // namespace hone::cli
