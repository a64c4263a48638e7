// Batch assembly and output splitting, per instance.
//
// Assemble concatenates the batch's requests row-wise into buffers this assembler owns and reuses from batch to
// batch, growing one only when a batch needs more bytes than it has held before. A batch of one request runs on
// that request's own tensors, with no copy.
//
// Why steady-state traffic allocates nothing per request here: the buffers are allocated once per size high-water
// mark; copying a request's rows is a memcpy; the tensors handed to the session are kept in a vector reused across
// batches. What remains is per batch (the batch tensors' shapes, and whatever the session allocates for a run),
// not per request. Splitting outputs allocates the responses themselves, which the InferenceResponse contract
// makes owning values; their tensors are views sharing the batch's output buffers, never copies.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/model_metadata.h"
#include "serve/core/scheduler_request.h"
#include "tensor/tensor.h"

namespace hone::serve {

class BatchAssembler {
 public:
  explicit BatchAssembler(const runtime::ModelMetadata& model);

  // The model's inputs for `batch` (requests validated, inputs in model order, all with the same non-batch
  // shapes), `rows` rows in all; with a batch dimension the requests' rows are stacked in batch order. The span
  // stays valid until the next call to Assemble or Release.
  Result<std::span<const Tensor>> Assemble(const PendingList& batch, int64_t rows);
  // Lets go of the requests' tensors taken by the last Assemble, so that nothing here keeps a client's buffer
  // alive once its request is done. Allocates nothing.
  void Release();

  // Bytes held in pooled buffers (for tests: it grows only with the largest batch seen).
  size_t pooled_bytes() const;

 private:
  struct Buffer {
    std::unique_ptr<std::byte[]> data;
    size_t capacity = 0;
  };
  std::vector<Buffer> buffers_;  // one per model input
  std::vector<Tensor> inputs_;   // what the last Assemble returned
  std::vector<Tensor> empty_;    // per input, an empty view of its rank: what Release puts in inputs_
};

// Sets every request's result from the batch's `outputs` (model output order, `rows` rows each when batched):
// its rows of each output it asked for, in the order it asked (all outputs in model order when it named none),
// as views sharing the batch outputs. An output that does not have `rows` rows fails every request in the batch
// with Internal.
void SplitOutputs(const runtime::ModelMetadata& model, const std::string& model_name, int64_t model_version,
                  bool batched, const std::vector<Tensor>& outputs, int64_t rows, PendingList& batch);

}  // namespace hone::serve
