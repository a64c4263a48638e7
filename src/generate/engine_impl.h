// The engine's insides (internal to this part): the sequences it runs and the step loop. engine.cc owns the
// thread, the queue and admission; engine_step.cc runs decoder steps and delivers tokens.
#pragma once

#include <condition_variable>
#include <deque>
#include <list>
#include <mutex>
#include <thread>

#include "generate/engine.h"
#include "generate/kv_cache.h"
#include "generate/text_stream.h"
#include "generate/token_constraint.h"

namespace hone::generate {

struct Sequence {
  uint64_t id = 0;  // unique per engine: tells a batch that kept its rows from one that changed
  std::shared_ptr<Generation> handle;
  UpdateCallback on_update;
  std::vector<int64_t> prompt;
  int64_t max_tokens = 0;  // resolved: the most this sequence generates
  bool ignore_eos = false;
  Sampler sampler;
  TextStream text;
  KvSequence kv;
  int64_t prefilled = 0;     // prompt positions in the cache
  int64_t cached_tokens = 0;  // of them, taken from the prefix cache
  int64_t next_token = -1;   // sampled and not yet in the cache (>= 0 once the prompt is done)
  int64_t generated = 0;
  int64_t last_token = -1;   // the latest sampled token
  std::optional<OutputConstraint> constraint;  // with a JSON response format
  GenerationTimes times;

  Sequence(const SamplingParams& sampling, const process::Tokenizer& tokenizer, std::vector<std::string> stop)
      : sampler(sampling), text(tokenizer, std::move(stop)) {}
  bool decoding() const { return next_token >= 0; }
};

struct Engine::Impl {
  EngineOptions options;
  std::unique_ptr<Decoder> decoder;
  std::unique_ptr<process::Tokenizer> tokenizer;
  ChatTemplate chat;
  std::unique_ptr<KvCache> cache;  // engine thread only
  std::unique_ptr<GrammarCache> grammars;
  int64_t context_length = 0;

  mutable std::mutex mu;
  std::condition_variable wake;
  std::deque<std::unique_ptr<Sequence>> waiting;  // guarded by mu
  bool stopping = false;                          // guarded by mu
  Clock::time_point deadline;                     // guarded by mu: when stopping, ends what is left
  EngineStats stats;                              // guarded by mu: published after each step

  std::list<std::unique_ptr<Sequence>> running;  // engine thread only, in admission order
  uint64_t next_sequence_id = 1;                 // guarded by mu

  // The last decode step's batch, kept so that the next step over the same rows takes its present tensors as its
  // past as they are (no gather from the blocks): rows that ended before the longest keep their padding slots,
  // masked. Any change of rows (one joins, one ends) gathers afresh, compacting. Engine thread only.
  struct DecodeBatch {
    std::vector<uint64_t> ids;
    std::vector<Tensor> present;          // [rows, kv_heads, width + 1, head_size] each
    std::vector<int64_t> attention_mask;  // rows x (width + 1): which of present's slots are real
    int64_t width = 0;                    // the past those were made with
  } last_decode;
  std::thread thread;

  void Loop();
  // Moves waiting requests into `running` while they fit (engine thread).
  void Admit(std::deque<std::unique_ptr<Sequence>>& waiting_now);
  // One decoder step over every decoding sequence; prompt chunks with the rest of the budget.
  void Step();
  Status DecodeStep(std::vector<Sequence*>& rows);
  // A paged decoder's step inputs for `rows`: the pool, their block tables and pasts.
  Status FillPaged(std::span<Sequence* const> rows, DecoderStep& step) const;
  Status PrefillChunk(Sequence& seq, int64_t chunk);
  // The next token of `seq` from its row of logits: sampled, within its output constraint if it has one.
  Result<int64_t> Choose(Sequence& seq, std::span<const float> logits);
  // Delivers the token sampled for `seq`, finishing it when it ends. Returns whether it finished.
  bool Deliver(Sequence& seq, int64_t token);
  // Ends `seq` (last update), frees its blocks. Does not remove it from `running`.
  void Finish(Sequence& seq, FinishReason reason, Status error, std::string text = {});
  void PublishStats();
};

}  // namespace hone::generate
