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
#include "onnx/prune_heads.h"
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
  const int64_t m = o.keep_multiple;
  if (width <= m) return width;  // nothing to remove in whole multiples
  const double want = static_cast<double>(width) * (1.0 - o.ratio);
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
  if (!(ratio >= 0 && ratio < 1))
    return Status::InvalidArgument(fmt::format("--ratio {:g}: expected a share of neurons to remove in [0, 1)", ratio));
  if (!(head_ratio >= 0 && head_ratio < 1))
    return Status::InvalidArgument(
        fmt::format("--head-ratio {:g}: expected a share of attention heads to remove in [0, 1)", head_ratio));
  if (ratio == 0 && head_ratio == 0)
    return Status::InvalidArgument("--ratio 0 and --head-ratio 0 remove nothing: give a share above 0 for one of them");
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
  int64_t width = 0, kept = 0, heads = 0, heads_kept = 0;
  for (const auto& b : summary.blocks) {
    if (b.unit == PrunedUnit::kNeuron) width += b.width, kept += b.kept;
    else heads += b.width, heads_kept += b.kept;
  }
  std::string text = fmt::format("structure=ffn-neurons ratio={:g} kept={}/{} blocks={}", options.ratio, kept, width,
                                 summary.blocks_of(PrunedUnit::kNeuron));
  if (options.head_ratio > 0)
    text += fmt::format(" heads: ratio={:g} kept={}/{} blocks={}", options.head_ratio, heads_kept, heads,
                        summary.blocks_of(PrunedUnit::kHead));
  return text + fmt::format(" repair=least-squares calibration=\"{}\"", summary.calibration);
}

