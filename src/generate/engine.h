// The generation engine: many requests share one decoder through iteration-level (continuous) batching.
//
//   HONE_ASSIGN_OR_RETURN(auto engine, Engine::Open(options));
//   auto generation = engine->Submit(request, [](const GenerationUpdate& u) { ... });   // Result<handle>
//   generation.value()->Cancel();   // e.g. the client went away
//
// One engine thread runs steps. Each step:
//   1. admits waiting requests, oldest first, while the KV cache can reserve their whole length (prompt +
//      max_tokens) and the running batch has room;
//   2. runs one decode step for every running sequence that has finished its prompt (one new token each, all rows
//      in one decoder run);
//   3. spends what is left of the step's token budget (max_step_tokens) on prompt chunks (chunked prefill), one
//      sequence per decoder run, oldest first, so a long prompt never stalls the running decodes for long;
//   4. samples, detokenizes and delivers each sequence's new token; a sequence that finished (stop sequence, end of
//      sequence token, max_tokens, the context's end, cancelled) leaves the batch and frees its blocks at once, and
//      the next step may admit a new one.
//
// Admission reserves, it never preempts: a request is admitted only when the cache can hold its whole length, so
// an admitted request always runs to its end and the cache never exceeds its budget. Preempting (vLLM's
// recompute) would admit more requests on optimistic max_tokens, but on a CPU a preempted request pays its whole
// prefill again, the most expensive part of a request, and its time to first token becomes unpredictable. The
// cost of reserving: requests that ask for a large max_tokens and stop early hold blocks they never use (the
// metrics show blocks used vs reserved).
//
// Callbacks run on the engine thread: keep them short (post the text to a connection, record a metric). Exactly
// one update per request carries `finish`; none follows it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "generate/chat_template.h"
#include "generate/decoder.h"
#include "generate/grammar_cache.h"
#include "generate/kv_cache.h"
#include "generate/sampler.h"
#include "process/tokenizer.h"
#include "runtime/session_options.h"

namespace hone::generate {

using Clock = std::chrono::steady_clock;

struct EngineOptions {
  std::string model_path;      // the decoder (decoder.h)
  std::string tokenizer_path;  // its tokenizer.json
  runtime::SessionOptions session;
  int64_t block_tokens = 16;            // positions per KV-cache block
  int64_t kv_cache_bytes = int64_t{256} << 20;  // the cache's budget, allocated at open
  std::optional<int64_t> kv_cache_tokens;       // or its budget in positions (kv_cache_bytes is then unused)
  int64_t max_step_tokens = 256;        // tokens one step may process: decode rows + prompt chunks
  int64_t max_running = 32;             // sequences in the running batch at most
  int64_t max_waiting = 1024;           // queued requests at most; more are Unavailable at once
  int64_t context_length = 0;           // 0: the model's (hone.context_length)
  // Full blocks of prompt positions stay cached after their request and serve a later prompt that starts with the
  // same tokens (kv_cache.h): a shared system prompt is prefilled once.
  bool prefix_cache = true;
  // The cache's element type (kv_cache.h): float16 holds twice the tokens in the same bytes, int8 (paged only)
  // nearly four times. Unset: the model's, a paged decoder's kv_cache input type (float16 or int8; another is
  // refused), float32 for a dense one.
  std::optional<KvDtype> kv_dtype;
};

enum class FinishReason { kStop, kLength, kCancelled, kError };
std::string_view FinishReasonName(FinishReason reason);  // "stop", "length", "cancelled", "error"

struct GenerationRequest {
  std::string prompt;               // the text (chat requests: rendered with the chat template first)
  std::vector<int64_t> prompt_ids;  // used instead of `prompt` when not empty
  bool add_bos = true;              // prepend the BOS token when the model asks for it (add_bos_token) and the
                                    // prompt lacks it
  std::optional<int64_t> max_tokens;  // nullopt: up to the end of the context
  SamplingParams sampling;
  std::vector<std::string> stop;    // stop sequences (text)
  bool ignore_eos = false;          // keep generating past the end-of-sequence token (for benchmarks; not with
                                    // a JSON format, whose end is the grammar's)
  // Structured output: each token is chosen among those that keep the text valid JSON (of `json_schema`, the
  // schema's JSON text, with kJsonSchema); json_schema_grammar.h says which schemas can be enforced.
  OutputFormat format = OutputFormat::kText;
  std::string json_schema;
};

struct GenerationTimes {
  Clock::time_point arrival;
  Clock::time_point admitted;
  Clock::time_point first_token;
  Clock::time_point last_token;
};

struct GenerationUpdate {
  std::string text;  // new text (may be empty: held back until a character or a stop sequence is certain)
  int64_t prompt_tokens = 0;
  int64_t cached_tokens = 0;      // of the prompt, taken from the prefix cache instead of computed
  int64_t completion_tokens = 0;  // generated so far, this update's token included
  bool new_token = false;         // this update is for a newly generated token
  int64_t token = -1;             // its id (when new_token)
  Clock::time_point time;         // when the token was produced
  std::optional<FinishReason> finish;  // set on the last update only
  Status error;                        // with FinishReason::kError
  GenerationTimes times;               // complete on the last update
};
using UpdateCallback = std::function<void(const GenerationUpdate&)>;

// A submitted request, as its submitter holds it.
class Generation {
 public:
  // Ends the request at its next step (its blocks are freed then); its last update says kCancelled.
  void Cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  friend class Engine;
  std::atomic<bool> cancelled_{false};
  std::function<void()> wake_;
};

struct EngineStats {
  int64_t running = 0;
  int64_t waiting = 0;
  int64_t kv_blocks_total = 0;
  int64_t kv_blocks_reserved = 0;  // held by running sequences
  int64_t kv_blocks_used = 0;      // holding positions already written
  int64_t kv_blocks_cached = 0;    // in the prefix table, held by a running sequence or not
  int64_t kv_bytes_per_block = 0;
  int64_t block_tokens = 0;
};

class Engine {
 public:
  // Opens the decoder and tokenizer and allocates the KV cache. Errors name the file at fault.
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  ~Engine();  // Stop(now)

  // Tokenizes and checks the request on the calling thread, then queues it. InvalidArgument when the prompt is
  // empty or does not fit the context with max_tokens, a parameter is out of range, or the JSON schema cannot be
  // enforced; Unavailable when the queue
  // is full or the engine stopped. On success `on_update` will be called, from the engine thread, until an update
  // with `finish`.
  Result<std::shared_ptr<Generation>> Submit(GenerationRequest request, UpdateCallback on_update);

  // Stops taking requests; running and waiting ones may finish until `deadline`, then are ended with an error.
  // Joins the engine thread. Idempotent. Not to be called from an update callback.
  void Stop(Clock::time_point deadline);

  EngineStats Stats() const;
  const DecoderShape& shape() const;
  const process::Tokenizer& tokenizer() const;
  const ChatTemplate& chat_template() const;
  int64_t context_length() const;

 private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hone::generate
