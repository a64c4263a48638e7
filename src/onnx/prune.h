// `hone prune` as a library call: a float ONNX model in, one with fewer feed-forward neurons, attention heads or
// Conv channels out, each pruned block's last layer refitted on calibration activations (prune_repair.h), checked by the ONNX checker and loaded
// by ONNX Runtime before it is reported done.
//
//   PruneOptions options;
//   options.ratio = 0.25;
//   options.calibration_inputs.data_path = "calibration.npz";
//   HONE_ASSIGN_OR_RETURN(PruneSummary summary, PruneFile("model.onnx", "model.pruned.onnx", options));
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "onnx/prune_ffn_blocks.h"
#include "onnx/prune_options.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// Prunes `model` in place: options checked (InvalidArgument naming the flag), the feed-forward blocks found
// (prune_ffn_blocks.h; those it cannot prune safely are listed in summary.refused with the reason), the model run
// over the calibration data with the blocks' hidden values exposed, the least important neurons removed and the
// second MatMuls refitted, nodes sorted, the ONNX checker run. The model's metadata_props gain "hone.prune". When no
// block can be pruned the summary's blocks are empty and the model is unchanged in substance. Weights must be
// inline. Errors: calibration data that does not fit the model is InvalidArgument naming the file.
Result<PruneSummary> PruneModel(::onnx::ModelProto* model, const PruneOptions& options);

// One line saying what the options make, as recorded in metadata_props["hone.prune"].
std::string DescribePruning(const PruneOptions& options, const PruneSummary& summary);

// What PruneModel would find in the model at `path` (nothing written): feed-forward blocks and Convs whose channels
// it can follow, and those refused with the reason.
struct PrunableSearch {
  int ffn_blocks = 0, conv_blocks = 0;
  std::vector<std::string> refused;
};
Result<PrunableSearch> FindPrunableInFile(const std::string& path);

// Reads `input_path`, prunes, writes `output_path` and opens it in ONNX Runtime: Internal naming the file if the
// runtime rejects what hone wrote. Nothing is written when no block was pruned.
Result<PruneSummary> PruneFile(const std::string& input_path, const std::string& output_path,
                               const PruneOptions& options);

}  // namespace hone::onnx
