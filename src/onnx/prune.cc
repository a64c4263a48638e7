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
#include "onnx/prune_conv_channels.h"
#include "onnx/prune_ffn_blocks.h"
#include "onnx/prune_heads.h"
#include "onnx/prune_linear.h"
#include "onnx/prune_patches.h"
#include "onnx/prune_repair.h"
#include "tensor/shape.h"

namespace hone::onnx {
namespace {

// The input whose zeros mark padded token positions in transformer encoders, as Hugging Face names it. Its rows are
// left out of the fit: padding positions are computed but never read by the pooling or the loss, and in a batch of
// short texts they can outnumber the real tokens.
constexpr const char* kRowMaskInput = "attention_mask";

std::vector<int64_t> Dims(const ::onnx::TensorProto& t) { return {t.dims().begin(), t.dims().end()}; }

// `width` less the share `ratio`, rounded to a multiple of `m` (at least one multiple; all when width <= m).
int64_t KeepCount(int64_t width, double ratio, int64_t m) {
  if (width <= m) return width;  // nothing to remove in whole multiples
  const double want = static_cast<double>(width) * (1.0 - ratio);
  return std::clamp<int64_t>(static_cast<int64_t>(std::llround(want / static_cast<double>(m))) * m, m, width);
}
int64_t KeepCount(int64_t width, const PruneOptions& o) { return KeepCount(width, o.ratio, o.keep_multiple); }
int64_t ChannelKeepCount(int64_t channels, const PruneOptions& o) {
  return KeepCount(channels, o.ratio, o.ChannelMultiple());
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
  if (channel_multiple < 0)
    return Status::InvalidArgument("--channel-multiple must be 0 (this CPU's channel block) or more");
  if (calibration_batch < 1) return Status::InvalidArgument("--calibration-batch must be at least 1");
  if (calibration_samples < 0) return Status::InvalidArgument("--calibration-samples must be 0 (all) or more");
  if (calibration_inputs.data_path.empty())
    return Status::InvalidArgument(
        "--calibration-data is required: pruning chooses neurons and refits weights on real activations");
  if (!(ridge >= 0)) return Status::InvalidArgument("the ridge term must be >= 0");
  return Status::Ok();
}

int64_t ChannelBlock() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? 16 : 8;
#else
  return 8;
#endif
}

int64_t PruneOptions::ChannelMultiple() const { return channel_multiple > 0 ? channel_multiple : ChannelBlock(); }

std::string DescribePruning(const PruneOptions& options, const PruneSummary& summary) {
  int64_t width = 0, kept = 0, heads = 0, heads_kept = 0, channels = 0, channels_kept = 0;
  for (const auto& b : summary.blocks) {
    if (b.unit == PrunedUnit::kNeuron) width += b.width, kept += b.kept;
    else if (b.unit == PrunedUnit::kHead) heads += b.width, heads_kept += b.kept;
    else channels += b.width, channels_kept += b.kept;
  }
  std::string text = fmt::format("structure=ffn-neurons ratio={:g} kept={}/{} blocks={}", options.ratio, kept, width,
                                 summary.blocks_of(PrunedUnit::kNeuron));
  if (options.allocation == PruneOptions::Allocation::kGlobal) text += " allocation=global";
  if (summary.blocks_of(PrunedUnit::kChannel) > 0)
    text += fmt::format(" conv-channels: ratio={:g} multiple={} kept={}/{} convs={}", options.ratio,
                        options.ChannelMultiple(), channels_kept, channels, summary.blocks_of(PrunedUnit::kChannel));
  if (options.head_ratio > 0)
    text += fmt::format(" heads: ratio={:g} kept={}/{} blocks={}", options.head_ratio, heads_kept, heads,
                        summary.blocks_of(PrunedUnit::kHead));
  return text + fmt::format(" repair=least-squares calibration=\"{}\"", summary.calibration);
}

namespace {

// The weights a block's refit reads ([in, out] whatever the layout), read before any is replaced.
struct LastLayer {
  std::vector<float> weight, bias;
  std::vector<int64_t> bias_dims;
  int64_t in = 0, out = 0;
};
Result<LastLayer> ReadLastLayer(const GraphIndex& index, const std::string& weight, const std::string& bias,
                                bool transposed = false) {
  LastLayer l;
  LinearLayer layer;
  layer.weight = weight;
  layer.transposed = transposed;
  HONE_ASSIGN_OR_RETURN(InOutWeight w, ReadInOut(index, layer));
  l.weight = std::move(w.values);
  l.in = w.in;
  l.out = w.out;
  if (!bias.empty()) {
    HONE_ASSIGN_OR_RETURN(l.bias, ReadFloatTensor(*index.Initializer(bias)));
    l.bias_dims = Dims(*index.Initializer(bias));
  }
  return l;
}

// Columns (or entries, for a vector) `cols` of initializer `name`, written back under the same name.
Status KeepColumnsOf(::onnx::GraphProto* graph, const GraphIndex& index, const std::string& name,
                     const std::vector<int64_t>& cols) {
  return KeepAlongAxis(graph, name, -1, cols);
}

Status PruneFeedForward(::onnx::GraphProto* graph, const GraphIndex& index, const FfnBlock& b,
                        const HiddenMoments& moments, int64_t keep, const PruneOptions& options,
                        PruneSummary& summary) {
  HONE_ASSIGN_OR_RETURN(LastLayer last, ReadLastLayer(index, b.down_weight, b.down_bias, b.down_transposed));
  const Refit refit = SelectAndRefit(moments.Gram(), last.weight, last.out, last.bias, keep, options.ridge);
  // The first layer's outputs: its weight's columns ([D, F]) or rows (a Gemm's [F, D]).
  HONE_RETURN_IF_ERROR(KeepAlongAxis(graph, b.up_weight, b.up_transposed ? 0 : 1, refit.kept));
  if (!b.up_bias.empty()) HONE_RETURN_IF_ERROR(KeepColumnsOf(graph, index, b.up_bias, refit.kept));
  LinearLayer down;
  down.weight = b.down_weight;
  down.transposed = b.down_transposed;
  WriteInOut(graph, down, refit.weight, keep, last.out);
  if (!b.down_bias.empty()) ReplaceInitializer(graph, b.down_bias, last.bias_dims, refit.bias);
  PrunedBlock done{PrunedUnit::kNeuron, graph->node(b.up).name(), graph->node(b.down).name(), b.width, keep,
                   refit.relative_error, refit.relative_error_unrepaired};
  summary.blocks.push_back(std::move(done));
  return Status::Ok();
}

// tr(W' G W): the energy of the block's output over the calibration rows, in the model's units.
double OutputEnergy(const Eigen::MatrixXd& gram, const LastLayer& l) {
  const int64_t f = gram.rows() - 1;
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(f + 1, l.out);
  for (int64_t j = 0; j < f; ++j)
    for (int64_t o = 0; o < l.out; ++o) w(j, o) = l.weight[static_cast<size_t>(j * l.out + o)];
  if (!l.bias.empty())
    for (int64_t o = 0; o < l.out; ++o) w(f, o) = l.bias[static_cast<size_t>(o)];
  return (w.transpose() * gram * w).trace();
}

// --allocation global: the neurons each feed-forward block keeps, the same total as every block keeping its own
// share would. Each block's removals, made one at a time down to `keep_multiple` as the choice within a block makes
// them, cost the output energy they lose (in the model's units); then `keep_multiple` neurons at a time go from the
// block whose next ones cost least.
Result<std::vector<int64_t>> GlobalNeuronKeeps(const GraphIndex& index, const std::vector<FfnBlock>& ffn,
                                               const std::vector<HiddenMoments>& moments, const PruneOptions& options) {
  const int64_t m = options.keep_multiple;
  std::vector<std::vector<double>> lost(ffn.size());  // lost[b][r]: what r removals from block b lose
  std::vector<int64_t> keeps;
  int64_t target = 0;
  for (size_t b = 0; b < ffn.size(); ++b) {
    target += KeepCount(ffn[b].width, options);
    keeps.push_back(ffn[b].width);
    HONE_ASSIGN_OR_RETURN(LastLayer last, ReadLastLayer(index, ffn[b].down_weight, ffn[b].down_bias,
                                                        ffn[b].down_transposed));
    const Eigen::MatrixXd gram = moments[b].Gram();
    std::vector<double> costs;
    SelectUnitsJoint({UnitSystem{&gram, last.weight, last.out, last.bias, 1}}, std::min(m, ffn[b].width),
                     options.ridge, &costs);
    lost[b].assign(1, 0.0);
    // The costs come as shares of the block's own output; back in the model's units they compare across blocks:
    // every block adds its output to the same residual stream (as shares, a small block's loss looked cheap and
    // the choice was worse: on all-MiniLM-L6-v2 at 0.25, cosine 0.9859 and recall@10 0.846 against 0.9906 and 0.885).
    const double energy = OutputEnergy(gram, last);
    for (double c : costs) lost[b].push_back(lost[b].back() + c * energy);
  }
  auto removed = [&](size_t b) { return ffn[b].width - keeps[b]; };
  int64_t total = 0;
  for (int64_t k : keeps) total += k;
  while (total > target) {
    size_t best = ffn.size();
    double best_cost = 0;
    for (size_t b = 0; b < ffn.size(); ++b) {
      const int64_t next = removed(b) + m;
      if (keeps[b] - m < m || next >= static_cast<int64_t>(lost[b].size())) continue;
      const double cost = lost[b][static_cast<size_t>(next)] - lost[b][static_cast<size_t>(removed(b))];
      if (best == ffn.size() || cost < best_cost) best = b, best_cost = cost;
    }
    if (best == ffn.size()) break;  // every block at its floor
    keeps[best] -= m;
    total -= m;
  }
  return keeps;
}

int64_t HeadKeepCount(int64_t heads, const PruneOptions& o) {
  return std::clamp<int64_t>(std::llround(static_cast<double>(heads) * (1.0 - o.head_ratio)), 1, heads);
}

Status PruneHeads(::onnx::GraphProto* graph, const GraphIndex& index, NameGenerator& names,
                  const AttentionBlock& b, const HiddenMoments& moments, const PruneOptions& options,
                  PruneSummary& summary) {
  const int64_t keep = HeadKeepCount(b.heads, options), dh = b.head_size;
  HONE_ASSIGN_OR_RETURN(LastLayer last, ReadLastLayer(index, b.out_weight, b.out_bias));
  const Refit refit = SelectAndRefit(moments.Gram(), last.weight, last.out, last.bias, keep, options.ridge, dh);
  std::vector<int64_t> cols;  // the kept heads' columns of Q, K and V
  for (int64_t h : refit.kept)
    for (int64_t j = h * dh; j < (h + 1) * dh; ++j) cols.push_back(j);
  for (int p = 0; p < 3; ++p) {
    HONE_RETURN_IF_ERROR(KeepColumnsOf(graph, index, b.weights[p], cols));
    if (!b.biases[p].empty()) HONE_RETURN_IF_ERROR(KeepColumnsOf(graph, index, b.biases[p], cols));
  }
  ReplaceInitializer(graph, b.out_weight, {keep * dh, last.out}, refit.weight);
  if (!b.out_bias.empty()) ReplaceInitializer(graph, b.out_bias, last.bias_dims, refit.bias);
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
  summary.blocks.push_back(std::move(done));
  return Status::Ok();
}

// What a layer reading a pruned group's channels reads, as rows for its moments: a Conv's im2col rows, or one row
// per sample after a Flatten. `value` is [N, C, H, W].
Status AddChannelRows(const ChannelReaderLayer& r, int64_t channels, const Tensor& value, HiddenMoments& moments) {
  const Shape& dims = value.shape();
  auto values = value.values<float>();
  if (r.kind == ChannelReader::kFlattenLinear) {
    moments.Add(values);
    return Status::Ok();
  }
  if (dims.size() != 4 || dims[1] != channels)
    return Status::InvalidArgument(fmt::format("value '{}' before the Conv is {}, not [N, {}, H, W]", r.value,
                                               ShapeToString(value.shape()), channels));
  moments.Add(ConvPatches(values, dims[0], dims[1], dims[2], dims[3], r.window));
  return Status::Ok();
}

// A reader's weight as the refit takes it ([C x group, out]) and its bias, as the graph holds them now. A Conv
// without a bias is given zeros (and gains a bias when written back): the intercept takes up the mean the removed
// channels carried.
struct ReaderWeights {
  std::vector<float> weight, bias;
  std::vector<int64_t> conv_dims, bias_dims;  // the Conv's [Cout, C, kh, kw]; the linear layer's bias dims
  int64_t out = 0;
};
Result<ReaderWeights> ReadReader(const GraphIndex& index, const ChannelReaderLayer& r) {
  ReaderWeights w;
  if (r.kind == ChannelReader::kConv) {
    const ::onnx::TensorProto& t = *index.Initializer(r.weight);
    w.conv_dims.assign(t.dims().begin(), t.dims().end());
    HONE_ASSIGN_OR_RETURN(std::vector<float> stored, ReadFloatTensor(t));
    w.out = w.conv_dims[0];
    const int64_t rows = w.conv_dims[1] * w.conv_dims[2] * w.conv_dims[3];
    w.weight.resize(static_cast<size_t>(rows * w.out));
    for (int64_t o = 0; o < w.out; ++o)
      for (int64_t i = 0; i < rows; ++i) w.weight[static_cast<size_t>(i * w.out + o)] = stored[static_cast<size_t>(o * rows + i)];
    if (!r.bias.empty()) {
      HONE_ASSIGN_OR_RETURN(w.bias, ReadFloatTensor(*index.Initializer(r.bias)));
    } else {
      w.bias.assign(static_cast<size_t>(w.out), 0.0f);
    }
    return w;
  }
  HONE_ASSIGN_OR_RETURN(InOutWeight io, ReadInOut(index, r.linear));
  w.weight = std::move(io.values);
  w.out = io.out;
  if (!r.linear.bias.empty()) {
    HONE_ASSIGN_OR_RETURN(w.bias, ReadFloatTensor(*index.Initializer(r.linear.bias)));
    w.bias_dims = Dims(*index.Initializer(r.linear.bias));
  }
  return w;
}

// Writes a reader's refitted weight and bias back in its layout.
void WriteReader(::onnx::GraphProto* graph, NameGenerator& names, const ChannelReaderLayer& r, const ReaderWeights& w,
                 const Refit& refit, int64_t keep, std::set<std::string>& touched) {
  const int64_t rows = keep * r.group();
  if (r.kind == ChannelReader::kConv) {
    std::vector<float> stored(static_cast<size_t>(rows * w.out));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t o = 0; o < w.out; ++o) stored[static_cast<size_t>(o * rows + i)] = refit.weight[static_cast<size_t>(i * w.out + o)];
    ReplaceInitializer(graph, r.weight, {w.out, keep, w.conv_dims[2], w.conv_dims[3]}, stored);
    if (!r.bias.empty()) {
      ReplaceInitializer(graph, r.bias, {w.out}, refit.bias);
      return;
    }
    const std::string name = names.Fresh(r.weight + "_bias");
    *graph->add_initializer() = MakeFloatTensor(name, {w.out}, refit.bias);
    ::onnx::NodeProto* node = graph->mutable_node(r.node);
    while (node->input_size() < 3) node->add_input("");
    node->set_input(2, name);
    touched.insert(name);
    return;
  }
  WriteInOut(graph, r.linear, refit.weight, rows, w.out);
  if (!r.linear.bias.empty()) ReplaceInitializer(graph, r.linear.bias, w.bias_dims, refit.bias);
}

// A channel group: the channels kept are chosen for all its readers together (each reader's cost as a share of its
// output energy), every reader refitted over them, and the writers' filters, biases and the BatchNormalization
// entries of the others removed. `moments` holds one entry per reader, in the block's reader order.
Status PruneChannels(::onnx::GraphProto* graph, const GraphIndex& index, NameGenerator& names,
                     const ConvChannelBlock& b, const std::vector<const HiddenMoments*>& moments,
                     const PruneOptions& options, std::set<std::string>& touched, PruneSummary& summary) {
  const int64_t keep = ChannelKeepCount(b.channels, options);
  std::vector<ReaderWeights> weights;
  std::vector<Eigen::MatrixXd> grams;
  for (size_t i = 0; i < b.readers.size(); ++i) {
    HONE_ASSIGN_OR_RETURN(ReaderWeights w, ReadReader(index, b.readers[i]));
    weights.push_back(std::move(w));
    grams.push_back(moments[i]->Gram());
  }
  std::vector<UnitSystem> systems;
  for (size_t i = 0; i < b.readers.size(); ++i)
    systems.push_back({&grams[i], weights[i].weight, weights[i].out, weights[i].bias, b.readers[i].group()});
  const std::vector<int64_t> kept = SelectUnitsJoint(systems, keep, options.ridge);
  // The block's errors are its worst reader's.
  PrunedBlock done{PrunedUnit::kChannel, graph->node(b.writers.front().node).name(),
                   graph->node(b.readers.front().node).name(), b.channels, keep, 0, 0};
  for (size_t i = 0; i < b.readers.size(); ++i) {
    const ChannelReaderLayer& r = b.readers[i];
    const Refit refit = RefitUnits(grams[i], weights[i].weight, weights[i].out, weights[i].bias, kept, options.ridge,
                                   r.group());
    WriteReader(graph, names, r, weights[i], refit, keep, touched);
    if (refit.relative_error >= done.relative_error)
      done.relative_error = refit.relative_error, done.relative_error_unrepaired = refit.relative_error_unrepaired;
  }
  for (const ChannelWriter& w : b.writers) {
    HONE_RETURN_IF_ERROR(KeepAlongAxis(graph, w.weight, 0, kept));
    // The Conv's bias as the graph has it now: the refit of another group, where it reads, may have given it one.
    const ::onnx::NodeProto& node = graph->node(w.node);
    if (node.input_size() > 2 && !node.input(2).empty())
      HONE_RETURN_IF_ERROR(KeepAlongAxis(graph, node.input(2), 0, kept));
  }
  for (const std::string& p : b.per_channel) HONE_RETURN_IF_ERROR(KeepAlongAxis(graph, p, 0, kept));
  for (int n : b.depthwise)
    for (auto& a : *graph->mutable_node(n)->mutable_attribute())
      if (a.name() == "group") a.set_i(keep);
  if (b.writers.size() > 1 || b.readers.size() > 1)
    done.up_node += fmt::format(" (+{} Convs writing the same channels)", b.writers.size() - 1),
        done.down_node += fmt::format(" (+{} more reading them)", b.readers.size() - 1);
  summary.blocks.push_back(std::move(done));
  return Status::Ok();
}

// Element counts of the FLOAT initializers named in `names`, as the graph holds them now.
int64_t ElementsOf(const ::onnx::GraphProto& graph, const std::set<std::string>& names) {
  int64_t n = 0;
  for (const auto& t : graph.initializer()) {
    if (!names.count(t.name())) continue;
    auto count = TensorElementCount(t);
    if (count.ok()) n += *count;
  }
  return n;
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
  std::vector<ConvChannelBlock> conv;
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
    if (options.ratio > 0) {
      ConvChannelSearch search = FindConvChannelBlocks(*graph, index);
      summary.refused.insert(summary.refused.end(), search.refused.begin(), search.refused.end());
      for (auto& b : search.blocks) {
        if (ChannelKeepCount(b.channels, options) >= b.channels)
          summary.refused.push_back(fmt::format("node '{}' (Conv): {} output channels; keeping a multiple of {} removes none",
                                                graph->node(b.writers.front().node).name(), b.channels,
                                                options.ChannelMultiple()));
        else
          conv.push_back(b);
      }
    }
  }
  if (ffn.empty() && attention.empty() && conv.empty()) return summary;

