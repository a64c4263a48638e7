// A text-generation model in a repository: `backend: "hone_llm"`, a decoder with a KV cache (generate/decoder.h)
// as <version>/model.onnx and its tokenizer.json beside it. hone's generation engine serves it on the OpenAI
// endpoints and KServe's generate extension, and on /infer with Triton's LLM tensors (text_input -> text_output).
//
//   name: "smollm2"
//   backend: "hone_llm"
//   parameters { key: "kv_cache_bytes" value { string_value: "268435456" } }
//
// Supported `parameters` keys (string_value, all optional):
//   kv_cache_bytes          the KV cache's budget, allocated at load (default 268435456, 256 MiB)
//   kv_cache_tokens         or the budget in positions: whole blocks holding at least this many (not with
//                           kv_cache_bytes); the same number means the same capacity whatever the element type
//   block_tokens            positions per cache block (default 16)
//   max_step_tokens         tokens one engine step processes: decode rows plus prompt chunks (default 256)
//   max_running             sequences decoding together at most (default 32)
//   max_waiting             requests queued at most; more get 503 at once (default 1024)
//   context_length          cap on prompt + generated tokens (default: the model's hone.context_length)
//   default_max_tokens      max_tokens for a request that names none (default: up to the context's end)
//   intra_op_thread_count   ONNX Runtime's threads (default: the model's share of the cores, like any model)
//   tokenizer_file          the tokenizer's file name in the version folder (default tokenizer.json)
//   prefix_cache            keep full blocks of prompt positions for later prompts that start the same (true/false)
//   kv_cache_dtype          float32, float16 or int8: the cache's element type; float16 holds twice the tokens of
//                           float32 in the same bytes (default: the model's: a paged decoder's is its kv_cache input
//                           type, float16 or int8 with a scale per 32, and it refuses another; float32 for a dense
//                           one, which takes float16 too but not int8)
// The engine batches by itself (continuous batching): max_batch_size must be 0 and dynamic_batching absent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "serve/config/config_validate.h"

namespace hone::serve {

inline constexpr std::string_view kLlmBackend = "hone_llm";

enum class KvCacheDtype { kFloat32, kFloat16, kInt8 };

struct LlmParameters {
  int64_t kv_cache_bytes = int64_t{256} << 20;
  std::optional<int64_t> kv_cache_tokens;  // set: the budget in positions instead of kv_cache_bytes
  int64_t block_tokens = 16;
  int64_t max_step_tokens = 256;
  int64_t max_running = 32;
  int64_t max_waiting = 1024;
  int64_t context_length = 0;      // 0: the model's
  int64_t default_max_tokens = 0;  // 0: up to the context's end
  int intra_op_threads = 0;        // 0: not set
  std::string tokenizer_file = "tokenizer.json";
  bool prefix_cache = true;
  std::optional<KvCacheDtype> kv_cache_dtype;  // unset: the model's (float16 for a paged decoder, else float32)
};

bool IsLlm(const inference::ModelConfig& config);

// The parameters, checked: an unknown key or a value out of range is InvalidArgument naming the config file and
// the key. Also checks what an LLM config may not set (platform, max_batch_size, dynamic_batching).
Result<LlmParameters> LlmParametersFromConfig(const inference::ModelConfig& config, const ConfigSource& src);

}  // namespace hone::serve
