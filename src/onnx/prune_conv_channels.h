// Finding the output channels of Convs that can be removed, in a CNN as torch.onnx writes it. A channel group is
// every value that carries the same channels, closed both ways: it starts at a Conv (group 1, its weight [C, Cin,
// ...] an initializer) and goes on through nodes that treat each channel on its own (Relu and the other elementwise
// activations, BatchNormalization, MaxPool/AveragePool and their global forms, arithmetic with a scalar constant, a
// depthwise Conv: each of its channels reads only its own) and through joins of two such values (a residual Add, a squeeze-and-excitation Mul), back to every Conv that
// writes into the join, and forward to every layer that mixes the channels again: a Conv (2-D, group 1; its input
// channels go) or a Flatten (or a Reshape to [N, C x H x W]) into a Gemm or MatMul (the H x W columns of each
// channel go). Removing channel c removes filter c of every Conv that writes the group (and its bias entry), its
// entries in every BatchNormalization on the way, and the weights every reader has for it; nothing else changes
// shape. In a ResNet, a block's inner channels (conv1 -> conv2) are one small group, and a stage's residual stream
// (the stem or the downsampling Conv, every block's last Conv, every block's first Conv and the next stage's as
// readers) is another. The readers are refitted on calibration activations (prune_repair.h) over the channels kept,
// which are chosen for all the readers together.
//
// Refused, naming the node: a Concat, a grouped Conv (other than depthwise), channels reaching a graph output or
// coming from a graph input, MaxPool's indices read, a shared weight, anything else that mixes channels.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "onnx/graph_index.h"
#include "onnx/prune_linear.h"

namespace onnx {
class GraphProto;
}  // namespace onnx

namespace hone::onnx {

// How a layer reads the channels.
enum class ChannelReader { kConv, kFlattenLinear };

// A 2-D Conv's window, as its attributes say (auto_pad NOTSET or VALID).
struct ConvWindow {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  std::array<int64_t, 4> pads{};  // top, left, bottom, right
};

// A Conv that writes the group's channels: its filters (and bias entries) of the removed channels go.
struct ChannelWriter {
  int node = -1;
  std::string weight, bias;  // [C, Cin, ...] and [C] (empty: none)
};

// A layer that reads the group's channels and mixes them: refitted over the kept ones.
struct ChannelReaderLayer {
  ChannelReader kind = ChannelReader::kConv;
  int node = -1;       // the Conv, or the Gemm/MatMul after the Flatten
  std::string value;   // what it reads, [N, C, H, W]: the calibration exposes it
  // kConv: the Conv's weight [Cout, C, kh, kw], bias [Cout] (empty: none) and window.
  std::string weight, bias;
  ConvWindow window;
  // kFlattenLinear: the layer after the Flatten, and the columns each channel has there (H x W).
  LinearLayer linear;
  int64_t spatial = 0;
  // Rows of the refitted weight per channel: the window's kh x kw, or H x W.
  int64_t group() const { return kind == ChannelReader::kConv ? window.kernel_h * window.kernel_w : spatial; }
};

struct ConvChannelBlock {
  int64_t channels = 0;                   // C
  std::vector<ChannelWriter> writers;     // in node order; the first names the group in reports
  std::vector<ChannelReaderLayer> readers;  // in node order
  // Entries per channel on the way, sliced along axis 0: BatchNormalization's scale, B, mean and var ([C] each), a
  // depthwise Conv's weight [C, 1, kh, kw] and bias [C].
  std::vector<std::string> per_channel;
  std::vector<int> depthwise;  // the depthwise Convs on the way: their group count becomes the channels kept
};

struct ConvChannelSearch {
  std::vector<ConvChannelBlock> blocks;
  std::vector<std::string> refused;  // "node '/conv2/Conv' (Conv): its channels reach 'cat' (Concat) ..."
};

// Searches the main graph; each Conv belongs to at most one group as a writer (a refused group's Convs are named
// once, by the Conv the search started from). `index` must be built on `graph` after BeginRewrite.
ConvChannelSearch FindConvChannelBlocks(const ::onnx::GraphProto& graph, const GraphIndex& index);

}  // namespace hone::onnx
