#include "serve/config/llm_config.h"

#include <charconv>

#include <fmt/format.h>

#include "serve/config/onnx_parameters.h"

namespace hone::serve {
namespace {

Status Bad(const ConfigSource& src, const std::string& message) {
  return Status::InvalidArgument(src.where + ": " + message);
}

constexpr std::string_view kKeys =
    "kv_cache_bytes, kv_cache_tokens, block_tokens, max_step_tokens, max_running, max_waiting, context_length, default_max_tokens, "
    "intra_op_thread_count, tokenizer_file, prefix_cache, kv_cache_dtype";

Result<int64_t> Integer(const ConfigSource& src, const std::string& key, const std::string& text, int64_t min,
                        int64_t max) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    return Bad(src, fmt::format("parameter '{}': expected an integer in [{}, {}], got '{}'", key, min, max, text));
  return value;
}

}  // namespace

bool IsLlm(const inference::ModelConfig& config) { return config.backend() == kLlmBackend; }

Result<LlmParameters> LlmParametersFromConfig(const inference::ModelConfig& config, const ConfigSource& src) {
  if (!config.platform().empty())
    return Bad(src, fmt::format("platform '{}': a model with backend '{}' takes no platform", config.platform(),
                                kLlmBackend));
  if (config.max_batch_size() != 0 || config.has_dynamic_batching())
    return Bad(src, fmt::format("backend '{}' batches continuously by itself (requests join and leave between "
                                "tokens): leave max_batch_size at 0 and dynamic_batching out",
                                kLlmBackend));
  LlmParameters p;
  for (const auto& [key, value] : config.parameters()) {
    const std::string& text = value.string_value();
    if (key == "kv_cache_bytes") {
      HONE_ASSIGN_OR_RETURN(p.kv_cache_bytes, Integer(src, key, text, 1, int64_t{1} << 40));
    } else if (key == "kv_cache_tokens") {
      HONE_ASSIGN_OR_RETURN(p.kv_cache_tokens, Integer(src, key, text, 1, int64_t{1} << 30));
    } else if (key == "block_tokens") {
      HONE_ASSIGN_OR_RETURN(p.block_tokens, Integer(src, key, text, 1, 4096));
    } else if (key == "max_step_tokens") {
      HONE_ASSIGN_OR_RETURN(p.max_step_tokens, Integer(src, key, text, 1, 1 << 20));
    } else if (key == "max_running") {
      HONE_ASSIGN_OR_RETURN(p.max_running, Integer(src, key, text, 1, 1 << 16));
    } else if (key == "max_waiting") {
      HONE_ASSIGN_OR_RETURN(p.max_waiting, Integer(src, key, text, 0, 1 << 24));
    } else if (key == "context_length") {
      HONE_ASSIGN_OR_RETURN(p.context_length, Integer(src, key, text, 0, 1 << 24));
    } else if (key == "default_max_tokens") {
      HONE_ASSIGN_OR_RETURN(p.default_max_tokens, Integer(src, key, text, 0, 1 << 24));
    } else if (key == kIntraOpThreadCount) {
      HONE_ASSIGN_OR_RETURN(int64_t threads, Integer(src, key, text, 0, 1024));
      p.intra_op_threads = static_cast<int>(threads);
    } else if (key == "prefix_cache") {
      if (text != "true" && text != "false")
        return Bad(src, fmt::format("parameter 'prefix_cache': expected true or false, got '{}'", text));
      p.prefix_cache = text == "true";
    } else if (key == "kv_cache_dtype") {
      if (text != "float32" && text != "float16" && text != "int8")
        return Bad(src, fmt::format("parameter 'kv_cache_dtype': expected float32, float16 or int8, got '{}'", text));
      p.kv_cache_dtype = text == "float16" ? KvCacheDtype::kFloat16
                         : text == "int8"  ? KvCacheDtype::kInt8
                                           : KvCacheDtype::kFloat32;
    } else if (key == "tokenizer_file") {
      if (text.empty() || text.find('/') != std::string::npos || text.starts_with("."))
        return Bad(src, fmt::format("parameter 'tokenizer_file': expected a file name in the version folder, got "
                                    "'{}'",
                                    text));
      p.tokenizer_file = text;
    } else {
      return Bad(src, fmt::format("parameter '{}': not a parameter of backend '{}' (supported: {})", key,
                                  kLlmBackend, kKeys));
    }
  }
  if (p.kv_cache_tokens && config.parameters().contains("kv_cache_bytes"))
    return Bad(src, "parameters 'kv_cache_bytes' and 'kv_cache_tokens' both set: the budget is one or the other");
  return p;
}

}  // namespace hone::serve
