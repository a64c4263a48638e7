// Finding the output channels of a Conv that can be removed, in a CNN as torch.onnx writes it: the Conv (group 1,
// its weight [C, Cin, ...] an initializer), then nodes that treat each channel on its own (Relu and the other
// elementwise activations, BatchNormalization, MaxPool/AveragePool and their global forms, arithmetic with a scalar
// constant), then the one layer that mixes the channels again: the next Conv (2-D, group 1; its input channels go)
// or a Flatten (or a Reshape to [N, C x H x W]) into a Gemm or MatMul (the H x W columns of each channel go).
// Removing channel c removes row c of the Conv's weight, its bias entry, its entries in every BatchNormalization
// between and the next layer's weights that read it; nothing else changes shape. The next layer is refitted on
// calibration activations (prune_repair.h) over the channels kept.
//
// Residual joins (an Add of two branches), Concat, depthwise or grouped Convs and a channel read by two layers are
// refused with the node named: pruning them would need every branch pruned alike.
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

// How the next layer reads the channels.
enum class ChannelReader { kConv, kFlattenLinear };

// A 2-D Conv's window, as its attributes say (auto_pad NOTSET or VALID).
struct ConvWindow {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  std::array<int64_t, 4> pads{};  // top, left, bottom, right
};

struct ConvChannelBlock {
  int producer = -1;                    // the Conv whose output channels go
  std::string weight, bias;             // [C, Cin, ...] and [C] (empty: none)
  std::vector<std::string> per_channel;  // BatchNormalization's scale, B, mean and var on the way: [C] each
  std::string value;                    // what the next layer reads, [N, C, H, W]: the calibration exposes it
  int64_t channels = 0;                 // C
  ChannelReader reader = ChannelReader::kConv;
  int next = -1;                        // the next Conv, or the Gemm/MatMul after the Flatten
  // kConv: the next Conv's weight [Cout, C, kh, kw], bias [Cout] (empty: none) and window.
  std::string next_weight, next_bias;
  ConvWindow window;
  // kFlattenLinear: the layer after the Flatten, and the columns each channel has there (H x W).
  LinearLayer linear;
  int64_t spatial = 0;
};

struct ConvChannelSearch {
  std::vector<ConvChannelBlock> blocks;
  std::vector<std::string> refused;  // "node '/conv2/Conv' (Conv): its output is joined by 'add' (Add) ..."
};

// Searches the main graph. `index` must be built on `graph` after BeginRewrite (constants as initializers).
ConvChannelSearch FindConvChannelBlocks(const ::onnx::GraphProto& graph, const GraphIndex& index);

}  // namespace hone::onnx