namespace {

// The weights a block's refit reads, read before any is replaced (the index points into the old ones).
struct LastLayer {
  std::vector<float> weight, bias;
  std::vector<int64_t> bias_dims;
  int64_t in = 0, out = 0;
};
Result<LastLayer> ReadLastLayer(const GraphIndex& index, const std::string& weight, const std::string& bias) {
  LastLayer l;
  const ::onnx::TensorProto& w = *index.Initializer(weight);
  HONE_ASSIGN_OR_RETURN(l.weight, ReadFloatTensor(w));
  l.in = w.dims(0);
  l.out = w.dims(1);
  if (!bias.empty()) {
    HONE_ASSIGN_OR_RETURN(l.bias, ReadFloatTensor(*index.Initializer(bias)));
    l.bias_dims = Dims(*index.Initializer(bias));
  }
  return l;
}

// Columns (or entries, for a vector) `cols` of initializer `name`, written back under the same name.
Status KeepColumnsOf(::onnx::GraphProto* graph, const GraphIndex& index, const std::string& name,
                     const std::vector<int64_t>& cols) {
  const ::onnx::TensorProto& t = *index.Initializer(name);
  std::vector<int64_t> dims = Dims(t);
  HONE_ASSIGN_OR_RETURN(std::vector<float> values, ReadFloatTensor(t));
  const std::vector<float> kept = KeepColumns(values, dims.back(), cols);
  dims.back() = static_cast<int64_t>(cols.size());
  Replace(graph, name, dims, kept);
  return Status::Ok();
}

Status PruneFeedForward(::onnx::GraphProto* graph, const GraphIndex& index, const FfnBlock& b,
                        const HiddenMoments& moments, const PruneOptions& options, PruneSummary& summary) {
  const int64_t keep = KeepCount(b.width, options);
  HONE_ASSIGN_OR_RETURN(LastLayer last, ReadLastLayer(index, b.down_weight, b.down_bias));
  const int64_t in = index.Initializer(b.up_weight)->dims(0);
  const Refit refit = SelectAndRefit(moments.Gram(), last.weight, last.out, last.bias, keep, options.ridge);
  HONE_RETURN_IF_ERROR(KeepColumnsOf(graph, index, b.up_weight, refit.kept));
  if (!b.up_bias.empty()) HONE_RETURN_IF_ERROR(KeepColumnsOf(graph, index, b.up_bias, refit.kept));
  Replace(graph, b.down_weight, {keep, last.out}, refit.weight);
  if (!b.down_bias.empty()) Replace(graph, b.down_bias, last.bias_dims, refit.bias);
  PrunedBlock done{PrunedUnit::kNeuron, graph->node(b.up).name(), graph->node(b.down).name(), b.width, keep,
                   refit.relative_error, refit.relative_error_unrepaired};
  const auto biases = static_cast<int64_t>(last.bias.size());
  summary.weights_before += in * b.width + b.width * last.out + (b.up_bias.empty() ? 0 : b.width) + biases;
  summary.weights_after += in * keep + keep * last.out + (b.up_bias.empty() ? 0 : keep) + biases;
  summary.blocks.push_back(std::move(done));
  return Status::Ok();
}

int64_t HeadKeepCount(int64_t heads, const PruneOptions& o) {
  return std::clamp<int64_t>(std::llround(static_cast<double>(heads) * (1.0 - o.head_ratio)), 1, heads);
}

Status PruneHeads(::onnx::GraphProto* graph, const GraphIndex& index, NameGenerator& names,
                  const AttentionBlock& b, const HiddenMoments& moments, const PruneOptions& options,
                  PruneSummary& summary) {
  const int64_t keep = HeadKeepCount(b.heads, options), dh = b.head_size;
  HONE_ASSIGN_OR_RETURN(LastLayer last, ReadLastLayer(index, b.out_weight, b.out_bias));
  const int64_t in = index.Initializer(b.weights[0])->dims(0);
  const Refit refit = SelectAndRefit(moments.Gram(), last.weight, last.out, last.bias, keep, options.ridge, dh);
  std::vector<int64_t> cols;  // the kept heads' columns of Q, K and V
  for (int64_t h : refit.kept)
    for (int64_t j = h * dh; j < (h + 1) * dh; ++j) cols.push_back(j);
  for (int p = 0; p < 3; ++p) {
    HONE_RETURN_IF_ERROR(KeepColumnsOf(graph, index, b.weights[p], cols));
    if (!b.biases[p].empty()) HONE_RETURN_IF_ERROR(KeepColumnsOf(graph, index, b.biases[p], cols));
  }
  Replace(graph, b.out_weight, {keep * dh, last.out}, refit.weight);
  if (!b.out_bias.empty()) Replace(graph, b.out_bias, last.bias_dims, refit.bias);
  // The reshapes' H and H*dh, under fresh names: another block may share the constant and prune differently. Q, K
  // and V may read one Concat (after common-subexpression elimination): each place is rewritten once.
  std::set<std::pair<int, int>> rewritten;
  for (const ShapeConstant& s : b.shapes) {
    if (!rewritten.insert({s.node, s.input}).second) continue;
    ::onnx::NodeProto* node = graph->mutable_node(s.node);
    const ::onnx::TensorProto& old = *index.Initializer(node->input(s.input));
    HONE_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadInt64Tensor(old));
    values[static_cast<size_t>(s.element)] = s.per_head ? keep * dh : keep;
    const std::string name = names.Fresh(old.name() + "_pruned");
    *graph->add_initializer() = MakeInt64Tensor(name, Dims(old), values);
    node->set_input(s.input, name);
  }
  const std::string q_node = graph->node(index.Consumers(b.weights[0]).front()).name();
  PrunedBlock done{PrunedUnit::kHead, q_node, graph->node(b.out).name(), b.heads, keep, refit.relative_error,
                   refit.relative_error_unrepaired};
  const int64_t width = b.heads * dh, kept = keep * dh;
  const int64_t qkv_biases = static_cast<int64_t>(!b.biases[0].empty() + !b.biases[1].empty() + !b.biases[2].empty());
  summary.weights_before += 3 * in * width + qkv_biases * width + width * last.out + static_cast<int64_t>(last.bias.size());
  summary.weights_after += 3 * in * kept + qkv_biases * kept + kept * last.out + static_cast<int64_t>(last.bias.size());
  summary.blocks.push_back(std::move(done));
  return Status::Ok();
}

}  // namespace

