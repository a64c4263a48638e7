// What an ONNX model is, read from its file without running it: the facts `hone info` prints and that bench uses
// to generate inputs (names, types, dynamic dimensions).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "tensor/data_type.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// One declared dimension.
struct Dim {
  int64_t value = -1;  // >= 0 when fixed; -1 when dynamic
  std::string symbol;  // the dim_param ("batch") of a named dynamic dimension; empty otherwise
  bool dynamic() const { return value < 0; }
};

// "[batch, 1, 28, 28]"; "?" for an unnamed dynamic dimension; "[]" for a scalar.
std::string DimsToString(const std::vector<Dim>& dims);

// A graph input or output as declared.
struct TensorInfo {
  std::string name;
  DataType type = DataType::kInvalid;  // kInvalid when hone has no name for the type (complex, float8, seq(...))
  // ONNX's name for the element type ("float", "complex64"), or for a non-tensor value the whole type
  // ("seq(tensor(float))", "map(int64,tensor(float))", "sparse_tensor(float)").
  std::string onnx_type;
  std::vector<Dim> dims;
  bool has_shape = true;  // false when no shape is declared (rank unknown), which differs from a scalar ([])
};

// DimsToString(info.dims), or "unknown" when the rank is not declared.
std::string ShapeText(const TensorInfo& info);

struct ModelInfo {
  std::string path;
  uint64_t file_bytes = 0;
  int64_t ir_version = 0;
  std::string producer_name, producer_version, domain, doc_string;
  int64_t model_version = 0;
  // (domain, version) in file order; the default domain "" is shown as "ai.onnx".
  std::vector<std::pair<std::string, int64_t>> opsets;
  // Graph inputs that are not initializers (before IR version 4 initializers were listed as inputs too), then outputs.
  std::vector<TensorInfo> inputs, outputs;
  // "Conv", or "com.microsoft.FusedGemm" outside the default domain; sorted by count (descending), then name.
  // Nodes inside subgraphs (If/Loop/Scan bodies) count; bodies of model-local functions do not (their call sites do).
  std::vector<std::pair<std::string, int64_t>> operator_counts;
  int64_t node_count = 0;  // every node, subgraphs included: the sum of operator_counts
  // Parameters are the elements of every initializer (dense and sparse, main graph and subgraphs) and of every
  // Constant node's tensor value. Constants count because exporters store weights either way, and the total
  // should not depend on which one did; the small shape constants this also counts are noise next to weights.
  // Sparse tensors count their stored values (bytes: values plus indices). Tensors in external data count from their
  // declared dims; the external files are not read. Bytes are element bits rounded up per tensor; strings count
  // their inline lengths.
  int64_t parameter_count = 0;
  uint64_t parameter_bytes = 0;
  int64_t initializer_count = 0;  // initializers (dense and sparse) in all graphs; Constant nodes not included
  bool uses_external_data = false;  // some initializer or constant keeps its data in an external file
  std::vector<std::pair<std::string, std::string>> metadata_props;
};

// Reads the model file at path. Errors are ReadModelProto's (model_file.h): NotFound for a missing or unreadable
// file, InvalidArgument "'<path>' is not an ONNX model: ..." for anything that is not one; also InvalidArgument
// naming the tensor when an initializer has negative or overflowing dims.
Result<ModelInfo> ReadModelInfo(const std::string& path);

// The same from a parsed model; path and file_bytes are left empty for the caller.
Result<ModelInfo> DescribeModel(const ::onnx::ModelProto& model);

}  // namespace hone::onnx
