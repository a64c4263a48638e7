#include "check/perturbation.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>

namespace hone::check {
namespace {

constexpr std::string_view kKinds[] = {"gaussian", "brightness", "contrast"};

bool IsFloat(DataType t) { return t == DataType::kFp32 || t == DataType::kFp64; }
bool IsImage(const runtime::IoSpec& in) { return IsFloat(in.type) && in.shape.size() >= 3; }

// SplitMix64's finalizer: spreads seed, stream and sample index into an independent generator seed.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

template <typename T>
void PerturbRows(const Perturbation& p, Tensor& t, const std::optional<Bounds>& bounds, int64_t first_sample,
                 uint64_t seed, uint64_t stream) {
  const int64_t rows = t.shape().empty() ? 1 : t.shape()[0];
  if (rows == 0) return;
  std::span<T> values = t.mutable_values<T>();
  const size_t row_size = values.size() / static_cast<size_t>(rows);
  for (int64_t r = 0; r < rows; ++r) {
    std::span<T> row = values.subspan(static_cast<size_t>(r) * row_size, row_size);
    switch (p.kind) {
      case PerturbationKind::kGaussian: {
        std::mt19937_64 rng(Mix(Mix(Mix(seed) ^ stream) ^ static_cast<uint64_t>(first_sample + r)));
        std::normal_distribution<double> noise(0.0, p.amount);
        for (T& v : row) v = static_cast<T>(v + noise(rng));
        break;
      }
      case PerturbationKind::kBrightness:
        for (T& v : row) v = static_cast<T>(v + p.amount);
        break;
      case PerturbationKind::kContrast: {
        double mean = 0;
        for (T v : row) mean += v;
        mean /= static_cast<double>(std::max<size_t>(row.size(), 1));
        for (T& v : row) v = static_cast<T>(mean + p.amount * (v - mean));
        break;
      }
    }
    if (bounds)
      for (T& v : row) v = static_cast<T>(std::clamp<double>(v, bounds->low, bounds->high));
  }
}

}  // namespace

std::string Perturbation::Name() const { return fmt::format("{}:{:g}", kKinds[static_cast<int>(kind)], amount); }

Result<std::vector<Perturbation>> ParsePerturbations(std::string_view text) {
  std::vector<Perturbation> out;
  std::optional<PerturbationKind> kind;
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format(
        "--perturb '{}': {}; expected KIND:AMOUNT[,AMOUNT...] with KIND gaussian, brightness or contrast", text,
        why));
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    const size_t length = comma == std::string_view::npos ? std::string_view::npos : comma - start;
    std::string_view item = text.substr(start, length);
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (size_t colon = item.find(':'); colon != std::string_view::npos) {
      std::string_view name = item.substr(0, colon);
      kind.reset();
      for (size_t k = 0; k < std::size(kKinds); ++k)
        if (name == kKinds[k]) kind = static_cast<PerturbationKind>(k);
      if (!kind) return bad(fmt::format("unknown kind '{}'", name));
      item = item.substr(colon + 1);
    }
    if (!kind) return bad("no kind before the first amount");
    double amount = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), amount);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || !std::isfinite(amount))
      return bad(fmt::format("'{}' is not a number", item));
    if (amount < 0 && *kind != PerturbationKind::kBrightness) return bad("amounts must be >= 0");
    out.push_back({*kind, amount});
  }
  return out;
}

Status CheckApplicable(const Perturbation& p, const std::vector<runtime::IoSpec>& inputs) {
  std::string names;
  for (const auto& in : inputs) names += (names.empty() ? "" : "; ") + in.ToString();
  const bool any_float = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) { return IsFloat(in.type); });
  if (!any_float)
    return Status::InvalidArgument(fmt::format("perturbation {}: the model has no FP32 or FP64 input to perturb ({})",
                                               p.Name(), names));
  if (p.kind != PerturbationKind::kGaussian && std::none_of(inputs.begin(), inputs.end(), IsImage))
    return Status::InvalidArgument(fmt::format(
        "perturbation {}: brightness and contrast are for images (FP32/FP64 inputs of rank >= 3); the model has {}",
        p.Name(), names));
  return Status::Ok();
}

void ApplyPerturbation(const Perturbation& p, std::vector<Tensor>& batch, const std::vector<runtime::IoSpec>& specs,
                       const std::vector<std::optional<Bounds>>& bounds, int64_t first_sample, uint64_t seed,
                       uint64_t stream) {
  for (size_t i = 0; i < batch.size() && i < specs.size(); ++i) {
    if (p.kind == PerturbationKind::kGaussian ? !IsFloat(specs[i].type) : !IsImage(specs[i])) continue;
    const std::optional<Bounds> clamp = i < bounds.size() ? bounds[i] : std::nullopt;
    PerturbInput(p, batch[i], clamp, first_sample, seed, Mix(stream) + i);
  }
}

void PerturbInput(const Perturbation& p, Tensor& input, const std::optional<Bounds>& bounds, int64_t first_sample,
                  uint64_t seed, uint64_t stream) {
  if (input.type() == DataType::kFp32)
    PerturbRows<float>(p, input, bounds, first_sample, seed, stream);
  else if (input.type() == DataType::kFp64)
    PerturbRows<double>(p, input, bounds, first_sample, seed, stream);
}

}  // namespace hone::check
