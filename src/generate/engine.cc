#include "generate/engine.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "base/log.h"
#include "generate/engine_impl.h"

namespace hone::generate {

std::string_view FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kCancelled: return "cancelled";
    case FinishReason::kError: return "error";
  }
  return "error";
}

void Generation::Cancel() {
  if (cancelled_.exchange(true)) return;
  if (wake_) wake_();
}

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  if (options.max_step_tokens < 1 || options.max_running < 1 || options.max_waiting < 0)
    return Status::InvalidArgument(fmt::format(
        "generation engine: max_step_tokens ({}) and max_running ({}) must be >= 1, max_waiting ({}) >= 0",
        options.max_step_tokens, options.max_running, options.max_waiting));
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  HONE_ASSIGN_OR_RETURN(impl->decoder, Decoder::Open(options.model_path, options.session));
  HONE_ASSIGN_OR_RETURN(impl->tokenizer, process::Tokenizer::FromFile(options.tokenizer_path));
  // Generation wants the prompt as written: no padding or truncation a tokenizer.json may carry for encoders.
  impl->tokenizer->set_padding(std::nullopt);
  HONE_RETURN_IF_ERROR(impl->tokenizer->set_truncation(std::nullopt));
  const DecoderShape& shape = impl->decoder->shape();
  if (static_cast<int64_t>(impl->tokenizer->VocabSize()) > shape.vocab)
    return Status::InvalidArgument(fmt::format("tokenizer '{}' has {} tokens but decoder '{}' only {} logits",
                                               options.tokenizer_path, impl->tokenizer->VocabSize(),
                                               options.model_path, shape.vocab));
  impl->context_length = options.context_length > 0 ? std::min(options.context_length, shape.context_length)
                                                    : shape.context_length;
  impl->chat = ChatTemplate::FromJinja(shape.chat_template);
  const bool paged = shape.layout == KvLayout::kPaged;
  // A paged decoder's cache type is its kv_cache input's; a dense one converts float32 to its blocks' type.
  const KvDtype model_kv = !paged                                  ? KvDtype::kFloat32
                           : shape.kv_element == DataType::kInt8 ? KvDtype::kInt8
                                                                 : KvDtype::kFloat16;
  if (paged && options.kv_dtype && *options.kv_dtype != model_kv)
    return Status::InvalidArgument(fmt::format(
        "generation engine: decoder '{}' has the paged layout with {} KV blocks (its kv_cache input); {} blocks "
        "do not apply to it (build_decoder.py --kv-dtype writes a decoder for the other)",
        options.model_path, KvDtypeName(model_kv), KvDtypeName(*options.kv_dtype)));
  if (!paged && options.kv_dtype == KvDtype::kInt8)
    return Status::InvalidArgument(fmt::format(
        "generation engine: decoder '{}' has the dense layout; an int8 KV cache needs the paged one",
        options.model_path));
  const KvDtype kv_dtype = options.kv_dtype.value_or(model_kv);
  const int64_t block_bytes = KvCache::BlockBytes(shape, options.block_tokens, kv_dtype);
  if (block_bytes <= 0) return Status::InvalidArgument("generation engine: block_tokens must be >= 1");
  // A budget in tokens is whole blocks enough to hold them; one in bytes, the whole blocks that fit.
  const int64_t blocks = options.kv_cache_tokens
                             ? (*options.kv_cache_tokens + options.block_tokens - 1) / options.block_tokens
                             : options.kv_cache_bytes / block_bytes;
  if (blocks < 1)
    return Status::InvalidArgument(fmt::format(
        "generation engine: a KV cache of {} bytes holds no block ({} bytes = {} tokens x {} layers x 2 x {} heads "
        "x {} in {})",
        options.kv_cache_bytes, block_bytes, options.block_tokens, shape.layers, shape.kv_heads, shape.head_size,
        KvDtypeName(kv_dtype)));
  HONE_ASSIGN_OR_RETURN(impl->cache, KvCache::Create(shape, options.block_tokens, blocks, kv_dtype));
  impl->grammars = std::make_unique<GrammarCache>(*impl->tokenizer, shape.vocab, shape.eos_token_ids);
  std::unique_ptr<Engine> engine(new Engine(std::move(impl)));
  engine->impl_->PublishStats();
  Impl* raw = engine->impl_.get();
  raw->thread = std::thread([raw] { raw->Loop(); });
  return engine;
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() { Stop(Clock::now()); }

