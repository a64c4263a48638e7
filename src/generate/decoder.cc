#include "generate/decoder.h"

#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "runtime/paged_attention.h"

namespace hone::generate {
namespace {

constexpr std::string_view kPastPrefix = "past_key_values.";
constexpr std::string_view kPresentPrefix = "present.";

// "past_key_values.12.value" -> 12 * 2 + 1; -1 when the name does not fit.
int CacheIndex(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return -1;
  name.remove_prefix(prefix.size());
  int layer = -1;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), layer);
  if (ec != std::errc() || layer < 0) return -1;
  std::string_view rest(end, name.data() + name.size() - end);
  if (rest == ".key") return layer * 2;
  if (rest == ".value") return layer * 2 + 1;
  return -1;
}

std::optional<int64_t> ParseInt(const std::string* text) {
  if (text == nullptr) return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

Status Expect(bool ok, const std::string& path, std::string_view what) {
  if (ok) return Status::Ok();
  return Status::InvalidArgument(fmt::format("decoder '{}': {} (hone's decoder layouts: dense, input_ids, "
                                             "attention_mask, position_ids, past_key_values.N.key|value in, logits "
                                             "and present.N.key|value out; paged, input_ids, position_ids, "
                                             "kv_cache, block_table, past_lengths in, logits out)",
                                             path, what));
}

}  // namespace

