// Calibration: runs the float model in ONNX Runtime over a dataset with the tensors static quantization needs
// exposed as extra graph outputs, and turns what they held into ranges (minmax, percentile or entropy; see
// calibrate_histogram.h). Histogram methods read the data twice: once for each tensor's range, once to fill a
// histogram over it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "onnx/quantize_options.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

struct TensorRange {
  float min = 0, max = 0;
};

struct Calibration {
  std::map<std::string, TensorRange> ranges;  // one per tensor asked for
  int64_t samples = 0;                        // samples the model ran on
  std::string description;                    // "minmax over 256 samples of dataset 'test.npz' (2000 samples)"
};

// Calibrates `tensors` (FLOAT values of `model`'s main graph) with options.calibration over the first
// options.calibration_samples samples (0: all) of options.calibration_inputs. Errors, each naming the dataset:
// InvalidArgument when it has no samples or does not match the model's inputs (InputPool's message, which names
// the input); InvalidArgument naming the tensor when one is not FLOAT when run; the model not loading is Internal.
Result<Calibration> Calibrate(const ::onnx::ModelProto& model, const std::vector<std::string>& tensors,
                              const QuantizeOptions& options);

}  // namespace hone::onnx
