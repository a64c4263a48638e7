// hone convert MODEL -o OUT --to fp16|bf16: writes the low-precision variant (op types ONNX Runtime's CPU provider
// cannot run in that type stay FP32), then (unless --no-verify) compares it with the source, evaluates it when the
// data has labels, and benchmarks both. Exit 0 when the variant passes, 1 when it misses a tolerance or gate, 2 on
// bad usage or input.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "base/staged_output.h"
#include "cli/commands.h"
#include "cli/report_output.h"
#include "cli/variant_flags.h"
#include "onnx/convert.h"
#include "onnx/transform_summary_json.h"

namespace hone::cli {
namespace {

struct ConvertFlags {
  std::string model, output, to = "fp16";
  onnx::ConvertOptions options;
  bool convert_io = false;
  VariantFlags verify;
};

void AddFlags(CLI::App& sub, ConvertFlags& f) {
  sub.add_option("model", f.model, "the float .onnx model")->required();
  sub.add_option("-o,--output", f.output, "where to write the converted .onnx model")->required();
  sub.add_option("--to", f.to, "fp16 or bf16")->capture_default_str();
  sub.add_flag("--convert-io", f.convert_io,
               "give the graph's FP32 inputs and outputs the target type too (default: they stay FP32, so "
               "that clients send and receive what they did)");
  sub.add_option("--block-ops", f.options.block_ops,
                 "op types kept FP32 (list; replaces the default: Softmax, normalizations, reductions, Exp, Log, "
                 "Pow, Sqrt, Reciprocal, CumSum, Range)")
      ->delimiter(',');
  sub.add_option("--block-nodes", f.options.block_nodes, "node names kept FP32 (list)")->delimiter(',');
  AddVariantFlags(sub, f.verify);
}

int Run(ConvertFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "hone convert: " << s.message() << "\n";
    return kExitUsage;
  };
  auto to = onnx::ParseLowPrecision(f.to);
  if (!to) return fail(Status::InvalidArgument("--to '" + f.to + "': expected fp16 or bf16"));
  f.options.to = *to;
  f.options.keep_io_types = !f.convert_io;
  if (f.options.keep_io_types == false && !f.verify.no_verify)
    return fail(Status::InvalidArgument("--convert-io changes the inputs' types, so the source's data no longer "
                                        "fits the variant: add --no-verify"));
  if (Status st = RouteReports({{"--json", f.verify.json_path}}, {f.model, f.output, f.verify.data.data_path});
      !st.ok())
    return fail(st);
  auto staged = StagedOutput::Create(f.output, f.model);
  if (!staged.ok()) return fail(staged.status());
  auto summary = onnx::ConvertFile(f.model, staged->path(), f.options);
  if (!summary.ok()) return TransformFailed(summary.status(), *staged, f.output, "hone convert");
  const onnx::ConvertSummary& s = *summary;
  std::cout << fmt::format("hone convert: {} -> {}\n  {}\n", f.model, f.output,
                           onnx::DescribeConversion(f.options, s));
  std::cout << fmt::format("  {} node(s) compute in {}; {} initializer(s) converted; {} Cast(s) inserted, {} folded\n",
                           s.converted_nodes, onnx::LowPrecisionName(f.options.to), s.converted_initializers,
                           s.casts_inserted, s.casts_folded);
  if (!s.no_kernel_ops.empty()) {
    std::cout << "  kept FP32, no ONNX Runtime CPU kernel in " << onnx::LowPrecisionName(f.options.to) << ":";
    for (const auto& op : s.no_kernel_ops) std::cout << " " << op;
    std::cout << "\n";
  }
  for (size_t i = 0; i < s.kept_float.size() && i < 20; ++i) std::cout << "  kept FP32: " << s.kept_float[i] << "\n";
  if (s.kept_float.size() > 20) std::cout << "  kept FP32: ... (" << s.kept_float.size() - 20 << " more)\n";
  if (s.converted_nodes == 0 && s.converted_initializers == 0) {
    std::cerr << "hone convert: nothing to convert: no node or weight of " << f.model << " changed to "
              << onnx::LowPrecisionName(f.options.to) << ", so no variant was written to '" << f.output << "'\n";
  }
  const VariantReport report{"convert", f.model, f.output, onnx::ConvertSummaryToJson(f.options, s)};
  if (s.converted_nodes == 0 && s.converted_initializers == 0)
    return FinishVariantReport(f.verify, report, false, "nothing changed", nullptr, kExitCheckFailed);
  harness::VariantCheck check;
  return CommitAndVerify(*staged, report, f.verify, check, "hone convert");
}

}  // namespace

Command AddConvertCommand(CLI::App& app) {
  auto flags = std::make_shared<ConvertFlags>();
  CLI::App* sub = app.add_subcommand("convert", "convert a model's weights and compute to FP16 or BF16, then verify "
                                                "and measure the variant");
  sub->footer("Examples:\n"
                 "  hone convert models/fashion_mnist/model.onnx -o model.fp16.onnx --to fp16 --data models/fashion_mnist/test.npz");
  AddFlags(*sub, *flags);
  return [flags] { return Run(*flags); };
}

}  // namespace hone::cli
