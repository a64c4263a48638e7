// What `hone quantize` is asked to do: the mode, which nodes, how weights and activations are quantized, and how
// activations are calibrated. A plain struct with documented defaults; Validate() checks the cross-field rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "onnx/quantize_math.h"
#include "runtime/input_options.h"

namespace hone::onnx {

// The final form of each mode:
//   dynamic:     INT8 weights for MatMul, Gemm and Conv; activations quantized at run time from their own range
//                (no calibration). Smaller and usually faster; accuracy depends on per-batch ranges.
//   static:      INT8 weights and activations in QDQ form (QuantizeLinear/DequantizeLinear pairs that ONNX Runtime
//                fuses into integer kernels); activation ranges fixed by calibration on a dataset.
//   weight-only: MatMul weights to 4 or 8 bits in com.microsoft.MatMulNBits, activations stay float: for
//                transformers and LLMs whose cost is reading weights.
enum class QuantizeMode { kDynamic, kStatic, kWeightOnly };

// How static quantization turns the values a tensor took during calibration into a range:
//   minmax:     the smallest and largest value seen;
//   percentile: |x| clipped at the given percentile of its histogram (outliers saturate);
//   entropy:    the clipping threshold whose 8-bit quantized histogram is closest (KL divergence) to the original.
enum class CalibrationMethod { kMinMax, kPercentile, kEntropy };

// How dynamic quantization is written into the graph (see quantize_dynamic.cc for the measurement that picked
// the default):
//   integer: DynamicQuantizeLinear -> MatMulInteger/ConvInteger -> Cast -> Mul by the scales;
//   qdq:     DynamicQuantizeLinear -> DequantizeLinear -> the float op, weights through DequantizeLinear.
enum class DynamicForm { kInteger, kQdq };

std::string_view QuantizeModeName(QuantizeMode mode);
std::optional<QuantizeMode> ParseQuantizeMode(std::string_view text);  // "dynamic", "static", "weight-only"
std::string_view CalibrationMethodName(CalibrationMethod method);
std::optional<CalibrationMethod> ParseCalibrationMethod(std::string_view text);  // "minmax", "percentile", "entropy"
std::string_view DynamicFormName(DynamicForm form);
std::optional<DynamicForm> ParseDynamicForm(std::string_view text);  // "integer", "qdq"

struct QuantizeOptions {
  QuantizeMode mode = QuantizeMode::kDynamic;

  // --- which nodes ---
  // Op types to quantize; empty: the mode's defaults (DefaultOpTypes).
  std::vector<std::string> op_types;
  // Op types and node names to keep in float. An op type or node the model lacks is a warning, not an error.
  std::vector<std::string> exclude_op_types;
  std::vector<std::string> exclude_nodes;
  // Only these node names (of the op types above), when not empty: a second pass over a model that quantizes one
  // layer differently (an LLM's lm_head at 8 bits beside 4-bit blocks) names it here. A name the model lacks is a
  // warning.
  std::vector<std::string> nodes;

  // --- weights (dynamic, static) ---
  // One scale per output channel (Conv's M, MatMul's and Gemm's N) instead of one per tensor: much smaller error
  // for layers whose channels differ in range, at no cost in speed on ONNX Runtime's CPU kernels.
  bool per_channel = true;
  // INT8 weights in 7 bits (+-64) instead of 8 (+-127); see kReducedWeightLimit. kAuto: reduced when the CPU hone
  // runs on is x86 without VNNI (where full-range weights can saturate), full otherwise. The summary says which.
  enum class WeightRange { kAuto, kFull, kReduced } weight_range = WeightRange::kAuto;

  // --- activations (static) ---
  // false: UINT8 with a zero point, using the whole range (ONNX Runtime's U8S8, fastest on x86 with VNNI);
  // true: INT8 centred on zero (zero point 0), which some accelerators require.
  bool symmetric_activations = false;

  // --- dynamic ---
  DynamicForm dynamic_form = DynamicForm::kInteger;

  // --- calibration (static) ---
  CalibrationMethod calibration = CalibrationMethod::kMinMax;
  double percentile = 99.999;     // percentile method: the share of |x| kept inside the range, in percent
  int histogram_bins = 2048;      // percentile and entropy: bins of the |x| histogram
  runtime::InputOptions calibration_inputs;  // data_path is required: calibration needs real data
  int64_t calibration_samples = 0;           // the first N samples of the dataset; 0: all of them
  int64_t calibration_batch = 16;            // samples per calibration run
  int calibration_threads = 0;               // ONNX Runtime intra-op threads while calibrating; 0: its default
  // Calibration batches done, for a long calibration ("batch 3 of 16"); null: quiet. Not owned; outlives the call.
  Progress* progress = nullptr;

  // --- weight-only ---
  int bits = 4;                   // 4 or 8
  int block_size = 32;            // 32, 64 or 128 weights of one column share a scale
  bool weight_only_symmetric = true;  // false: a zero point per block as well (asymmetric, round to nearest)
  // Each block's minimum as a float offset instead of an integer zero point, as llama.cpp's Q4_1 does: the block's
  // codes span [min, max] exactly (no widening to include 0), and the offsets come back through a small float
  // MatMul on the input's block sums added to MatMulNBits' output (1/32 of the weight's multiplies at block 32).
  // Exact on weights that already sit on such a grid (a GGUF's Q4_1 dequantised); integer zero points cannot be,
  // since their grid always passes through 0, and ONNX Runtime's float zero points leave its fast kernel.
  bool weight_only_block_offset = false;
  // MatMulNBits' accuracy_level: 0 leaves it unset (ONNX Runtime computes in float); 4 lets it quantize the
  // activations to int8 per block and use integer dot products (faster on CPUs with VNNI, slightly less exact).
  int accuracy_level = 0;

  Status Validate() const;
};

// kReducedWeightLimit or kFullWeightLimit, resolving kAuto on this machine's CPU.
int32_t WeightLimit(const QuantizeOptions& options);
// Whether this CPU is x86 with VNNI (AVX512-VNNI or AVX-VNNI), or not x86 at all (no VPMADDUBSW saturation).
bool CpuAvoidsU8S8Saturation();

// The op types each mode quantizes by default.
std::vector<std::string> DefaultOpTypes(QuantizeMode mode);
// What --op-types may name: the defaults, and for weight-only also Gather.
std::vector<std::string> SupportedOpTypes(QuantizeMode mode);

}  // namespace hone::onnx
