#include "serve/core/scheduler_batch.h"

#include <algorithm>
#include <cstring>

namespace hone::serve {

BatchAssembler::BatchAssembler(const runtime::ModelMetadata& model)
    : buffers_(model.inputs.size()), inputs_(model.inputs.size()) {
  empty_.reserve(model.inputs.size());
  for (const auto& spec : model.inputs) {
    // Validation guarantees a fixed-size type; an all-zero shape of the input's rank holds no bytes.
    auto view = Tensor::Borrow(spec.type, Shape(spec.shape.size(), 0), nullptr, 0);
    empty_.push_back(view.ok() ? std::move(view).value() : Tensor());
  }
  Release();
}

Result<std::span<const Tensor>> BatchAssembler::Assemble(const PendingList& batch, int64_t rows) {
  if (batch.empty()) return Status::Internal("assembling an empty batch");
  const std::vector<NamedTensor>& first = batch.front().request.inputs;
  if (first.size() != inputs_.size())
    return Status::Internal("batch request has " + std::to_string(first.size()) + " inputs, expected " +
                            std::to_string(inputs_.size()));
  if (batch.size() == 1) {
    // The batch is exactly this request: run on its own tensors. Copy-assigning a Tensor reuses the shape's
    // storage in inputs_[k], so this allocates nothing either.
    for (size_t k = 0; k < inputs_.size(); ++k) inputs_[k] = first[k].tensor;
    return std::span<const Tensor>(inputs_);
  }
  for (size_t k = 0; k < inputs_.size(); ++k) {
    const Tensor& head = first[k].tensor;
    size_t bytes = 0;
    for (const PendingRequest& p : batch) bytes += p.request.inputs[k].tensor.byte_size();
    Buffer& buffer = buffers_[k];
    if (bytes > buffer.capacity) {
      // Grows geometrically so that a slowly rising batch size does not reallocate at every step.
      size_t capacity = std::max(bytes, buffer.capacity + buffer.capacity / 2);
      buffer.data.reset(new std::byte[capacity]);
      buffer.capacity = capacity;
    }
    std::byte* out = buffer.data.get();
    for (const PendingRequest& p : batch) {
      const Tensor& t = p.request.inputs[k].tensor;
      if (t.byte_size()) std::memcpy(out, t.data(), t.byte_size());
      out += t.byte_size();
    }
    Shape shape = head.shape();
    shape[0] = rows;
    HONE_ASSIGN_OR_RETURN(inputs_[k], Tensor::Borrow(head.type(), std::move(shape), buffer.data.get(), bytes));
  }
  return std::span<const Tensor>(inputs_);
}

void BatchAssembler::Release() {
  for (size_t k = 0; k < inputs_.size(); ++k) inputs_[k] = empty_[k];
}

size_t BatchAssembler::pooled_bytes() const {
  size_t total = 0;
  for (const Buffer& b : buffers_) total += b.capacity;
  return total;
}

namespace {

Status CheckRows(const runtime::ModelMetadata& model, const std::vector<Tensor>& outputs, int64_t rows) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Shape& shape = outputs[i].shape();
    if (shape.empty() || shape[0] != rows)
      return Status::Internal("output '" + model.outputs[i].name + "': expected " + std::to_string(rows) +
                              " rows (the batch size), the model returned shape " + ShapeToString(shape));
  }
  return Status::Ok();
}

// Output `index` for the request whose rows start at `begin`.
Result<Tensor> OutputFor(const Tensor& output, bool whole, int64_t begin, int64_t rows) {
  if (whole) return output;
  return output.SliceRows(begin, rows);
}

Result<InferenceResponse> ResponseFor(const runtime::ModelMetadata& model, const std::vector<Tensor>& outputs,
                                      bool whole, int64_t begin, PendingRequest& p) {
  InferenceResponse response;
  const std::vector<std::string>& wanted = p.request.requested_outputs;
  if (wanted.empty()) {
    response.outputs.reserve(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      HONE_ASSIGN_OR_RETURN(Tensor t, OutputFor(outputs[i], whole, begin, p.rows));
      response.outputs.push_back({model.outputs[i].name, std::move(t)});
    }
  } else {
    response.outputs.reserve(wanted.size());
    for (const std::string& name : wanted) {
      int index = model.FindOutput(name);  // validated at Enqueue
      if (index < 0 || static_cast<size_t>(index) >= outputs.size())
        return Status::Internal("output '" + name + "': missing from the model's results");
      HONE_ASSIGN_OR_RETURN(Tensor t, OutputFor(outputs[index], whole, begin, p.rows));
      response.outputs.push_back({name, std::move(t)});
    }
  }
  return response;
}

}  // namespace

void SplitOutputs(const runtime::ModelMetadata& model, const std::string& model_name, int64_t model_version,
                  bool batched, const std::vector<Tensor>& outputs, int64_t rows, PendingList& batch) {
  // A lone request gets the outputs whole: no slicing, and no need for a batch dimension to slice along.
  const bool whole = batch.size() == 1;
  Status rows_ok = whole || !batched ? Status::Ok() : CheckRows(model, outputs, rows);
  int64_t begin = 0;
  for (PendingRequest& p : batch) {
    if (!rows_ok.ok()) {
      p.result.emplace(rows_ok);
      continue;
    }
    Result<InferenceResponse> response = ResponseFor(model, outputs, whole, begin, p);
    if (response.ok()) {
      response->model_name = model_name;
      response->model_version = model_version;
      response->id = std::move(p.request.id);
    }
    p.result.emplace(std::move(response));
    begin += p.rows;
  }
}

}  // namespace hone::serve
