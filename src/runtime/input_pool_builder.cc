// InputPool::Create: checks the flags and the dataset against the model and fills the pool, in either of the two
// modes input_pool.h describes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "runtime/input_pool.h"
#include "runtime/raw_samples.h"
#include "tensor/npy.h"
#include "tensor/npz.h"

namespace hone::runtime {

// Builds an InputPool step by step; a friend so that InputPool's interface stays small.
class InputPoolBuilder {
 public:
  InputPoolBuilder(const ModelMetadata& m, const InputOptions& o) : metadata_(m), options_(o) {}

  Result<InputPool> Build() {
    for (const auto& [name, shape] : options_.shapes)
      if (metadata_.FindInput(name) < 0) return Status::InvalidArgument("--shape " + name + ": " + UnknownInput(name));
    for (const auto& [name, range] : options_.ranges)
      if (metadata_.FindInput(name) < 0) return Status::InvalidArgument("--range " + name + ": " + UnknownInput(name));
    for (const IoSpec& in : metadata_.inputs) {
      if (in.type == DataType::kInvalid)
        return Status::Unimplemented("input '" + in.name + "': element type " + in.onnx_type +
                                     " is not supported by hone yet");
      if (in.type == DataType::kBytes && options_.data_path.empty())
        return Status::InvalidArgument("input '" + in.name + "' is BYTES (raw text or files): give samples with "
                                       "--data (a .txt of one text a line, a .jsonl of JSON strings, or a folder "
                                       "of files, one sample each)");
      pool_.names_.push_back(in.name);
      pool_.declared_.push_back(in.shape);
    }
    pool_.axis_ = metadata_.SharedBatchAxis();
    HONE_RETURN_IF_ERROR(options_.data_path.empty() ? Generate() : Load());
    if (batched())
      for (const auto& [name, shape] : options_.shapes)  // full-rank shapes give the batch size: they must agree
        if (shape.size() == metadata_.inputs[metadata_.FindInput(name)].shape.size() && !shape.empty() &&
            shape[0] != pool_.default_batch_)
          return Status::InvalidArgument("--shape " + name + ":" + ShapeToString(shape) + ": batch dimension " +
                                         std::to_string(shape[0]) + " disagrees with the batch size " +
                                         std::to_string(pool_.default_batch_) +
                                         " set by the other inputs; one request has one batch size");
    HONE_RETURN_IF_ERROR(pool_.CheckBatch(pool_.default_batch_));
    return std::move(pool_);
  }

 private:
  bool batched() const { return pool_.axis_.shared; }

