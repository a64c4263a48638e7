#include "onnx/prune.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "onnx/exposed_tensors.h"
#include "onnx/graph_index.h"
#include "onnx/graph_rewrite.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx/prune_ffn_blocks.h"
#include "onnx/prune_repair.h"

namespace hone::onnx {
namespace {

// The input whose zeros mark padded token positions in transformer encoders, as Hugging Face names it. Its rows are
// left out of the fit: padding positions are computed but never read by the pooling or the loss, and in a batch of
// short texts they can outnumber the real tokens.
constexpr const char* kRowMaskInput = "attention_mask";

::onnx::TensorProto* MutableInitializer(::onnx::GraphProto* graph, const std::string& name) {
  for (auto& t : *graph->mutable_initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

std::vector<int64_t> Dims(const ::onnx::TensorProto& t) { return {t.dims().begin(), t.dims().end()}; }

int64_t KeepCount(int64_t width, const PruneOptions& o) {
  const double want = static_cast<double>(width) * (1.0 - o.ratio);
  const int64_t m = o.keep_multiple;
  return std::clamp<int64_t>(static_cast<int64_t>(std::llround(want / static_cast<double>(m))) * m, m, width);
}

// Row mask of one batch: 1 where `mask` (integer [batch, seq]) is non-zero. Empty when the hidden value's rows do
// not line up with the mask's elements (then every row counts).
std::vector<uint8_t> RowMask(const Tensor& mask, int64_t rows) {
  std::vector<uint8_t> keep;
  if (mask.element_count() != rows) return keep;
  keep.resize(static_cast<size_t>(rows));
  if (mask.type() == DataType::kInt64) {
    auto v = mask.values<int64_t>();
    for (size_t i = 0; i < v.size(); ++i) keep[i] = v[i] != 0;
  } else if (mask.type() == DataType::kInt32) {
    auto v = mask.values<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) keep[i] = v[i] != 0;
  } else {
    keep.clear();
  }
  return keep;
}

// Replaces initializer `name` with `values` under `dims`, keeping its name.
void Replace(::onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& dims,
             std::span<const float> values) {
  *MutableInitializer(graph, name) = MakeFloatTensor(name, dims, values);
}

// Columns `kept` of the row-major [rows, cols] matrix `w`.
std::vector<float> KeepColumns(const std::vector<float>& w, int64_t cols, const std::vector<int64_t>& kept) {
  const int64_t rows = static_cast<int64_t>(w.size()) / cols;
  std::vector<float> out;
  out.reserve(static_cast<size_t>(rows) * kept.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c : kept) out.push_back(w[static_cast<size_t>(r * cols + c)]);
  return out;
}

}  // namespace

Status PruneOptions::Validate() const {
  if (!(ratio > 0 && ratio < 1))
    return Status::InvalidArgument(fmt::format("--ratio {:g}: expected a share of neurons to remove in (0, 1)", ratio));
  if (keep_multiple < 1) return Status::InvalidArgument("--keep-multiple must be at least 1");
  if (calibration_batch < 1) return Status::InvalidArgument("--calibration-batch must be at least 1");
  if (calibration_samples < 0) return Status::InvalidArgument("--calibration-samples must be 0 (all) or more");
  if (calibration_inputs.data_path.empty())
    return Status::InvalidArgument(
        "--calibration-data is required: pruning chooses neurons and refits weights on real activations");
  if (!(ridge >= 0)) return Status::InvalidArgument("the ridge term must be >= 0");
  return Status::Ok();
}

std::string DescribePruning(const PruneOptions& options, const PruneSummary& summary) {
  int64_t width = 0, kept = 0;
  for (const auto& b : summary.blocks) width += b.width, kept += b.kept;
  return fmt::format("structure=ffn-neurons ratio={:g} kept={}/{} blocks={} repair=least-squares calibration=\"{}\"",
                     options.ratio, kept, width, summary.blocks.size(), summary.calibration);
}

Result<PruneSummary> PruneModel(::onnx::ModelProto* model, const PruneOptions& options) {
  HONE_RETURN_IF_ERROR(options.Validate());
  RewriteScope scope;
  HONE_RETURN_IF_ERROR(BeginRewrite(model, &scope));
  ::onnx::GraphProto* graph = model->mutable_graph();
  PruneSummary summary;
  FfnSearch search;
  {
    GraphIndex index(*graph);
    search = FindFfnBlocks(*graph, index);
  }
  summary.refused = search.refused;
  // Blocks whose width leaves nothing to remove once the kept count is rounded.
  std::vector<FfnBlock> blocks;
  for (auto& b : search.blocks) {
    if (KeepCount(b.width, options) >= b.width)
      summary.refused.push_back(fmt::format("node '{}' (MatMul): {} neurons; keeping a multiple of {} removes none",
                                            graph->node(b.down).name(), b.width, options.keep_multiple));
    else
      blocks.push_back(b);
  }
  if (blocks.empty()) return summary;

  std::vector<std::string> hidden;
  std::vector<HiddenMoments> moments;
  for (const auto& b : blocks) {
    hidden.push_back(b.hidden);
    moments.emplace_back(b.width);
  }
  ExposedRun run;
  run.data = options.calibration_inputs;
  run.samples = options.calibration_samples;
  run.batch = options.calibration_batch;
  run.threads = options.calibration_threads;
  run.progress = options.progress;
  bool masked = false, unmasked = false;
  const std::string data = "calibration data '" + options.calibration_inputs.data_path + "'";
  auto info = RunExposed(*model, hidden, run,
                         [&](const std::vector<std::string>& names, std::span<const Tensor> inputs,
                             std::span<const Tensor* const> exposed) {
                           const auto m = std::find(names.begin(), names.end(), kRowMaskInput);
                           for (size_t i = 0; i < exposed.size(); ++i) {
                             auto values = exposed[i]->values<float>();
                             std::vector<uint8_t> keep;
                             if (m != names.end())
                               keep = RowMask(inputs[static_cast<size_t>(m - names.begin())],
                                              static_cast<int64_t>(values.size()) / moments[i].width());
                             (keep.empty() ? unmasked : masked) = true;
                             moments[i].Add(values, keep);
                           }
                           return Status::Ok();
                         });
  if (!info.ok())
    return info.status().code() == StatusCode::kInternal ? info.status() : info.status().WithContext(data);
  summary.calibration_rows = moments.front().rows();
  if (masked) summary.row_mask = kRowMaskInput;
  if (masked && unmasked)
    summary.warnings.push_back(std::string("the '") + kRowMaskInput +
                               "' input did not line up with every block's rows; those blocks counted padding too");
  summary.calibration = fmt::format("{} samples of {}, {} activation rows{}", info->samples, info->description,
                                    summary.calibration_rows,
                                    masked ? std::string(" (padding left out by '") + kRowMaskInput + "')" : "");

  GraphIndex index(*graph);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const FfnBlock& b = blocks[i];
    const HiddenMoments& mo = moments[i];
    if (mo.nonfinite_rows() > 0)
      summary.warnings.push_back(fmt::format("block '{}': {} calibration rows held NaN or Inf and were left out",
                                             graph->node(b.down).name(), mo.nonfinite_rows()));
    if (mo.rows() == 0)
      return Status::InvalidArgument(data + " gave no usable activation rows for block '" +
                                     graph->node(b.down).name() + "'");
    const int64_t keep = KeepCount(b.width, options);
    if (mo.rows() < keep)
      summary.warnings.push_back(fmt::format(
          "block '{}': {} calibration rows for {} kept neurons: the refit leans on its ridge term; give more samples",
          graph->node(b.down).name(), mo.rows(), keep));
    const ::onnx::TensorProto& w1t = *index.Initializer(b.up_weight);
    const ::onnx::TensorProto& w2t = *index.Initializer(b.down_weight);
    HONE_ASSIGN_OR_RETURN(std::vector<float> w1, ReadFloatTensor(w1t));
    HONE_ASSIGN_OR_RETURN(std::vector<float> w2, ReadFloatTensor(w2t));
    std::vector<float> b1, b2;
    std::vector<int64_t> b1_dims, b2_dims;
    if (!b.up_bias.empty()) {
      HONE_ASSIGN_OR_RETURN(b1, ReadFloatTensor(*index.Initializer(b.up_bias)));
      b1_dims = Dims(*index.Initializer(b.up_bias));
    }
    if (!b.down_bias.empty()) {
      HONE_ASSIGN_OR_RETURN(b2, ReadFloatTensor(*index.Initializer(b.down_bias)));
      b2_dims = Dims(*index.Initializer(b.down_bias));
    }
    const int64_t in = w1t.dims(0), out = w2t.dims(1);
    const Refit refit = SelectAndRefit(mo.Gram(), w2, out, b2, keep, options.ridge);

    // Write the new weights (the index points into the old ones, so read everything first).
    std::vector<float> new_w1 = KeepColumns(w1, b.width, refit.kept);
    Replace(graph, b.up_weight, {in, keep}, new_w1);
    if (!b.up_bias.empty()) {
      b1_dims.back() = keep;
      Replace(graph, b.up_bias, b1_dims, KeepColumns(b1, b.width, refit.kept));
    }
    Replace(graph, b.down_weight, {keep, out}, refit.weight);
    if (!b.down_bias.empty()) Replace(graph, b.down_bias, b2_dims, refit.bias);

    PrunedBlock done;
    done.up_node = graph->node(b.up).name();
    done.down_node = graph->node(b.down).name();
    done.width = b.width;
    done.kept = keep;
    done.relative_error = refit.relative_error;
    done.relative_error_unrepaired = refit.relative_error_unrepaired;
    summary.weights_before += in * b.width + b.width * out + (b.up_bias.empty() ? 0 : b.width) + static_cast<int64_t>(b2.size());
    summary.weights_after += in * keep + keep * out + (b.up_bias.empty() ? 0 : keep) + static_cast<int64_t>(b2.size());
    summary.blocks.push_back(std::move(done));
  }
  HONE_RETURN_IF_ERROR(FinishRewrite(model, scope, "hone.prune", DescribePruning(options, summary)));
  return summary;
}

Result<FfnSearch> FindFfnBlocksInFile(const std::string& path) {
  ::onnx::ModelProto model;
  HONE_RETURN_IF_ERROR(LoadModelForRewrite(path, &model));
  RewriteScope scope;
  HONE_RETURN_IF_ERROR(BeginRewrite(&model, &scope));
  GraphIndex index(model.graph());
  return FindFfnBlocks(model.graph(), index);
}

Result<PruneSummary> PruneFile(const std::string& input_path, const std::string& output_path,
                               const PruneOptions& options) {
  HONE_RETURN_IF_ERROR(options.Validate());
  ::onnx::ModelProto model;
  HONE_RETURN_IF_ERROR(LoadModelForRewrite(input_path, &model));
  HONE_ASSIGN_OR_RETURN(PruneSummary summary, PruneModel(&model, options));
  if (summary.blocks.empty()) return summary;
  HONE_RETURN_IF_ERROR(SaveAndLoadCheck(model, output_path));
  return summary;
}

}  // namespace hone::onnx
