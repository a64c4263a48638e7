#include "check/model_outputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "check/report_format.h"
#include "tensor/npy.h"

namespace hone::check {
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Stacks one output's batches: keeps the per-sample dims of the first batch and copies rows in. For a model
// without a shared batch dimension (whole tensors, one sample per run), each output tensor is one sample, scalars
// included, stacked along a new first axis.
class Stacker {
 public:
  Stacker(std::string name, int64_t samples, bool whole)
      : name_(std::move(name)), samples_(samples), whole_(whole) {}

  Status Add(const Tensor& t, int64_t batch, int64_t keep) {
    const Shape& shape = t.shape();
    if (!whole_ && (shape.empty() || shape[0] != batch))
      return Status::InvalidArgument(fmt::format(
          "output '{}' has shape {} for a batch of {}: hone stacks outputs whose first dimension is the batch",
          name_, ShapeText(shape), batch));
    Shape sample = whole_ ? shape : Shape(shape.begin() + 1, shape.end());
    if (stacked_.empty()) {
      Shape full = sample;
      full.insert(full.begin(), samples_);
      HONE_ASSIGN_OR_RETURN(stacked_, Tensor::Allocate(t.type(), full));
      sample_ = sample;
    } else if (sample != sample_ || t.type() != stacked_.type()) {
      return Status::InvalidArgument(fmt::format("output '{}' changes between batches: {} {} then {} {}", name_,
                                                 DataTypeName(stacked_.type()), ShapeText(sample_),
                                                 DataTypeName(t.type()), ShapeText(sample)));
    }
    const size_t row_bytes = batch ? t.byte_size() / static_cast<size_t>(batch) : 0;
    std::memcpy(stacked_.mutable_data() + static_cast<size_t>(rows_) * row_bytes, t.data(),
                static_cast<size_t>(keep) * row_bytes);
    rows_ += keep;
    return Status::Ok();
  }

  NamedTensor Take() { return {name_, std::move(stacked_)}; }

 private:
  std::string name_;
  int64_t samples_ = 0;
  int64_t rows_ = 0;
  bool whole_ = false;
  Shape sample_;
  Tensor stacked_;
};

}  // namespace

Result<InputSet> LoadInputs(const runtime::ModelMetadata& metadata, const runtime::InputOptions& options) {
  HONE_ASSIGN_OR_RETURN(runtime::InputPool pool, runtime::InputPool::Create(metadata, options));
  return InputSet{std::move(pool), metadata.inputs};
}

Result<std::vector<NamedTensor>> RunOnAllSamples(const runtime::Session& session, const InputSet& inputs,
                                                 const RunOptions& options) {
  const runtime::ModelMetadata& model = session.metadata();
  std::vector<size_t> order;  // the model's inputs as indices into the pool's
  for (const runtime::IoSpec& in : model.inputs) {
    auto it = std::find_if(inputs.specs.begin(), inputs.specs.end(),
                           [&](const runtime::IoSpec& s) { return s.name == in.name; });
    if (it == inputs.specs.end())
      return Status::InvalidArgument(fmt::format("model '{}' has input '{}', which the other model lacks: both must "
                                                 "take the same inputs",
                                                 session.model_path(), in.name));
    order.push_back(static_cast<size_t>(it - inputs.specs.begin()));
  }
  const int64_t samples = inputs.pool.sample_count();
  const int64_t batch = options.batch > 0 ? options.batch : inputs.pool.default_batch();
  HONE_RETURN_IF_ERROR(inputs.pool.CheckBatch(batch));
  std::vector<Stacker> stacks;
  for (const runtime::IoSpec& out : model.outputs) stacks.emplace_back(out.name, samples, !inputs.pool.batched());
  for (int64_t first = 0; first < samples; first += batch) {
    const int64_t keep = std::min(batch, samples - first);
    // The last batch is short when the model allows; otherwise it wraps round and the extra rows are dropped.
    const int64_t run = inputs.pool.CheckBatch(keep).ok() ? keep : batch;
    HONE_ASSIGN_OR_RETURN(std::vector<Tensor> pooled, inputs.pool.MakeBatch(first, run));
    if (options.transform) options.transform(pooled, first);
    std::vector<Tensor> feed;
    for (size_t index : order) feed.push_back(pooled[index]);
    auto outputs = session.Run(feed);
    if (!outputs.ok())
      return outputs.status().WithContext(fmt::format("model '{}', samples {}..{}", session.model_path(), first,
                                                      first + run - 1));
    for (size_t o = 0; o < stacks.size() && o < outputs->size(); ++o)
      HONE_RETURN_IF_ERROR(stacks[o].Add((*outputs)[o], run, keep));
  }
  std::vector<NamedTensor> result;
  for (Stacker& s : stacks) result.push_back(s.Take());
  return result;
}

bool IsSavedOutputs(const std::string& path) { return EndsWith(path, ".npz") || EndsWith(path, ".npy"); }

Result<std::vector<NamedTensor>> ReadSavedOutputs(const std::string& path) {
  if (EndsWith(path, ".npy")) {
    HONE_ASSIGN_OR_RETURN(Tensor t, ReadNpy(path));
    std::vector<NamedTensor> one;
    one.push_back({"", std::move(t)});
    return one;
  }
  HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> outputs, ReadNpz(path));
  if (outputs.empty()) return Status::InvalidArgument(fmt::format("saved outputs '{}' hold no arrays", path));
  return outputs;
}

Status WriteSavedOutputs(const std::string& path, const std::vector<NamedTensor>& outputs) {
  if (EndsWith(path, ".npy")) {
    if (outputs.size() != 1)
      return Status::InvalidArgument(fmt::format("'{}': a .npy holds one output, but there are {}: use a .npz", path,
                                                 outputs.size()));
    return WriteNpy(path, outputs[0].tensor);
  }
  return WriteNpz(path, outputs, /*compress=*/true);
}

}  // namespace hone::check