const DecoderShape& Engine::shape() const { return impl_->decoder->shape(); }
const process::Tokenizer& Engine::tokenizer() const { return *impl_->tokenizer; }
const ChatTemplate& Engine::chat_template() const { return impl_->chat; }
int64_t Engine::context_length() const { return impl_->context_length; }

EngineStats Engine::Stats() const {
  std::lock_guard lock(impl_->mu);
  EngineStats s = impl_->stats;
  s.waiting = static_cast<int64_t>(impl_->waiting.size());
  return s;
}

Result<std::shared_ptr<Generation>> Engine::Submit(GenerationRequest request, UpdateCallback on_update) {
  Impl& im = *impl_;
  HONE_RETURN_IF_ERROR(request.sampling.Validate());
  std::vector<int64_t> ids = std::move(request.prompt_ids);
  if (ids.empty()) {
    HONE_ASSIGN_OR_RETURN(process::Encoding e, im.tokenizer->Encode(request.prompt, /*add_special_tokens=*/true));
    ids = std::move(e.ids);
  } else {
    for (int64_t id : ids)
      if (id < 0 || id >= shape().vocab)
        return Status::InvalidArgument(fmt::format("prompt token id {} is outside the vocabulary [0, {})", id,
                                                   shape().vocab));
  }
  const auto& bos = shape().bos_token_id;
  if (request.add_bos && shape().add_bos_token && bos && (ids.empty() || ids.front() != *bos))
    ids.insert(ids.begin(), *bos);
  if (ids.empty()) return Status::InvalidArgument("the prompt is empty");
  const int64_t prompt = static_cast<int64_t>(ids.size());
  if (request.max_tokens && *request.max_tokens < 1)
    return Status::InvalidArgument(fmt::format("max_tokens must be >= 1, got {}", *request.max_tokens));
  const int64_t room = im.context_length - prompt;
  if (room < 1 || (request.max_tokens && *request.max_tokens > room))
    return Status::InvalidArgument(fmt::format(
        "this model's maximum context length is {} tokens; the request has {} prompt tokens and asks for {} more",
        im.context_length, prompt, request.max_tokens ? fmt::format("{}", *request.max_tokens) : std::string("1")));
  const int64_t max_tokens = request.max_tokens.value_or(room);
  // A request whose whole length can never be reserved would wait forever.
  if (im.cache->BlocksFor(prompt + max_tokens) > im.cache->total_blocks())
    return Status::InvalidArgument(fmt::format(
        "the request needs {} tokens of KV cache ({} prompt + {} max_tokens) but the cache holds {} "
        "(kv_cache_bytes); lower max_tokens",
        prompt + max_tokens, prompt, max_tokens, im.cache->total_blocks() * im.cache->block_tokens()));

  std::shared_ptr<ConstrainedGrammar> grammar;
  if (request.format != OutputFormat::kText) {
    HONE_ASSIGN_OR_RETURN(grammar, im.grammars->Get(request.format, request.json_schema));
  }

  auto seq = std::make_unique<Sequence>(request.sampling, *im.tokenizer, std::move(request.stop));
  if (grammar) seq->constraint.emplace(std::move(grammar));
  seq->handle = std::make_shared<Generation>();
  seq->handle->wake_ = [&im] { im.wake.notify_one(); };
  seq->on_update = std::move(on_update);
  seq->prompt = std::move(ids);
  seq->max_tokens = max_tokens;
  seq->ignore_eos = request.ignore_eos;
  seq->times.arrival = Clock::now();
  std::shared_ptr<Generation> handle = seq->handle;
  {
    std::lock_guard lock(im.mu);
    if (im.stopping) return Status::Unavailable("the model is unloading");
    if (static_cast<int64_t>(im.waiting.size()) >= im.options.max_waiting)
      return Status::Unavailable(fmt::format("{} requests are already waiting (max_waiting)", im.waiting.size()));
    seq->id = im.next_sequence_id++;
    im.waiting.push_back(std::move(seq));
  }
  im.wake.notify_one();
  return handle;
}

