#include "serve/config/warmup.h"

#include <cstring>
#include <filesystem>
#include <random>

#include "serve/config/config_types.h"
#include "serve/config/model_name.h"
#include "serve/config/repository.h"
#include "serve/config/reshape.h"
#include "tensor/file_io.h"

namespace hone::serve {
namespace {

Status Bad(const ConfigSource& src, const std::string& message) {
  return Status::InvalidArgument(src.where + ": " + message);
}

std::string Q(const std::string& s) { return "'" + s + "'"; }

template <typename T>
void FillUniformInt(std::span<std::byte> bytes, std::mt19937_64& rng, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  for (size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
    T v = static_cast<T>(dist(rng));
    std::memcpy(bytes.data() + i, &v, sizeof(T));
  }
}

template <typename T>
void FillUniformReal(std::span<std::byte> bytes, std::mt19937_64& rng) {
  std::uniform_real_distribution<T> dist(0, 1);
  for (size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
    T v = dist(rng);
    std::memcpy(bytes.data() + i, &v, sizeof(T));
  }
}

// 16-bit floats in [0.5, 1): a fixed exponent (`base`) and random mantissa bits (`mask`).
void FillHalf(std::span<std::byte> bytes, std::mt19937_64& rng, uint16_t base, uint16_t mask) {
  for (size_t i = 0; i + 2 <= bytes.size(); i += 2) {
    uint16_t v = static_cast<uint16_t>(base | (rng() & mask));
    std::memcpy(bytes.data() + i, &v, 2);
  }
}

void FillRandom(DataType type, std::span<std::byte> bytes, std::mt19937_64& rng) {
  switch (type) {
    case DataType::kBool: FillUniformInt<uint8_t>(bytes, rng, 0, 1); break;
    case DataType::kUint8: FillUniformInt<uint8_t>(bytes, rng, 0, 10); break;
    case DataType::kUint16: FillUniformInt<uint16_t>(bytes, rng, 0, 10); break;
    case DataType::kUint32: FillUniformInt<uint32_t>(bytes, rng, 0, 10); break;
    case DataType::kUint64: FillUniformInt<uint64_t>(bytes, rng, 0, 10); break;
    case DataType::kInt8: FillUniformInt<int8_t>(bytes, rng, 0, 10); break;
    case DataType::kInt16: FillUniformInt<int16_t>(bytes, rng, 0, 10); break;
    case DataType::kInt32: FillUniformInt<int32_t>(bytes, rng, 0, 10); break;
    case DataType::kInt64: FillUniformInt<int64_t>(bytes, rng, 0, 10); break;
    case DataType::kFp16: FillHalf(bytes, rng, 0x3800, 0x03FF); break;
    case DataType::kBf16: FillHalf(bytes, rng, 0x3F00, 0x007F); break;
    case DataType::kFp32: FillUniformReal<float>(bytes, rng); break;
    case DataType::kFp64: FillUniformReal<double>(bytes, rng); break;
    case DataType::kBytes:
    case DataType::kInvalid: break;
  }
}

// A tensor of `rows` copies of `row` (rows == 0: `row` itself, no batch dimension).
Result<Tensor> Batched(const Tensor& row, int64_t rows) {
  if (rows == 0) return row;
  Shape shape = row.shape();
  shape.insert(shape.begin(), rows);
  HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(row.type(), std::move(shape)));
  for (int64_t r = 0; r < rows && row.byte_size() > 0; ++r)
    std::memcpy(t.mutable_data() + r * row.byte_size(), row.data(), row.byte_size());
  return t;
}

const inference::ModelInput* FindInput(const inference::ModelConfig& config, const std::string& name) {
  for (const auto& in : config.input())
    if (in.name() == name) return &in;
  return nullptr;
}

// One input of one sample: checked against the config input, its row made, batched.
Result<Tensor> MakeInput(const ConfigSource& src, const std::string& what, const inference::ModelInput& in,
                         const inference::ModelWarmup::Input& w, const std::string& model_dir, int64_t rows,
                         std::mt19937_64& rng) {
  if (w.data_type() != in.data_type())
    return Bad(src, what + ": data_type " + ConfigDataTypeName(w.data_type()) + " does not match the input's " +
                        ConfigDataTypeName(in.data_type()));
  const DataType type = FromConfigDataType(w.data_type());
  if (type == DataType::kBytes || type == DataType::kInvalid)
    return Status::Unimplemented(src.where + ": " + what + ": " + ConfigDataTypeName(w.data_type()) +
                                 " warm-up data is not supported");
  const Shape dims = ToShape(w.dims()), declared = ToShape(in.dims());
  // The model's own shape is accepted beside dims, as infer accepts it (reshape.h).
  const bool model_shape = in.has_reshape() && ShapeFits(ToShape(in.reshape().shape()), dims);
  if (!ShapeFits(declared, dims) && !model_shape)
    return Bad(src, what + ": dims " + DimsToString(dims) + " do not match the input's dims " +
                        DimsToString(declared) +
                        (in.has_reshape() ? " nor its reshape.shape " + DimsToString(ToShape(in.reshape().shape()))
                                          : std::string()));
  HONE_ASSIGN_OR_RETURN(Tensor row, Tensor::Allocate(type, dims));
  if (w.has_random_data()) {
    FillRandom(type, std::span(row.mutable_data(), row.byte_size()), rng);
  } else if (w.has_input_data_file()) {
    HONE_RETURN_IF_ERROR(ValidateFileName(w.input_data_file(), "input_data_file").WithContext(src.where + ": " + what));
    const std::string path =
        (std::filesystem::path(model_dir) / kWarmupDirName / w.input_data_file()).string();
    auto bytes = ReadFileBytes(path);
    if (!bytes.ok()) return bytes.status().WithContext(src.where + ": " + what);
    if (bytes->size() != row.byte_size())
      return Bad(src, what + ": input_data_file '" + path + "' holds " + std::to_string(bytes->size()) +
                          " bytes, dims " + DimsToString(dims) + " of " + ConfigDataTypeName(w.data_type()) +
                          " need " + std::to_string(row.byte_size()));
    if (!bytes->empty()) std::memcpy(row.mutable_data(), bytes->data(), bytes->size());
  }
  return Batched(row, rows);
}

Result<WarmupSample> MakeSample(const inference::ModelConfig& config, int index, const std::string& model_dir,
                                const ConfigSource& src) {
  const auto& w = config.model_warmup(index);
  std::string what = "model_warmup[" + std::to_string(index) + "]";
  if (!w.name().empty()) what.append(" ").append(Q(w.name()));
  WarmupSample sample;
  sample.name = w.name().empty() ? "sample_" + std::to_string(index) : w.name();
  sample.batch_size = w.batch_size() == 0 ? 1 : w.batch_size();
  sample.count = w.count() == 0 ? 1 : w.count();
  for (const auto& [name, unused] : w.inputs())
    if (FindInput(config, name) == nullptr) return Bad(src, what + ": input " + Q(name) + ": no such model input");
  std::mt19937_64 rng(0x686f6e65u + static_cast<uint64_t>(index));  // "hone": fixed, so warm-up is repeatable
  const int64_t rows = config.max_batch_size() > 0 ? sample.batch_size : 0;
  for (const auto& in : config.input()) {
    auto it = w.inputs().find(in.name());
    if (it == w.inputs().end()) {
      if (in.optional()) continue;
      return Bad(src, what + ": input " + Q(in.name()) + " is missing (every input that is not optional needs data)");
    }
    HONE_ASSIGN_OR_RETURN(Tensor t,
                          MakeInput(src, what + ": input " + Q(in.name()), in, it->second, model_dir, rows, rng));
    sample.inputs.push_back({in.name(), std::move(t)});
  }
  return sample;
}

void FillOnes(DataType type, std::span<std::byte> bytes) {
  auto fill = [&](auto one) {
    for (size_t i = 0; i + sizeof(one) <= bytes.size(); i += sizeof(one))
      std::memcpy(bytes.data() + i, &one, sizeof(one));
  };
  switch (type) {
    case DataType::kBool:
    case DataType::kUint8: fill(uint8_t{1}); break;
    case DataType::kInt8: fill(int8_t{1}); break;
    case DataType::kUint16: fill(uint16_t{1}); break;
    case DataType::kInt16: fill(int16_t{1}); break;
    case DataType::kUint32: fill(uint32_t{1}); break;
    case DataType::kInt32: fill(int32_t{1}); break;
    case DataType::kUint64: fill(uint64_t{1}); break;
    case DataType::kInt64: fill(int64_t{1}); break;
    case DataType::kFp16: fill(uint16_t{0x3C00}); break;
    case DataType::kBf16: fill(uint16_t{0x3F80}); break;
    case DataType::kFp32: fill(1.0f); break;
    case DataType::kFp64: fill(1.0); break;
    case DataType::kBytes:
    case DataType::kInvalid: break;
  }
}

}  // namespace

