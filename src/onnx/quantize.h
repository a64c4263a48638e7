// `hone quantize` as a library call: a float ONNX model in, a quantized one out (dynamic INT8, static INT8 in QDQ
// form, or weight-only MatMulNBits; see QuantizeMode), checked by the ONNX checker and loaded by ONNX Runtime
// before it is reported done.
//
//   QuantizeOptions options;
//   options.mode = QuantizeMode::kStatic;
//   options.calibration_inputs.data_path = "calibration.npz";
//   HONE_ASSIGN_OR_RETURN(QuantizeSummary summary, QuantizeFile("model.onnx", "model.int8.onnx", options));
#pragma once

#include <string>

#include "base/result.h"
#include "onnx/graph_io.h"
#include "onnx/quantize_options.h"
#include "onnx/quantize_select.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// Quantizes `model` in place: options checked (InvalidArgument naming the flag), the ai.onnx opset upgraded when
// the mode needs a newer one (dynamic 11, static 10, per-channel static or qdq 13; summary.opset_upgrade says so;
// UpgradeOpset's errors), Constant nodes moved to initializers, unnamed nodes named, the mode's pass run (nodes in
// If/Loop/Scan bodies included, except for static mode, which lists them as skipped), nodes sorted, unused initializers dropped, the ONNX
// checker run. Static mode calibrates by running the float model in ONNX Runtime (see calibrate_collect.h for its
// errors). The model's metadata_props gain "hone.quantize" describing what was done. Weights must be inline
// (InlineExternalData). On error the model may be partly rewritten.
Result<QuantizeSummary> QuantizeModel(::onnx::ModelProto* model, const QuantizeOptions& options);

// One line saying what the options make, as recorded in the model's metadata_props["hone.quantize"]:
// "mode=static format=qdq weights=int8 per-channel weight_range=8-bit activations=uint8-asymmetric calibrate=minmax".
std::string DescribeQuantization(const QuantizeOptions& options);

// Reads `input_path` (ReadModelProto's errors; external data beside it is loaded), quantizes, writes
// `output_path` (external data when over 2 GiB, or as `write` says) and opens it in ONNX Runtime: Internal naming
// the file if the runtime rejects what hone wrote.
Result<QuantizeSummary> QuantizeFile(const std::string& input_path, const std::string& output_path,
                                     const QuantizeOptions& options, const WriteOptions& write = {});

}  // namespace hone::onnx
