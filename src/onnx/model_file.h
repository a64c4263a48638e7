// Reading ONNX model files into the protobuf ModelProto. Every part that loads a model for inspection or rewriting
// goes through here, so that all of them reject non-models the same way and all of them parse large models.
#pragma once

#include <string>

#include "base/status.h"

namespace onnx {
class ModelProto;  // the libonnx protobuf message; include "onnx/onnx_pb.h" to use it
}  // namespace onnx

namespace hone::onnx {

// Parses the file at path into *model (cleared first). Errors:
// - NotFound naming the path when the file is missing or cannot be opened or read;
// - InvalidArgument "'<path>' is not an ONNX model: <why>" when it is a directory, empty, not a protobuf
//   ModelProto, only partly one, or a protobuf without the fields every ONNX model has (see CheckLooksLikeModel);
// - InvalidArgument when it is over 2 GiB, protobuf's hard limit (such models keep weights in external data).
// External data files are not read.
Status ReadModelProto(const std::string& path, ::onnx::ModelProto* model);

// Whether a parsed message is plausibly an ONNX model: an IR version > 0, a graph with at least one output, and
// (IR version >= 3, where the spec requires it) at least one opset_import. Protobuf accepts many byte strings that
// are not models (an empty file parses as an empty message; some text parses as unknown fields), so these are
// what separate a model from such noise. The message names what is missing.
Status CheckLooksLikeModel(const ::onnx::ModelProto& model);

}  // namespace hone::onnx