void Engine::Stop(Clock::time_point deadline) {
  {
    std::lock_guard lock(impl_->mu);
    if (!impl_->stopping) {
      impl_->stopping = true;
      impl_->deadline = deadline;
    }
  }
  impl_->wake.notify_one();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void Engine::Impl::Admit(std::deque<std::unique_ptr<Sequence>>& waiting_now) {
  while (!waiting_now.empty() && static_cast<int64_t>(running.size()) < options.max_running) {
    Sequence& next = *waiting_now.front();
    if (next.handle->cancelled()) {
      Finish(next, FinishReason::kCancelled, Status::Ok());
      waiting_now.pop_front();
      continue;
    }
    // Oldest first, strictly: a large request at the head is not overtaken by smaller ones (it would starve).
    const int64_t cached = options.prefix_cache ? cache->MatchPrefix(next.prompt, &next.kv) : 0;
    if (!cache->Reserve(&next.kv, static_cast<int64_t>(next.prompt.size()) + next.max_tokens).ok()) {
      cache->Release(&next.kv);  // the matched blocks go back to the cache
      break;
    }
    next.prefilled = next.cached_tokens = cached;
    next.times.admitted = Clock::now();
    running.push_back(std::move(waiting_now.front()));
    waiting_now.pop_front();
  }
}

void Engine::Impl::Loop() {
  for (;;) {
    bool stop_now = false;
    {
      std::unique_lock lock(mu);
      wake.wait(lock, [&] {
        if (stopping) return true;
        if (!running.empty()) return true;
        for (const auto& s : waiting)
          if (s->handle->cancelled()) return true;
        // Something waits and could be admitted (the cache is empty when nothing runs).
        return !waiting.empty();
      });
      if (stopping && Clock::now() >= deadline) stop_now = true;
      if (stopping && running.empty() && waiting.empty()) break;
    }
    if (stop_now) {
      std::deque<std::unique_ptr<Sequence>> left;
      {
        std::lock_guard lock(mu);
        left.swap(waiting);
      }
      const Status gone = Status::Unavailable("the model was unloaded before the request finished");
      for (auto& s : left) Finish(*s, FinishReason::kError, gone);
      for (auto& s : running) Finish(*s, FinishReason::kError, gone);
      running.clear();
      PublishStats();
      continue;
    }
    {
      // Admission needs the cache (engine thread only); the queue is taken under the lock and put back after.
      std::deque<std::unique_ptr<Sequence>> waiting_now;
      {
        std::lock_guard lock(mu);
        waiting_now.swap(waiting);
      }
      Admit(waiting_now);
      PublishStats();
      std::lock_guard lock(mu);
      while (!waiting_now.empty()) {  // still waiting, ahead of anything that arrived meanwhile
        waiting.push_front(std::move(waiting_now.back()));
        waiting_now.pop_back();
      }
    }
    // Cancelled sequences leave before the step (their clients are gone: no work for them).
    for (auto it = running.begin(); it != running.end();) {
      if ((*it)->handle->cancelled()) {
        Finish(**it, FinishReason::kCancelled, Status::Ok());
        it = running.erase(it);
      } else {
        ++it;
      }
    }
    if (!running.empty()) Step();
    PublishStats();
  }
  PublishStats();
}

void Engine::Impl::PublishStats() {
  // Distinct blocks: requests that share a cached prefix hold the same blocks.
  std::unordered_set<int32_t> written;
  for (const auto& s : running) {
    const int64_t n = std::min(cache->BlocksFor(s->kv.length), static_cast<int64_t>(s->kv.blocks.size()));
    written.insert(s->kv.blocks.begin(), s->kv.blocks.begin() + n);
  }
  const int64_t used = static_cast<int64_t>(written.size());
  std::lock_guard lock(mu);
  stats.running = static_cast<int64_t>(running.size());
  stats.kv_blocks_total = cache->total_blocks();
  stats.kv_blocks_reserved = cache->used_blocks();
  stats.kv_blocks_used = used;
  stats.kv_blocks_cached = cache->cached_blocks();
  stats.kv_bytes_per_block = cache->bytes_per_block();
  stats.block_tokens = cache->block_tokens();
}

}  // namespace hone::generate
