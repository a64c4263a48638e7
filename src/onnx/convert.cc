#include "onnx/convert.h"

#include <regex>
#include <set>

#include <fmt/format.h>

#include "base/scratch_dir.h"
#include "onnx/convert_cpu_kernels.h"
#include "onnx/convert_precision.h"
#include "onnx/graph_io.h"
#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/opset_convert.h"
#include "runtime/session.h"

namespace hone::onnx {
namespace {

// Loads `model` in ONNX Runtime (CPU); the op type it has no kernel for, "" when it loads, or an error otherwise.
Result<std::string> MissingKernel(const ::onnx::ModelProto& model) {
  ScratchDir scratch("hone_convert");  // the model is written only for ONNX Runtime to load it
  const std::string path = scratch.File("model.onnx");
  Status written = WriteModel(model, path);
  runtime::SessionOptions options;
  options.intra_op_threads = 1;
  options.graph_optimization = runtime::GraphOptimization::kBasic;
  auto session = written.ok() ? runtime::Session::Open(path, options)
                              : Result<std::unique_ptr<runtime::Session>>(written);
  if (session.ok()) return std::string();
  // ONNX Runtime's words: "Could not find an implementation for Softmax(13) node with name 'softmax_0'".
  static const std::regex kMissing(R"(Could not find an implementation for (\w+)\(\d+\) node)");
  std::smatch m;
  const std::string message = session.status().message();
  if (std::regex_search(message, m, kMissing)) return m[1].str();
  // The scratch file's path means nothing to the user; the node names in the message are the model's own or derived
  // from them ("<node>/cast_to_bf16").
  std::string cleaned = message;
  for (size_t at; (at = cleaned.find(path)) != std::string::npos;)
    cleaned.replace(at, path.size(), "<converted model>");
  return Status::Internal("the converted model does not load in ONNX Runtime: " + cleaned);
}

// The op types kept FP32 by choice: the user's list, or the defaults.
std::vector<std::string> BlockedOps(const ConvertOptions& o) {
  return o.block_ops.empty() ? DefaultBlockedOps() : o.block_ops;
}

}  // namespace

std::string_view LowPrecisionName(LowPrecision p) { return p == LowPrecision::kFp16 ? "fp16" : "bf16"; }

std::optional<LowPrecision> ParseLowPrecision(std::string_view text) {
  if (text == "fp16") return LowPrecision::kFp16;
  if (text == "bf16") return LowPrecision::kBf16;
  return std::nullopt;
}

std::vector<std::string> DefaultBlockedOps() {
  return {"Softmax",        "LogSoftmax",        "LayerNormalization", "BatchNormalization", "InstanceNormalization",
          "GroupNormalization", "ReduceMean",    "ReduceSum",          "ReduceSumSquare",    "ReduceL1",
          "ReduceL2",       "ReduceLogSum",      "ReduceLogSumExp",    "ReduceProd",         "Exp",
          "Log",            "Pow",               "Sqrt",               "Reciprocal",         "CumSum",
          "Range"};
}

std::string DescribeConversion(const ConvertOptions& o, const ConvertSummary& s) {
  std::string blocked;
  for (const auto& op : BlockedOps(o)) blocked += (blocked.empty() ? "" : ",") + op;
  std::string no_kernel;
  for (const auto& op : s.no_kernel_ops) no_kernel += (no_kernel.empty() ? "" : ",") + op;
  std::string upgraded;
  if (s.opset_upgrade.upgraded())
    upgraded = fmt::format(" opset={}->{}({})", s.opset_upgrade.from, s.opset_upgrade.to, s.opset_upgrade.reason);
  return fmt::format("to={} keep_io_types={} blocked={}{}{}", LowPrecisionName(o.to), o.keep_io_types ? "on" : "off",
                     blocked, no_kernel.empty() ? "" : " no_cpu_kernel=" + no_kernel, upgraded);
}

Result<ConvertSummary> ConvertModel(::onnx::ModelProto* model, const ConvertOptions& options) {
  OpsetUpgrade upgrade;
  if (options.to == LowPrecision::kBf16) {
    HONE_ASSIGN_OR_RETURN(upgrade, UpgradeOpset(model, kBf16MinOpset, "BF16 type constraints"));
  }
  RewriteScope scope;
  HONE_RETURN_IF_ERROR(BeginRewrite(model, &scope));
  const std::vector<std::string> chosen = BlockedOps(options);
  std::set<std::string> blocked(chosen.begin(), chosen.end());
  const ::onnx::ModelProto prepared = *model;
  std::vector<std::string> no_kernel;
  // Each round converts the prepared model afresh; a round that ONNX Runtime cannot load names one op type it has
  // no kernel for, which the next round keeps FP32. Bounded by the number of op types in the model.
  for (int round = 0;; ++round) {
    *model = prepared;
    ConvertSummary summary;
    summary.no_kernel_ops = no_kernel;
    summary.opset_upgrade = upgrade;
    std::set<std::string> inserted;
    HONE_RETURN_IF_ERROR(ConvertPrecision(model, options, blocked, &summary, &inserted));
    summary.casts_folded = FoldCasts(model, inserted);
    HONE_RETURN_IF_ERROR(FinishRewrite(model, scope, "hone.convert", DescribeConversion(options, summary)));
    if (!options.check_kernels) return summary;
    HONE_ASSIGN_OR_RETURN(std::string missing, MissingKernel(*model));
    if (missing.empty()) return summary;
    if (blocked.count(missing) || round > 200)
      return Status::Internal("ONNX Runtime has no kernel for " + missing + " even when hone keeps it in FP32");
    blocked.insert(missing);
    no_kernel.push_back(missing);
  }
}

Result<ConvertSummary> ConvertFile(const std::string& input_path, const std::string& output_path,
                                   const ConvertOptions& options) {
  ::onnx::ModelProto model;
  HONE_RETURN_IF_ERROR(LoadModelForRewrite(input_path, &model));
  HONE_ASSIGN_OR_RETURN(ConvertSummary summary, ConvertModel(&model, options));
  HONE_RETURN_IF_ERROR(SaveAndLoadCheck(model, output_path));
  return summary;
}

}  // namespace hone::onnx
