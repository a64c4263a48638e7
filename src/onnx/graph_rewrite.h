// The frame around every model rewrite (quantize, convert): load the model with its external weights, prepare the
// graph so that passes see it the same way whatever the exporter did, and afterwards put it back in order, check
// it, write it and prove ONNX Runtime loads it.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "onnx/graph_io.h"

namespace onnx {
class ModelProto;
class ValueInfoProto;
}  // namespace onnx

namespace hone::onnx {

// ReadModelProto (model_file.h) plus InlineExternalData from the model's directory.
Status LoadModelForRewrite(const std::string& path, ::onnx::ModelProto* model);

// What BeginRewrite saw, for FinishRewrite.
struct RewriteScope {
  std::vector<std::string> original_value_info;  // names of the value_info entries the model came with (subgraphs
                                                 // included)
};

// Moves Constant nodes to initializers (those of subgraphs too, from IR version 4), names unnamed nodes (subgraphs
// included), and runs shape inference so that GraphIndex knows every value's element type. InvalidArgument from shape inference when the graph contradicts itself.
Status BeginRewrite(::onnx::ModelProto* model, RewriteScope* scope);

// Drops the value_info entries shape inference added (a pass may have changed those values' types; ONNX Runtime
// infers them again) and those of values that no longer exist, sorts the nodes, removes unused initializers (all of
// these in subgraphs too), adds
// metadata_props[key] = description (replacing an earlier one) and runs the ONNX checker.
Status FinishRewrite(::onnx::ModelProto* model, const RewriteScope& scope, const std::string& key,
                     const std::string& description);

// WriteModel (graph_io.h), then opens the written file in ONNX Runtime: Internal naming the file and the runtime's
// message when it does not load, since that is a bug in the rewrite, not in the user's input.
Status SaveAndLoadCheck(const ::onnx::ModelProto& model, const std::string& path, const WriteOptions& write = {});

}  // namespace hone::onnx
