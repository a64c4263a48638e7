#include "runtime/input_pool.h"

#include <cstring>

namespace hone::runtime {

std::string InputPool::mode_description() const {
  if (axis_.shared) return "batched: dimension 0 of every input is the batch";
  return "whole tensors, one sample per request: the model has no shared batch dimension (" + axis_.reason + ")";
}

size_t InputPool::byte_size() const {
  size_t total = 0;
  for (const Tensor& column : columns_) total += column.byte_size();
  return total;
}

Status InputPool::CheckBatch(int64_t batch) const {
  if (batch < 1) return Status::InvalidArgument("batch size: expected >= 1, got " + std::to_string(batch));
  if (!axis_.shared) {
    if (batch == 1) return Status::Ok();
    return Status::InvalidArgument("batch size " + std::to_string(batch) +
                                   ": the model has no shared batch dimension (" + axis_.reason +
                                   "), so a request is one sample of whole tensors; use batch 1");
  }
  for (size_t i = 0; i < names_.size(); ++i)
    if (!declared_[i].empty() && declared_[i][0] >= 0 && declared_[i][0] != batch)
      return Status::InvalidArgument("input '" + names_[i] + "' has a fixed first dimension of " +
                                     std::to_string(declared_[i][0]) + ": the model cannot take batches of " +
                                     std::to_string(batch));
  return Status::Ok();
}

// Rows [first, first + batch) of a BYTES column (wrapping), whose elements vary in length: gathered as views,
// then copied into one tensor.
Result<Tensor> InputPool::BytesRows(const Tensor& column, int64_t first, int64_t batch) const {
  const std::vector<std::string_view> elements = column.bytes_elements();
  const int64_t per_row = samples_ > 0 ? column.element_count() / samples_ : 0;
  std::vector<std::string_view> rows;
  rows.reserve(static_cast<size_t>(batch * per_row));
  for (int64_t r = 0; r < batch; ++r) {
    int64_t src = ((first + r) % samples_ + samples_) % samples_;
    for (int64_t k = 0; k < per_row; ++k) rows.push_back(elements[static_cast<size_t>(src * per_row + k)]);
  }
  Shape shape = column.shape();
  if (axis_.shared)
    shape[0] = batch;
  else
    shape.erase(shape.begin());
  return Tensor::FromStrings(std::move(shape), rows);
}

Result<std::vector<Tensor>> InputPool::MakeBatch(int64_t first, int64_t batch) const {
  HONE_RETURN_IF_ERROR(CheckBatch(batch));
  std::vector<Tensor> out;
  out.reserve(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Tensor& column = columns_[i];
    if (!per_sample_[i]) {  // whole tensors: the same tensor in every request, copied so callers may change it
      out.push_back(column.Clone());
      continue;
    }
    if (column.type() == DataType::kBytes) {
      HONE_ASSIGN_OR_RETURN(Tensor t, BytesRows(column, first, batch));
      out.push_back(std::move(t));
      continue;
    }
    // Batched: `batch` rows along the batch axis. Whole tensors: one sample, without the samples axis.
    Shape shape = column.shape();
    if (axis_.shared)
      shape[0] = batch;
    else
      shape.erase(shape.begin());
    HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(column.type(), shape));
    size_t row_bytes = column.byte_size() / static_cast<size_t>(samples_);
    for (int64_t r = 0; r < batch; ++r) {
      int64_t src = ((first + r) % samples_ + samples_) % samples_;  // a negative first wraps too
      std::memcpy(t.mutable_data() + r * row_bytes, column.data() + src * row_bytes, row_bytes);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace hone::runtime
