// Triton's reshape: what a config's `reshape` means for the tensors that cross the wire.
//
// An input or output with a reshape has two shapes, both without the batch dimension: `dims`, what clients send
// and receive (and what metadata advertises), and `reshape.shape`, what the model itself takes or makes. A model
// with a scalar input `sr` completes to `dims [1]` with `reshape { shape: [] }`: a client sends [1] (or [batch, 1]
// with max_batch_size > 0) and the model receives [] (or [batch]). The element count is the same, so a reshape
// moves no bytes: only the shape changes.
//
// Which shape an input request may use. The config's dims are the contract (metadata shows them), so a request in
// the dims shape is always reshaped. A request already in the model's own shape (reshape.shape, e.g. [] for the
// scalar) is accepted as it is too: hone's earlier releases and clients that read the ONNX model send that, and it
// is unambiguous, because a shape that matches both is taken as dims, and the two readings then hold the same
// elements in the same order (reshape never reorders). Anything else is an error naming both shapes.
#pragma once

#include <optional>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "tensor/shape.h"

namespace hone::serve {

// The shape the model takes for a request shape of `input` (batch dimension first when `batched`). Without a
// reshape: `shape` unchanged (the scheduler checks it against the model). With one: the dims shape becomes the
// reshape shape (a -1 in reshape.shape takes the request's values of the -1 dims of `dims` in order, or, when the
// counts differ and reshape.shape has a single -1, what the element count leaves); the model's own shape stays.
// InvalidArgument naming the input, both accepted shapes and the one given, otherwise.
Result<Shape> ToModelShape(const inference::ModelInput& input, bool batched, const Shape& shape);

// The shape a client receives for an output the model made in `shape` (batch dimension first when `batched`):
// reshape.shape becomes dims (the same filling of -1s); unchanged without a reshape or when `shape` does not
// have the reshape shape (the model's own shape then goes out as it is).
Shape ToClientShape(const inference::ModelOutput& output, bool batched, const Shape& shape);

// Whether `shape` fits `pattern` (same rank, each fixed dimension of `pattern` equal; -1 matches any size >= 0).
bool ShapeFits(const Shape& pattern, const Shape& shape);

}  // namespace hone::serve