  // Every initializer an edit below touches, to count the weights before and after.
  std::set<std::string> touched;
  for (const auto& b : ffn) touched.insert({b.up_weight, b.up_bias, b.down_weight, b.down_bias});
  for (const auto& b : attention) {
    touched.insert(std::begin(b.weights), std::end(b.weights));
    touched.insert(std::begin(b.biases), std::end(b.biases));
    touched.insert({b.out_weight, b.out_bias});
  }
  for (const auto& b : conv) {
    for (const auto& w : b.writers) touched.insert({w.weight, w.bias});
    for (const auto& r : b.readers) touched.insert({r.weight, r.bias, r.linear.weight, r.linear.bias});
    touched.insert(b.per_channel.begin(), b.per_channel.end());
  }
  touched.erase("");
  summary.weights_before = ElementsOf(*graph, touched);

  // One calibration pass for every block: the feed-forward blocks' hidden values, the attention contexts, then what
  // the layer after each pruned Conv reads (as im2col rows for a Conv, as it is after a Flatten).
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
  // One moments entry per reader of each channel group, after the others: (group, reader) for each.
  const size_t first_conv = moments.size();
  std::vector<std::pair<size_t, size_t>> reader_of;
  for (size_t g = 0; g < conv.size(); ++g)
    for (size_t r = 0; r < conv[g].readers.size(); ++r) {
      exposed.push_back(conv[g].readers[r].value);
      moments.emplace_back(conv[g].channels * conv[g].readers[r].group());
      reader_of.push_back({g, r});
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
                             if (i >= first_conv) {
                               const auto [g, r] = reader_of[i - first_conv];
                               HONE_RETURN_IF_ERROR(
                                   AddChannelRows(conv[g].readers[r], conv[g].channels, *values_of[i], moments[i]));
                               continue;
                             }
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
  std::vector<int64_t> neuron_keeps;
  for (const auto& b : ffn) neuron_keeps.push_back(KeepCount(b.width, options));
  if (options.allocation == PruneOptions::Allocation::kGlobal && ffn.size() > 1) {
    HONE_ASSIGN_OR_RETURN(neuron_keeps, GlobalNeuronKeeps(index, ffn, moments, options));
  }
  for (size_t i = 0; i < moments.size(); ++i) {
    const bool is_ffn = i < ffn.size(), is_conv = i >= first_conv;
    const int last = is_ffn    ? ffn[i].down
                     : is_conv ? conv[reader_of[i - first_conv].first].readers[reader_of[i - first_conv].second].node
                               : attention[i - ffn.size()].out;
    const std::string block = graph->node(last).name();
    const HiddenMoments& mo = moments[i];
    if (mo.nonfinite_rows() > 0)
      summary.warnings.push_back(fmt::format("block '{}': {} calibration rows held NaN or Inf and were left out",
                                             block, mo.nonfinite_rows()));
    if (mo.rows() == 0) return Status::InvalidArgument(data + " gave no usable activation rows for block '" + block + "'");
    const int64_t channels = is_conv ? conv[reader_of[i - first_conv].first].channels : 0;
    const int64_t rows_needed = is_ffn    ? neuron_keeps[i]
                                : is_conv ? ChannelKeepCount(channels, options) * (mo.width() / channels)
                                          : mo.width();
    if (mo.rows() < rows_needed)
      summary.warnings.push_back(fmt::format(
          "block '{}': {} calibration rows for {} kept values: the refit leans on its ridge term; give more samples",
          block, mo.rows(), rows_needed));
    if (is_ffn && neuron_keeps[i] >= ffn[i].width)
      summary.refused.push_back(fmt::format("node '{}' (MatMul): --allocation global keeps all {} neurons (removing "
                                            "them costs more than in the other blocks)",
                                            block, ffn[i].width));
    else if (is_ffn)
      HONE_RETURN_IF_ERROR(PruneFeedForward(graph, index, ffn[i], mo, neuron_keeps[i], options, summary));
    else if (!is_conv)
      HONE_RETURN_IF_ERROR(PruneHeads(graph, index, names, attention[i - ffn.size()], mo, options, summary));
  }
  // Channel groups, once each, with every reader's moments.
  for (size_t g = 0, i = first_conv; g < conv.size(); ++g) {
    std::vector<const HiddenMoments*> readers;
    for (size_t r = 0; r < conv[g].readers.size(); ++r) readers.push_back(&moments[i++]);
    HONE_RETURN_IF_ERROR(PruneChannels(graph, index, names, conv[g], readers, options, touched, summary));
  }
  summary.weights_after = ElementsOf(*graph, touched);
  // The checker rejecting what was rewritten is hone's fault, not the input's.
  if (Status s = FinishRewrite(model, scope, "hone.prune", DescribePruning(options, summary)); !s.ok())
    return Status::Internal("the pruned model fails ONNX's checker: " + s.message());
  return summary;
}

Result<PrunableSearch> FindPrunableInFile(const std::string& path) {
  ::onnx::ModelProto model;
  HONE_RETURN_IF_ERROR(LoadModelForRewrite(path, &model));
  RewriteScope scope;
  HONE_RETURN_IF_ERROR(BeginRewrite(&model, &scope));
  GraphIndex index(model.graph());
  FfnSearch ffn = FindFfnBlocks(model.graph(), index);
  ConvChannelSearch conv = FindConvChannelBlocks(model.graph(), index);
  PrunableSearch found;
  found.ffn_blocks = static_cast<int>(ffn.blocks.size());
  found.conv_blocks = static_cast<int>(conv.blocks.size());
  found.refused = std::move(ffn.refused);
  found.refused.insert(found.refused.end(), conv.refused.begin(), conv.refused.end());
  return found;
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
