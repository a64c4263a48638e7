#include "serve/core/batch_check.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "serve/config/warmup.h"
#include "serve/core/io_reshape.h"

namespace hone::serve {
namespace {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  float magnitude;
  if (exp == 0) magnitude = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) magnitude = mant ? NAN : INFINITY;
  else magnitude = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
  return sign ? -magnitude : magnitude;
}

double Element(const Tensor& t, int64_t i) {
  switch (t.type()) {
    case DataType::kFp32: return t.values<float>()[i];
    case DataType::kFp64: return t.values<double>()[i];
    case DataType::kFp16: return HalfToFloat(t.values<uint16_t>()[i]);
    case DataType::kBf16: return std::bit_cast<float>(static_cast<uint32_t>(t.values<uint16_t>()[i]) << 16);
    default: return 0;
  }
}

bool IsFloat(DataType type) {
  return type == DataType::kFp32 || type == DataType::kFp64 || type == DataType::kFp16 || type == DataType::kBf16;
}

bool Close(double solo, double batched) {
  if (std::isnan(solo) || std::isnan(batched)) return std::isnan(solo) && std::isnan(batched);
  if (std::isinf(solo) || std::isinf(batched)) return solo == batched;
  return std::fabs(solo - batched) <= 1e-4 + 1e-3 * std::fabs(solo);
}

// The inputs of `sample` in model order, in the model's shapes.
Result<std::vector<Tensor>> ModelInputs(const runtime::ModelMetadata& model, const IoReshape& reshape,
                                        WarmupSample sample) {
  InferenceRequest request;
  request.inputs = std::move(sample.inputs);
  HONE_RETURN_IF_ERROR(reshape.Inputs(request));
  std::vector<Tensor> ordered(model.inputs.size());
  for (NamedTensor& in : request.inputs)
    if (int k = model.FindInput(in.name); k >= 0) ordered[static_cast<size_t>(k)] = std::move(in.tensor);
  return ordered;
}

// Sample a's and b's rows stacked: a batch of 2.
Result<std::vector<Tensor>> Stack(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  std::vector<Tensor> out;
  for (size_t k = 0; k < a.size(); ++k) {
    Shape shape = a[k].shape();
    shape[0] = 2;
    HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(a[k].type(), std::move(shape)));
    if (a[k].byte_size() > 0) {
      std::memcpy(t.mutable_data(), a[k].data(), a[k].byte_size());
      std::memcpy(t.mutable_data() + a[k].byte_size(), b[k].data(), b[k].byte_size());
    }
    out.push_back(std::move(t));
  }
  return out;
}

// "" when row `row` of `batched` equals `solo` (a batch-1 output); else what differs.
std::string Compare(const std::string& name, const Tensor& solo, const Tensor& batched, int64_t row) {
  Shape want = solo.shape();
  if (!want.empty()) want[0] = 2;
  if (solo.shape().empty() || solo.shape()[0] != 1 || batched.shape() != want)
    return "output '" + name + "' has shape " + ShapeToString(batched.shape()) + " for a batch of 2 but " +
           ShapeToString(solo.shape()) + " for one sample";
  const int64_t n = solo.element_count();
  if (!IsFloat(solo.type())) {
    const size_t bytes = solo.byte_size();
    if (bytes > 0 && std::memcmp(solo.data(), batched.data() + static_cast<size_t>(row) * bytes, bytes) != 0)
      return "output '" + name + "' of sample " + std::to_string(row + 1) + " differs in a batch of 2";
    return "";
  }
  for (int64_t i = 0; i < n; ++i) {
    double s = Element(solo, i), b = Element(batched, row * n + i);
    if (!Close(s, b))
      return "output '" + name + "' of sample " + std::to_string(row + 1) + " element " + std::to_string(i) +
             " is " + std::to_string(b) + " in a batch of 2 but " + std::to_string(s) + " alone";
  }
  return "";
}

}  // namespace

Result<BatchCheck> CheckBatching(const ModelInstance& session, const inference::ModelConfig& config,
                                 const ConfigSource& source) {
  const runtime::ModelMetadata& model = session.metadata();
  const IoReshape reshape(config);
  std::string last_error;
  for (int64_t dim : {1, 2, 4}) {
    GeneratedSampleSpec spec{.dynamic_dim = dim, .fill = GeneratedFill::kRandom, .seed = 0x62617463u};
    HONE_ASSIGN_OR_RETURN(WarmupSample sample_a, GenerateSample(config, spec, "batch check 1", source));
    spec.seed += 1;
    HONE_ASSIGN_OR_RETURN(WarmupSample sample_b, GenerateSample(config, spec, "batch check 2", source));
    HONE_ASSIGN_OR_RETURN(std::vector<Tensor> a, ModelInputs(model, reshape, std::move(sample_a)));
    HONE_ASSIGN_OR_RETURN(std::vector<Tensor> b, ModelInputs(model, reshape, std::move(sample_b)));
    Result<std::vector<Tensor>> solo_a = session.Run(a), solo_b = session.Run(b);
    if (!solo_a.ok() || !solo_b.ok()) {
      last_error = (solo_a.ok() ? solo_b : solo_a).status().message();
      continue;
    }
    HONE_ASSIGN_OR_RETURN(std::vector<Tensor> stacked, Stack(a, b));
    Result<std::vector<Tensor>> together = session.Run(stacked);
    const std::string what = "two random samples (" + spec.ToString() + ")";
    if (!together.ok())
      return BatchCheck{false, what + " ran alone but not as a batch of 2: " + together.status().message()};
    for (size_t k = 0; k < model.outputs.size(); ++k) {
      for (int64_t row = 0; row < 2; ++row) {
        const Tensor& solo = row == 0 ? (*solo_a)[k] : (*solo_b)[k];
        std::string diff = Compare(model.outputs[k].name, solo, (*together)[k], row);
        if (!diff.empty()) return BatchCheck{false, what + " as a batch of 2: " + diff};
      }
    }
    return BatchCheck{true, what + " give the same outputs alone and as a batch of 2"};
  }
  return BatchCheck{false, "could not be checked: random samples did not run (" + last_error + ")"};
}

}  // namespace hone::serve
