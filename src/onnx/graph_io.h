// What every rewrite does before and after changing a graph: load external weights, infer shapes, put nodes back in
// topological order, drop what is no longer used, run the ONNX checker, and write the model, with external data
// when it would not fit in one protobuf.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "base/status.h"

namespace onnx {
class GraphProto;
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// Reads every initializer of the main graph that keeps its data in an external file (paths relative to
// `model_dir`) into raw_data, so that passes see all weights. NotFound naming the tensor and the file when a file
// is missing or shorter than the offset and length say; InvalidArgument for a location outside model_dir.
Status InlineExternalData(::onnx::ModelProto* model, const std::string& model_dir);

// ONNX shape inference over the model (libonnx), filling value_info with the types and shapes it can infer. Ops
// of unknown domains (com.microsoft) are skipped, not errors. InvalidArgument with libonnx's message when the
// graph contradicts itself.
Status InferShapes(::onnx::ModelProto* model);

// Orders the nodes of `graph` and of every subgraph within it so that every value is produced before it is used;
// `outer_scope` names the values a subgraph may read from enclosing graphs (empty for the main graph).
// InvalidArgument naming a node when a graph has a cycle or reads a value that nothing produces.
Status SortTopologically(::onnx::GraphProto* graph, const std::unordered_set<std::string>& outer_scope = {});

// Removes initializers that no node (subgraphs included) and no graph output uses, and their value_info, in `graph`
// and in every subgraph. Returns how many were removed.
int RemoveUnusedInitializers(::onnx::GraphProto* graph);

// The ONNX checker (libonnx's check_model) on the model. InvalidArgument "ONNX checker: <its message>" on failure.
// Ops of domains the checker has no schemas for (com.microsoft) are not checked by it.
Status CheckModel(const ::onnx::ModelProto& model);

struct WriteOptions {
  // When the serialized model would exceed this many bytes, initializers of at least `external_min_bytes` move to
  // an external data file "<model file name>.data" beside the model. protobuf cannot write messages over 2 GiB.
  uint64_t external_threshold_bytes = (uint64_t{1} << 31) - (uint64_t{1} << 20);
  uint64_t external_min_bytes = 1024;

  // Every initializer of at least external_min_bytes in the external data file, whatever the model's size: at
  // page-aligned offsets ONNX Runtime maps the file instead of copying the weights into the process (they count
  // as RssFile, shared and reclaimable, not RssAnon), and a weight its kernels repack is never copied at all.
  static WriteOptions AlwaysExternal() {
    WriteOptions o;
    o.external_threshold_bytes = 0;
    return o;
  }
};

// Writes `model` to `path` (a copy is made when external data is needed; `model` is left as it was). Errors name
// the path: it cannot be written, or one external data file would not do either.
Status WriteModel(const ::onnx::ModelProto& model, const std::string& path, const WriteOptions& options = {});

}  // namespace hone::onnx