  // Every dimension fixed to 1 (a scalar included): the input holds exactly one value.
  static bool HoldsOneValue(const Shape& shape) {
    return std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d == 1; });
  }

  std::string NoBatchAxis() const {
    return "the model has no shared batch dimension (" + pool_.axis_.reason + ")";
  }

  std::string UnknownInput(const std::string& name) const {
    std::string s = "the model has no input named '" + name + "' (inputs:";
    for (const IoSpec& in : metadata_.inputs) s += " " + in.name;
    return s + ")";
  }

  // Batched: one sample's dimensions (all but the first), from the model and --shape.
  Result<Shape> SampleShape(const IoSpec& in) {
    Shape sample(in.shape.begin() + 1, in.shape.end());
    auto given = options_.shapes.find(in.name);
    if (given != options_.shapes.end()) {
      const Shape& g = given->second;
      bool full = g.size() == in.shape.size();
      if (!full && g.size() + 1 != in.shape.size())
        return Status::InvalidArgument("--shape " + in.name + ":" + ShapeToString(g) + ": expected rank " +
                                       std::to_string(in.shape.size()) + " (" + in.ToString() + "), or " +
                                       std::to_string(in.shape.size() - 1) + " without the batch dimension");
      for (size_t d = 0; d < g.size(); ++d) {
        size_t model_dim = full ? d : d + 1;
        if (in.shape[model_dim] >= 0 && in.shape[model_dim] != g[d])
          return Status::InvalidArgument("--shape " + in.name + ":" + ShapeToString(g) + ": dimension " +
                                         std::to_string(model_dim) + " is fixed to " +
                                         std::to_string(in.shape[model_dim]) + " by the model (" + in.ToString() +
                                         ")");
      }
      if (full && !g.empty()) pool_.default_batch_ = std::max<int64_t>(pool_.default_batch_, g[0]);
      sample.assign(g.begin() + (full ? 1 : 0), g.end());
    }
    return DynamicDimsGiven(in, sample, 1);
  }

  // Whole tensors: the input's own shape, from the model and --shape (which must then be the full shape).
  Result<Shape> WholeShape(const IoSpec& in) {
    auto given = options_.shapes.find(in.name);
    if (given == options_.shapes.end()) return DynamicDimsGiven(in, in.shape, 0);
    const Shape& g = given->second;
    const std::string flag = "--shape " + in.name + ":" + ShapeToString(g);
    if (g.size() != in.shape.size())
      return Status::InvalidArgument(flag + ": " + NoBatchAxis() + ", so give the input's full shape, rank " +
                                     std::to_string(in.shape.size()) + " (" + in.ToString() + ")");
    for (size_t d = 0; d < g.size(); ++d)
      if (in.shape[d] >= 0 && in.shape[d] != g[d])
        return Status::InvalidArgument(flag + ": dimension " + std::to_string(d) + " is fixed to " +
                                       std::to_string(in.shape[d]) + " by the model (" + in.ToString() + ")");
    return g;
  }

  // `shape` is the model's dimensions from `offset` on: InvalidArgument naming the first still dynamic.
  Result<Shape> DynamicDimsGiven(const IoSpec& in, const Shape& shape, size_t offset) {
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] < 0) {
        const std::string& symbol = in.symbols.size() > d + offset ? in.symbols[d + offset] : std::string();
        return Status::InvalidArgument("input '" + in.name + "' (" + in.ToString() + "): dimension " +
                                       std::to_string(d + offset) + (symbol.empty() ? "" : " ('" + symbol + "')") +
                                       " is dynamic: give it with --shape " + in.name + ":..." +
                                       (batched() ? "" : " (the full shape: " + NoBatchAxis() + ")"));
      }
    return shape;
  }

  Status Generate() {
    pool_.samples_ = options_.generated_samples;
    if (pool_.samples_ <= 0) return Status::InvalidArgument("generated samples: expected > 0");
    for (const IoSpec& in : metadata_.inputs) {
      Shape sample;
      if (batched()) {
        HONE_ASSIGN_OR_RETURN(sample, SampleShape(in));
        if (in.shape[0] >= 0) pool_.default_batch_ = in.shape[0];
      } else {
        HONE_ASSIGN_OR_RETURN(sample, WholeShape(in));
      }
      Shape column_shape = sample;
      column_shape.insert(column_shape.begin(), pool_.samples_);
      HONE_ASSIGN_OR_RETURN(Tensor column, Tensor::Allocate(in.type, column_shape));
      auto range = options_.ranges.count(in.name) ? options_.ranges.at(in.name)
                                                  : (IsFloatingPoint(in.type) ? ValueRange{0, 1} : ValueRange{0, 100});
      // One generator per input, seeded from the seed and the input's position: adding an input elsewhere does not
      // change this one's values.
      std::mt19937_64 rng(options_.seed * 1000003u + pool_.columns_.size());
      Fill(column, range, rng);
      pool_.columns_.push_back(std::move(column));
      pool_.per_sample_.push_back(true);
    }
    pool_.description_ = "generated (seed " + std::to_string(options_.seed) + ", " +
                         std::to_string(pool_.samples_) + " samples)";
    return Status::Ok();
  }

  static void Fill(Tensor& t, const ValueRange& r, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> real(r.low, r.high);
    auto integer = [&] { return static_cast<int64_t>(std::floor(real(rng))); };
    switch (t.type()) {
      case DataType::kFp32:
        for (float& v : t.mutable_values<float>()) {
          v = static_cast<float>(real(rng));
          if (v >= r.high) v = std::nextafter(v, -INFINITY);  // rounding to float may reach HIGH
        }
        break;
      case DataType::kFp64: for (double& v : t.mutable_values<double>()) v = real(rng); break;
      case DataType::kBool: for (uint8_t& v : t.mutable_values<uint8_t>()) v = rng() & 1; break;
      case DataType::kInt8: for (int8_t& v : t.mutable_values<int8_t>()) v = static_cast<int8_t>(integer()); break;
      case DataType::kUint8: for (uint8_t& v : t.mutable_values<uint8_t>()) v = static_cast<uint8_t>(integer()); break;
      case DataType::kInt16: for (int16_t& v : t.mutable_values<int16_t>()) v = static_cast<int16_t>(integer()); break;
      case DataType::kUint16: for (uint16_t& v : t.mutable_values<uint16_t>()) v = static_cast<uint16_t>(integer()); break;
      case DataType::kInt32: for (int32_t& v : t.mutable_values<int32_t>()) v = static_cast<int32_t>(integer()); break;
      case DataType::kUint32: for (uint32_t& v : t.mutable_values<uint32_t>()) v = static_cast<uint32_t>(integer()); break;
      case DataType::kInt64: for (int64_t& v : t.mutable_values<int64_t>()) v = integer(); break;
      case DataType::kUint64: for (uint64_t& v : t.mutable_values<uint64_t>()) v = static_cast<uint64_t>(integer()); break;
      default: break;  // FP16/BF16 stay zero: generating half floats needs a conversion hone does not have yet
    }
  }

  Result<std::vector<NamedTensor>> ReadArrays() {
    const std::string& path = options_.data_path;
    std::vector<NamedTensor> arrays;
    if (IsRawSamplePath(path)) return RawArray();
    if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
      if (metadata_.inputs.size() != 1)
        return Status::InvalidArgument("dataset '" + path + "': a .npy holds one array, but the model has " +
                                       std::to_string(metadata_.inputs.size()) +
                                       " inputs: give a .npz with an array per input");
      HONE_ASSIGN_OR_RETURN(Tensor t, ReadNpy(path));
      arrays.push_back({metadata_.inputs[0].name, std::move(t)});
      return arrays;
    }
    return ReadNpz(path);
  }

  // Raw samples (raw_samples.h) as the array of the model's one BYTES input: [samples, 1] for an input of
  // shape [batch, 1] (Triton's way to send one string a row), [samples] for [batch].
  Result<std::vector<NamedTensor>> RawArray() {
    const std::string& path = options_.data_path;
    if (metadata_.inputs.size() != 1 || metadata_.inputs[0].type != DataType::kBytes) {
      std::string inputs;
      for (const IoSpec& in : metadata_.inputs) inputs += (inputs.empty() ? "" : ", ") + in.ToString();
      return Status::InvalidArgument("dataset '" + path + "': raw samples (a folder, .txt or .jsonl) are for a "
                                     "model with one BYTES input; this one takes " + inputs +
                                     ": give a .npz with an array per input");
    }
    const IoSpec& in = metadata_.inputs[0];
    HONE_ASSIGN_OR_RETURN(std::vector<std::string> samples, ReadRawSamples(path));
    std::vector<std::string_view> views(samples.begin(), samples.end());
    Shape shape = {static_cast<int64_t>(samples.size())};
    for (size_t d = 1; d < in.shape.size(); ++d) {
      if (in.shape[d] > 1)
        return Status::InvalidArgument("dataset '" + path + "': input " + in.ToString() +
                                       " takes several strings a sample; raw samples give one");
      shape.push_back(1);
    }
    HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::FromStrings(std::move(shape), views));
    std::vector<NamedTensor> arrays;
    arrays.push_back({in.name, std::move(t)});
    return arrays;
  }

  Status Load() {
    const std::string& path = options_.data_path;
    HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> arrays, ReadArrays());
    std::vector<bool> used(arrays.size(), false);
    std::string counted_by;  // the first per-sample array, which set the sample count
    for (const IoSpec& in : metadata_.inputs) {
      auto it = std::find_if(arrays.begin(), arrays.end(), [&](const NamedTensor& a) { return a.name == in.name; });
      if (it == arrays.end()) {
        std::string names;
        for (const auto& a : arrays) names += (names.empty() ? "" : ", ") + a.name;
        return Status::InvalidArgument("dataset '" + path + "' has no array for input '" + in.name +
                                       "' (arrays: " + names + ")");
      }
      used[it - arrays.begin()] = true;
      const Tensor& a = it->tensor;
      HONE_ASSIGN_OR_RETURN(bool per_sample, CheckArray(in, a));
      if (options_.shapes.count(in.name)) {  // --shape checks against the model, gives the batch, must fit the data
        Shape expected;
        if (batched()) {
          HONE_ASSIGN_OR_RETURN(expected, SampleShape(in));
        } else {
          HONE_ASSIGN_OR_RETURN(expected, WholeShape(in));
        }
        Shape got(a.shape().begin() + (per_sample ? 1 : 0), a.shape().end());
        if (expected != got)
          return Status::InvalidArgument("--shape " + in.name + ":" + ShapeToString(options_.shapes.at(in.name)) +
                                         ": dataset '" + path + "' has array '" + in.name + "' of shape " +
                                         ShapeToString(a.shape()));
      }
      if (per_sample) {
        if (counted_by.empty()) {
          pool_.samples_ = a.shape()[0];
          counted_by = in.name;
        } else if (a.shape()[0] != pool_.samples_) {
          return Status::InvalidArgument("dataset '" + path + "': array '" + in.name + "' has " +
                                         std::to_string(a.shape()[0]) + " rows, but '" + counted_by + "' has " +
                                         std::to_string(pool_.samples_));
        }
      } else {
        pool_.fixed_inputs_.push_back(in.name);
      }
      if (batched() && in.shape[0] >= 0) pool_.default_batch_ = in.shape[0];
      if (!per_sample && !batched() && HoldsOneValue(in.shape) && a.shape() != in.shape) {  // one value, other rank
        HONE_ASSIGN_OR_RETURN(Tensor reshaped, Tensor::Allocate(a.type(), in.shape));
        std::memcpy(reshaped.mutable_data(), a.data(), a.byte_size());
        it->tensor = std::move(reshaped);
      }
      pool_.columns_.push_back(std::move(it->tensor));
      pool_.per_sample_.push_back(per_sample);
    }
    for (size_t i = 0; i < arrays.size(); ++i)
      if (!used[i]) pool_.unused_arrays_.push_back(arrays[i].name);
    if (counted_by.empty()) pool_.samples_ = 1;  // every input fixed: one sample, the same in every request
    if (pool_.samples_ == 0) return Status::InvalidArgument("dataset '" + path + "': arrays have no rows");
    pool_.description_ = "dataset '" + path + "' (" + std::to_string(pool_.samples_) + " samples";
    if (!pool_.fixed_inputs_.empty()) {
      pool_.description_ += "; fixed in every sample:";
      for (const auto& name : pool_.fixed_inputs_) pool_.description_ += " " + name;
    }
    pool_.description_ += ")";
    return Status::Ok();
  }

  // Checks one dataset array against its input: whether it is per-sample (true) or fixed (false, whole tensors
  // only), or InvalidArgument naming the array and what was expected.
  Result<bool> CheckArray(const IoSpec& in, const Tensor& a) {
    const std::string what = "dataset '" + options_.data_path + "': array '" + in.name + "'";
    if (a.type() != in.type)
      return Status::InvalidArgument(what + ": expected " + std::string(DataTypeName(in.type)) + " for input " +
                                     in.ToString() + ", got " + std::string(DataTypeName(a.type())));
    const size_t rank = in.shape.size();
    if (batched()) {
      if (a.shape().size() != rank)
        return Status::InvalidArgument(what + ": expected rank " + std::to_string(rank) + " (" + in.ToString() +
                                       ", samples along the first axis), got shape " + ShapeToString(a.shape()));
      for (size_t d = 1; d < rank; ++d)
        if (in.shape[d] >= 0 && in.shape[d] != a.shape()[d])
          return Status::InvalidArgument(what + ": dimension " + std::to_string(d) + " must be " +
                                         std::to_string(in.shape[d]) + " (" + in.ToString() + "), got shape " +
                                         ShapeToString(a.shape()));
      return true;
    }
    // One value for an input that holds one value, in another rank ([] for [1], or [1] for []): the same value,
    // as Triton's reshape of a scalar sent as [1] treats it. Fixed; stored in the input's own shape.
    if (HoldsOneValue(in.shape) && a.element_count() == 1 && a.shape() != in.shape) return false;
    const size_t offset = a.shape().size() == rank + 1 ? 1 : 0;  // where the input's own dimensions start
    if (offset == 0 && a.shape().size() != rank) {
      return Status::InvalidArgument(
          what + ": expected rank " + std::to_string(rank + 1) + " (a tensor per sample, samples along the first " +
          "axis) or " + std::to_string(rank) + " (one tensor for every sample) for input " + in.ToString() +
          ", got shape " + ShapeToString(a.shape()) + "; " + NoBatchAxis() + ", so each input is a whole tensor");
    }
    for (size_t d = 0; d < rank; ++d)
      if (in.shape[d] >= 0 && in.shape[d] != a.shape()[d + offset])
        return Status::InvalidArgument(what + ": dimension " + std::to_string(d + offset) + " must be " +
                                       std::to_string(in.shape[d]) + " (" + in.ToString() +
                                       (offset ? ", samples along the first axis" : ", one tensor for every sample") +
                                       "), got shape " + ShapeToString(a.shape()));
    return offset == 1;
  }

  const ModelMetadata& metadata_;
  const InputOptions& options_;
  InputPool pool_;
};

Result<InputPool> InputPool::Create(const ModelMetadata& metadata, const InputOptions& options) {
  return InputPoolBuilder(metadata, options).Build();
}

}  // namespace hone::runtime