Result<std::unique_ptr<Decoder>> Decoder::Open(const std::string& model_path,
                                               const runtime::SessionOptions& options) {
  HONE_ASSIGN_OR_RETURN(auto session, runtime::Session::Open(model_path, options));
  std::unique_ptr<Decoder> d(new Decoder());
  const runtime::ModelMetadata& m = session->metadata();
  DecoderShape& shape = d->shape_;

  int caches = 0;
  for (const runtime::IoSpec& in : m.inputs) {
    if (in.name == "input_ids" || in.name == "attention_mask" || in.name == "position_ids") {
      HONE_RETURN_IF_ERROR(Expect(in.type == DataType::kInt64 && in.shape.size() == 2, model_path,
                                  fmt::format("input '{}' must be INT64 [batch, sequence], is {}", in.name,
                                              in.ToString())));
      d->inputs_.emplace_back(in.name == "input_ids"        ? Source::kInputIds
                              : in.name == "attention_mask" ? Source::kAttentionMask
                                                            : Source::kPositionIds,
                              0);
    } else if (in.name == "num_logits_to_keep") {
      HONE_RETURN_IF_ERROR(Expect(in.type == DataType::kInt64 && in.shape.empty(), model_path,
                                  "input 'num_logits_to_keep' must be an INT64 scalar"));
      d->inputs_.emplace_back(Source::kLogitsToKeep, 0);
      shape.has_logits_to_keep = true;
    } else if (in.name == "kv_cache") {
      HONE_RETURN_IF_ERROR(Expect((in.type == DataType::kFp16 || in.type == DataType::kInt8) &&
                                      in.shape.size() == 6 && in.shape[1] > 0 && in.shape[2] == 2 &&
                                      in.shape[3] > 0 && in.shape[5] > 0,
                                  model_path,
                                  fmt::format("input 'kv_cache' must be FP16 or INT8 [blocks, layers, 2, kv_heads, "
                                              "block_tokens, head_size] with fixed layers, kv_heads and head_size, "
                                              "is {}",
                                              in.ToString())));
      shape.layout = KvLayout::kPaged;
      shape.layers = static_cast<int>(in.shape[1]);
      shape.kv_heads = static_cast<int>(in.shape[3]);
      shape.head_size = static_cast<int>(in.shape[5]);
      shape.kv_element = in.type;
      d->inputs_.emplace_back(Source::kKvCache, 0);
    } else if (in.name == "kv_scales") {
      HONE_RETURN_IF_ERROR(Expect(in.type == DataType::kFp16 && in.shape.size() == 6, model_path,
                                  fmt::format("input 'kv_scales' must be FP16 [blocks, layers, 2, kv_heads, "
                                              "block_tokens, head_size / 32], is {}",
                                              in.ToString())));
      d->inputs_.emplace_back(Source::kKvScales, 0);
    } else if (in.name == "block_table" || in.name == "past_lengths") {
      const bool table = in.name == "block_table";
      HONE_RETURN_IF_ERROR(Expect(in.type == DataType::kInt32 && in.shape.size() == (table ? 2u : 1u), model_path,
                                  fmt::format("input '{}' must be INT32 {}, is {}", in.name,
                                              table ? "[batch, width]" : "[batch]", in.ToString())));
      d->inputs_.emplace_back(table ? Source::kBlockTable : Source::kPastLengths, 0);
    } else if (int index = CacheIndex(in.name, kPastPrefix); index >= 0) {
      HONE_RETURN_IF_ERROR(Expect(in.type == DataType::kFp32 && in.shape.size() == 4 && in.shape[1] > 0 &&
                                      in.shape[3] > 0,
                                  model_path,
                                  fmt::format("input '{}' must be FP32 [batch, kv_heads, past, head_size] with "
                                              "fixed kv_heads and head_size, is {}",
                                              in.name, in.ToString())));
      if (shape.kv_heads == 0) {
        shape.kv_heads = static_cast<int>(in.shape[1]);
        shape.head_size = static_cast<int>(in.shape[3]);
      }
      HONE_RETURN_IF_ERROR(Expect(in.shape[1] == shape.kv_heads && in.shape[3] == shape.head_size, model_path,
                                  fmt::format("input '{}' differs from the other caches: {}", in.name,
                                              in.ToString())));
      d->inputs_.emplace_back(Source::kPast, index);
      ++caches;
    } else {
      return Expect(false, model_path, fmt::format("unexpected input '{}'", in.name));
    }
  }
  const bool paged = shape.layout == KvLayout::kPaged;
  if (paged) {
    HONE_RETURN_IF_ERROR(Expect(caches == 0 && m.FindInput("attention_mask") < 0, model_path,
                                "a paged decoder (kv_cache) takes no attention_mask or past_key_values"));
    for (std::string_view name : {"input_ids", "position_ids", "block_table", "past_lengths"})
      HONE_RETURN_IF_ERROR(Expect(m.FindInput(std::string(name)) >= 0, model_path,
                                  fmt::format("input '{}' is missing", name)));
    const bool int8 = shape.kv_element == DataType::kInt8;
    HONE_RETURN_IF_ERROR(Expect(int8 == (m.FindInput("kv_scales") >= 0) &&
                                    (!int8 || shape.head_size % runtime::kKvGroup == 0),
                                model_path,
                                int8 ? "an INT8 kv_cache comes with a kv_scales input and a head_size that is a "
                                       "multiple of 32"
                                     : "kv_scales comes only with an INT8 kv_cache"));
  } else {
    HONE_RETURN_IF_ERROR(Expect(m.FindInput("block_table") < 0 && m.FindInput("past_lengths") < 0 &&
                                    m.FindInput("kv_scales") < 0,
                                model_path, "block_table, past_lengths and kv_scales come only with a kv_cache input"));
    HONE_RETURN_IF_ERROR(Expect(caches > 0 && caches % 2 == 0, model_path, "no past_key_values inputs"));
    shape.layers = caches / 2;
    for (std::string_view name : {"input_ids", "attention_mask", "position_ids"})
      HONE_RETURN_IF_ERROR(Expect(m.FindInput(std::string(name)) >= 0, model_path,
                                  fmt::format("input '{}' is missing", name)));
  }
  std::vector<bool> seen(caches, false);
  for (const auto& [source, index] : d->inputs_)
    if (source == Source::kPast) {
      HONE_RETURN_IF_ERROR(Expect(index < caches && !seen[index], model_path,
                                  fmt::format("past_key_values are not numbered 0..{} once each", shape.layers - 1)));
      seen[index] = true;
    }

  d->present_outputs_.assign(caches, -1);
  for (size_t o = 0; o < m.outputs.size(); ++o) {
    const runtime::IoSpec& out = m.outputs[o];
    if (out.name == "logits") {
      HONE_RETURN_IF_ERROR(Expect(out.type == DataType::kFp32 && out.shape.size() == 3 && out.shape[2] > 0,
                                  model_path,
                                  fmt::format("output 'logits' must be FP32 [batch, sequence, vocab], is {}",
                                              out.ToString())));
      d->logits_output_ = static_cast<int>(o);
      shape.vocab = out.shape[2];
    } else if (int index = CacheIndex(out.name, kPresentPrefix); index >= 0 && index < caches) {
      d->present_outputs_[index] = static_cast<int>(o);
    }
  }
  HONE_RETURN_IF_ERROR(Expect(d->logits_output_ >= 0, model_path, "output 'logits' is missing"));
  for (int i = 0; i < caches; ++i)
    HONE_RETURN_IF_ERROR(Expect(d->present_outputs_[i] >= 0, model_path,
                                fmt::format("output 'present.{}.{}' is missing", i / 2, i % 2 ? "value" : "key")));

  shape.context_length = ParseInt(m.FindCustom("hone.context_length")).value_or(2048);
  shape.bos_token_id = ParseInt(m.FindCustom("hone.bos_token_id"));
  if (const std::string* add = m.FindCustom("hone.add_bos_token")) shape.add_bos_token = *add == "true" || *add == "1";
  if (auto eos = ParseInt(m.FindCustom("hone.eos_token_id"))) shape.eos_token_ids.push_back(*eos);
  if (const std::string* t = m.FindCustom("hone.chat_template")) shape.chat_template = *t;
  d->session_ = std::move(session);
  return d;
}

