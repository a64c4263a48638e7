// What `hone prune` is asked to do and what it did. Structured pruning removes whole units of work (the neurons of a
// transformer's feed-forward blocks: the columns of the first MatMul and the rows of the second; the heads of its
// attention: their columns of Q, K and V and their rows of the output projection; the output channels of a CNN's
// Convs: their filters and the next layer's weights that read them), so that the smaller dense MatMuls and Convs
// run faster on any runtime, unlike unstructured sparsity. Each pruned block's last MatMul (the second of a
// feed-forward block, the output projection of an attention) is then refitted by least squares on calibration
// activations, so that its output stays close to the original's without training.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "runtime/input_options.h"

namespace hone::onnx {

struct PruneOptions {
  // Share of each feed-forward block's neurons and of each Conv's output channels to remove, in [0, 1) (0: none).
  // The number of neurons kept is rounded to a multiple of `keep_multiple` (MLAS's kernels work on blocks of 16
  // columns; a ragged width costs speed and saves nothing), the channels kept to a multiple of `channel_multiple`.
  double ratio = 0.25;
  // Share of each attention block's heads to remove, in [0, 1) (0: none); at least one head stays. At least one of
  // the two shares is above 0.
  double head_ratio = 0;
  int64_t keep_multiple = 16;
  // How the neurons kept are shared among the feed-forward blocks. kUniform: each keeps (1 - ratio) of its own.
  // kGlobal: the same total, moved to where removing costs least: each block's removals are ranked by the output
  // energy they lose once the others compensate (Optimal Brain Surgeon's cost, as the choice within a block), in
  // the model's units, since every block adds its output to the same residual stream; `keep_multiple` neurons at a
  // time go from the block whose next ones cost least.
  enum class Allocation { kUniform, kGlobal };
  Allocation allocation = Allocation::kUniform;
  // 0: ONNX Runtime's NCHWc channel block on this CPU (ChannelBlock()): its fast Conv kernels work on blocks of 16
  // channels with AVX-512 and 8 with AVX2, and a Conv whose channels are not a whole number of blocks leaves them
  // (measured on the Fashion-MNIST CNN, AVX-512: 32 -> 24 channels ran 0.83x, 32 -> 16 1.34x).
  int64_t channel_multiple = 0;
  // The data whose activations choose the neurons and refit the weights (as hone quantize's calibration data); the
  // first calibration_samples samples (0: all), calibration_batch samples a run.
  runtime::InputOptions calibration_inputs;
  int64_t calibration_samples = 0;
  int64_t calibration_batch = 16;
  int calibration_threads = 0;  // ONNX Runtime's intra-op threads for the calibration runs; 0: its default
  // Ridge term of the refit, relative to the mean of the kept neurons' second moments: keeps the solve well posed
  // when calibration has fewer distinct rows than neurons or two neurons move together.
  double ridge = 1e-3;
  Progress* progress = nullptr;  // calibration batches as they run; null: quiet. Not owned.

  // InvalidArgument naming the flag: a share outside [0, 1), both 0, keep_multiple < 1, channel_multiple < 0,
  // calibration_batch < 1, no data.
  Status Validate() const;
  // channel_multiple, or this CPU's NCHWc block when it is 0.
  int64_t ChannelMultiple() const;
};

// ONNX Runtime's NCHWc channel block on this CPU: 16 with AVX-512F, 8 otherwise.
int64_t ChannelBlock();

// What a pruned block lost: feed-forward neurons, attention heads, or a Conv's output channels.
enum class PrunedUnit { kNeuron, kHead, kChannel };

struct PrunedBlock {
  PrunedUnit unit = PrunedUnit::kNeuron;
  // Neurons: the MatMul that widens to the hidden width and the one that narrows back. Heads: the Q projection and
  // the output projection. Channels: the Conv that loses them and the layer that reads them next.
  std::string up_node, down_node;
  int64_t width = 0, kept = 0;     // neurons (or heads) before and after
  // The refitted output's squared error over the original's squared norm, on the calibration rows (the second
  // MatMul plus its bias; for channels, the next layer's): what the repair could not recover, as a share.
  double relative_error = 0;
  double relative_error_unrepaired = 0;  // the same for the kept neurons with their original weights
};

struct PruneSummary {
  std::vector<PrunedBlock> blocks;
  std::vector<std::string> refused;  // "node '/l0/MatMul_1' (MatMul): value 'h' is also read by 'Out' (Identity)"
  std::vector<std::string> warnings;  // "12 calibration rows held NaN or Inf and were left out"
  std::string calibration;           // what the activations came from: "1000 samples of 'apt.npz', 12,524 rows"
  int64_t calibration_rows = 0;      // activation rows the fit used (padding left out where a mask says so)
  std::string row_mask;              // the input that said which rows are padding ("attention_mask"); empty: none
  int64_t weights_before = 0, weights_after = 0;  // elements of the initializers pruning edited, before and after
  int64_t blocks_of(PrunedUnit unit) const {
    int64_t n = 0;
    for (const auto& b : blocks) n += b.unit == unit;
    return n;
  }
};

}  // namespace hone::onnx