Result<PruneSummary> PruneModel(::onnx::ModelProto* model, const PruneOptions& options) {
  HONE_RETURN_IF_ERROR(options.Validate());
  RewriteScope scope;
  HONE_RETURN_IF_ERROR(BeginRewrite(model, &scope));
  // Every shape the model came with may name a width pruning changes (onnxsim writes them for every value): all go,
  // and ONNX Runtime infers them again.
  scope.original_value_info.clear();
  ::onnx::GraphProto* graph = model->mutable_graph();
  PruneSummary summary;
  std::vector<FfnBlock> ffn;
  std::vector<AttentionBlock> attention;
  {
    GraphIndex index(*graph);
    if (options.ratio > 0) {
      FfnSearch search = FindFfnBlocks(*graph, index);
      summary.refused = search.refused;
      // Blocks whose width leaves nothing to remove once the kept count is rounded.
      for (auto& b : search.blocks) {
        if (KeepCount(b.width, options) >= b.width)
          summary.refused.push_back(fmt::format("node '{}' (MatMul): {} neurons; keeping a multiple of {} removes none",
                                                graph->node(b.down).name(), b.width, options.keep_multiple));
        else
          ffn.push_back(b);
      }
    }
    if (options.head_ratio > 0) {
      AttentionSearch search = FindAttentionBlocks(*graph, index);
      summary.refused.insert(summary.refused.end(), search.refused.begin(), search.refused.end());
      for (auto& b : search.blocks) {
        if (HeadKeepCount(b.heads, options) >= b.heads)
          summary.refused.push_back(fmt::format("attention before '{}': {} heads; --head-ratio {:g} removes none",
                                                graph->node(b.out).name(), b.heads, options.head_ratio));
        else
          attention.push_back(b);
      }
    }
  }
  if (ffn.empty() && attention.empty()) return summary;

  // One calibration pass for every block: the feed-forward blocks' hidden values, then the attention contexts.
  std::vector<std::string> exposed;
  std::vector<HiddenMoments> moments;
  for (const auto& b : ffn) {
    exposed.push_back(b.hidden);
    moments.emplace_back(b.width);
  }
  for (const auto& b : attention) {
    exposed.push_back(b.context);
    moments.emplace_back(b.heads * b.head_size);
  }
  ExposedRun run;
  run.data = options.calibration_inputs;
  run.samples = options.calibration_samples;
  run.batch = options.calibration_batch;
  run.threads = options.calibration_threads;
  run.progress = options.progress;
  bool masked = false, unmasked = false;
  const std::string data = "calibration data '" + options.calibration_inputs.data_path + "'";
  auto info = RunExposed(*model, exposed, run,
                         [&](const std::vector<std::string>& names, std::span<const Tensor> inputs,
                             std::span<const Tensor* const> values_of) {
                           const auto m = std::find(names.begin(), names.end(), kRowMaskInput);
                           for (size_t i = 0; i < values_of.size(); ++i) {
                             auto values = values_of[i]->values<float>();
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
  NameGenerator names(*model);
  for (size_t i = 0; i < moments.size(); ++i) {
    const bool is_ffn = i < ffn.size();
    const int last = is_ffn ? ffn[i].down : attention[i - ffn.size()].out;
    const std::string block = graph->node(last).name();
    const HiddenMoments& mo = moments[i];
    if (mo.nonfinite_rows() > 0)
      summary.warnings.push_back(fmt::format("block '{}': {} calibration rows held NaN or Inf and were left out",
                                             block, mo.nonfinite_rows()));
    if (mo.rows() == 0) return Status::InvalidArgument(data + " gave no usable activation rows for block '" + block + "'");
    const int64_t rows_needed = is_ffn ? KeepCount(ffn[i].width, options) : mo.width();
    if (mo.rows() < rows_needed)
      summary.warnings.push_back(fmt::format(
          "block '{}': {} calibration rows for {} kept values: the refit leans on its ridge term; give more samples",
          block, mo.rows(), rows_needed));
    if (is_ffn)
      HONE_RETURN_IF_ERROR(PruneFeedForward(graph, index, ffn[i], mo, options, summary));
    else
      HONE_RETURN_IF_ERROR(PruneHeads(graph, index, names, attention[i - ffn.size()], mo, options, summary));
  }
  // The checker rejecting what was rewritten is hone's fault, not the input's.
  if (Status s = FinishRewrite(model, scope, "hone.prune", DescribePruning(options, summary)); !s.ok())
    return Status::Internal("the pruned model fails ONNX's checker: " + s.message());
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