Result<DecoderOutput> Decoder::Run(const DecoderStep& step) const {
  const int64_t total = step.past + step.sequence;
  const bool paged = shape_.layout == KvLayout::kPaged;
  if (step.batch <= 0 || step.sequence <= 0 || step.input_ids.size() != size_t(step.batch * step.sequence) ||
      step.position_ids.size() != step.input_ids.size() ||
      (paged ? step.block_table.size() != size_t(step.batch * step.table_width) ||
                   step.past_lengths.size() != size_t(step.batch) || step.kv_cache.empty() ||
                   step.kv_scales.empty() != (shape_.kv_element != DataType::kInt8)
             : step.attention_mask.size() != size_t(step.batch * total) ||
                   step.past_key_values.size() != size_t(shape_.layers) * 2))
    return Status::Internal("decoder step with inconsistent sizes");
  auto borrow = [](const std::vector<int64_t>& v, Shape shape) {
    return Tensor::Borrow(DataType::kInt64, std::move(shape), const_cast<int64_t*>(v.data()),
                          v.size() * sizeof(int64_t));
  };
  std::vector<Tensor> inputs;
  inputs.reserve(inputs_.size());
  int64_t keep = step.logits_to_keep;
  for (const auto& [source, index] : inputs_) {
    switch (source) {
      case Source::kInputIds: {
        HONE_ASSIGN_OR_RETURN(Tensor t, borrow(step.input_ids, {step.batch, step.sequence}));
        inputs.push_back(std::move(t));
        break;
      }
      case Source::kAttentionMask: {
        HONE_ASSIGN_OR_RETURN(Tensor t, borrow(step.attention_mask, {step.batch, total}));
        inputs.push_back(std::move(t));
        break;
      }
      case Source::kPositionIds: {
        HONE_ASSIGN_OR_RETURN(Tensor t, borrow(step.position_ids, {step.batch, step.sequence}));
        inputs.push_back(std::move(t));
        break;
      }
      case Source::kLogitsToKeep: {
        HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Borrow(DataType::kInt64, {}, &keep, sizeof(keep)));
        inputs.push_back(std::move(t));
        break;
      }
      case Source::kPast: inputs.push_back(step.past_key_values[index]); break;
      case Source::kKvCache: inputs.push_back(step.kv_cache); break;
      case Source::kKvScales: inputs.push_back(step.kv_scales); break;
      case Source::kBlockTable: {
        HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Borrow(DataType::kInt32, {step.batch, step.table_width},
                                                       const_cast<int32_t*>(step.block_table.data()),
                                                       step.block_table.size() * sizeof(int32_t)));
        inputs.push_back(std::move(t));
        break;
      }
      case Source::kPastLengths: {
        HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Borrow(DataType::kInt32, {step.batch},
                                                       const_cast<int32_t*>(step.past_lengths.data()),
                                                       step.past_lengths.size() * sizeof(int32_t)));
        inputs.push_back(std::move(t));
        break;
      }
    }
  }
  HONE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, session_->Run(inputs));
  DecoderOutput out;
  out.logits = std::move(outputs[logits_output_]);
  out.present.reserve(present_outputs_.size());
  for (int o : present_outputs_) out.present.push_back(std::move(outputs[o]));
  return out;
}

}  // namespace hone::generate