std::string GeneratedSampleSpec::ToString() const {
  const char* what = fill == GeneratedFill::kZeros ? "zeros" : fill == GeneratedFill::kOnes ? "ones" : "random values";
  return "dynamic dimensions " + std::to_string(dynamic_dim) + ", " + what;
}

Result<WarmupSample> GenerateSample(const inference::ModelConfig& config, const GeneratedSampleSpec& spec,
                                    const std::string& name, const ConfigSource& src) {
  WarmupSample sample;
  sample.name = name;
  sample.batch_size = spec.batch_size;
  const int64_t rows = config.max_batch_size() > 0 ? spec.batch_size : 0;
  std::mt19937_64 rng(spec.seed);
  for (const auto& in : config.input()) {
    const DataType type = FromConfigDataType(in.data_type());
    if (type == DataType::kBytes || type == DataType::kInvalid)
      return Status::Unimplemented(src.where + ": input " + Q(in.name()) + ": hone cannot generate " +
                                   ConfigDataTypeName(in.data_type()) + " data");
    Shape dims = ToShape(in.dims());
    for (int64_t& d : dims)
      if (d < 0) d = spec.dynamic_dim;
    HONE_ASSIGN_OR_RETURN(Tensor row, Tensor::Allocate(type, dims));
    std::span<std::byte> bytes(row.mutable_data(), row.byte_size());
    if (spec.fill == GeneratedFill::kOnes) FillOnes(type, bytes);
    if (spec.fill == GeneratedFill::kRandom) FillRandom(type, bytes, rng);
    if (spec.fill == GeneratedFill::kRandom && rows > 1) {
      // Distinct rows: a batch of copies would hide a model that mixes rows.
      Shape batched = dims;
      batched.insert(batched.begin(), rows);
      HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type, std::move(batched)));
      FillRandom(type, std::span(t.mutable_data(), t.byte_size()), rng);
      sample.inputs.push_back({in.name(), std::move(t)});
      continue;
    }
    HONE_ASSIGN_OR_RETURN(Tensor t, Batched(row, rows));
    sample.inputs.push_back({in.name(), std::move(t)});
  }
  return sample;
}

std::vector<GeneratedSampleSpec> DefaultWarmupCandidates() {
  using F = GeneratedFill;
  return {{1, F::kZeros, 0, 1}, {1, F::kOnes, 0, 1}, {2, F::kZeros, 0, 1}, {2, F::kOnes, 0, 1},
          {4, F::kRandom, 0x686f6e65u, 1}};
}

Result<std::vector<WarmupSample>> BuildWarmupSamples(const inference::ModelConfig& config,
                                                     const std::string& model_dir, const ConfigSource& source) {
  std::vector<WarmupSample> samples;
  for (int i = 0; i < config.model_warmup_size(); ++i) {
    HONE_ASSIGN_OR_RETURN(WarmupSample s, MakeSample(config, i, model_dir, source));
    samples.push_back(std::move(s));
  }
  return samples;
}

}  // namespace hone::serve
