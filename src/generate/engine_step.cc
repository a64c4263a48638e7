// One engine step: a decode run over every sequence past its prompt, then prompt chunks under the token budget.
#include <algorithm>

#include <fmt/format.h>

#include "base/log.h"
#include "generate/engine_impl.h"

namespace hone::generate {

void Engine::Impl::Step() {
  std::vector<Sequence*> decoding;
  std::vector<Sequence*> prefilling;
  for (auto& s : running) (s->decoding() ? decoding : prefilling).push_back(s.get());

  if (!decoding.empty()) {
    if (Status st = DecodeStep(decoding); !st.ok()) {
      Log(LogLevel::kError, {}, "generation: decode step failed: {}", st.message());
      for (Sequence* s : decoding) Finish(*s, FinishReason::kError, st);
    }
  }
  // The decode rows took part of the budget; prompts get the rest, and always some, so that a full batch of
  // decodes cannot starve a waiting prompt.
  int64_t budget = std::max<int64_t>(options.max_step_tokens - static_cast<int64_t>(decoding.size()),
                                     std::min<int64_t>(options.max_step_tokens, 16));
  for (Sequence* s : prefilling) {
    if (budget <= 0) break;
    const int64_t chunk = std::min(budget, static_cast<int64_t>(s->prompt.size()) - s->prefilled);
    budget -= chunk;
    if (Status st = PrefillChunk(*s, chunk); !st.ok()) {
      Log(LogLevel::kError, {}, "generation: prompt step failed: {}", st.message());
      Finish(*s, FinishReason::kError, st);
    }
  }
  running.remove_if([](const std::unique_ptr<Sequence>& s) { return s->handle == nullptr; });
}

Status Engine::Impl::FillPaged(std::span<Sequence* const> rows, DecoderStep& step) const {
  int64_t width = 0;
  for (Sequence* s : rows) width = std::max(width, static_cast<int64_t>(s->kv.blocks.size()));
  HONE_ASSIGN_OR_RETURN(step.kv_cache, cache->Pool());
  if (cache->dtype() == KvDtype::kInt8) {
    HONE_ASSIGN_OR_RETURN(step.kv_scales, cache->Scales());
  }
  step.table_width = width;
  // Block 0 pads the shorter rows' tables: the decoder reads only the blocks a row's positions need.
  step.block_table.assign(rows.size() * static_cast<size_t>(width), 0);
  for (size_t b = 0; b < rows.size(); ++b) {
    std::copy(rows[b]->kv.blocks.begin(), rows[b]->kv.blocks.end(), step.block_table.begin() + b * width);
    step.past_lengths.push_back(static_cast<int32_t>(rows[b]->kv.length));
  }
  return Status::Ok();
}

Status Engine::Impl::DecodeStep(std::vector<Sequence*>& rows) {
  const int64_t batch = static_cast<int64_t>(rows.size());
  const bool paged = decoder->shape().layout == KvLayout::kPaged;
  std::vector<uint64_t> ids;
  for (Sequence* s : rows) ids.push_back(s->id);
  DecoderStep step;
  step.batch = batch;
  step.sequence = 1;
  step.logits_to_keep = 1;
  if (paged) {
    HONE_RETURN_IF_ERROR(FillPaged(rows, step));
  } else if (ids == last_decode.ids && !last_decode.present.empty()) {
    // The same rows as the last step: its present is this step's past, its mask plus the new slot.
    const int64_t old = last_decode.width + 1;
    step.past = old;
    step.past_key_values = std::move(last_decode.present);
    step.attention_mask.reserve(static_cast<size_t>(batch * (old + 1)));
    for (int64_t b = 0; b < batch; ++b) {
      auto row = last_decode.attention_mask.begin() + b * old;
      step.attention_mask.insert(step.attention_mask.end(), row, row + old);
      step.attention_mask.push_back(1);
    }
  } else {
    int64_t width = 0;
    for (Sequence* s : rows) width = std::max(width, s->kv.length);
    step.past = width;
    step.attention_mask.assign(static_cast<size_t>(batch * (width + 1)), 0);
    std::vector<const KvSequence*> kvs;
    for (int64_t b = 0; b < batch; ++b) {
      std::fill_n(step.attention_mask.begin() + b * (width + 1), rows[b]->kv.length, 1);
      step.attention_mask[b * (width + 1) + width] = 1;
      kvs.push_back(&rows[b]->kv);
    }
    HONE_ASSIGN_OR_RETURN(step.past_key_values, cache->Gather(kvs, width));
  }
  for (Sequence* s : rows) {
    step.input_ids.push_back(s->next_token);
    step.position_ids.push_back(s->kv.length);  // the true position: padding slots do not count
  }
  last_decode = {};
  HONE_ASSIGN_OR_RETURN(DecoderOutput out, decoder->Run(step));
  const int64_t vocab = out.logits.shape()[2];
  const float* logits = out.logits.values<float>().data();
  bool all_continue = true;
  for (int64_t b = 0; b < batch; ++b) {
    Sequence& s = *rows[b];
    if (paged)
      cache->Advance(&s.kv, 1);  // the decoder wrote the position into the row's blocks
    else
      cache->Append(out.present, b, step.past, 1, &s.kv);
    Result<int64_t> token = Choose(s, {logits + b * vocab, static_cast<size_t>(vocab)});
    if (!token.ok()) {
      Finish(s, FinishReason::kError, token.status());
      all_continue = false;
    } else if (Deliver(s, *token)) {
      all_continue = false;
    }
  }
  // Keep the batch only while every row goes on and the padding stays small against the real positions.
  int64_t longest = 0;
  for (Sequence* s : rows) longest = std::max(longest, s->kv.length);
  if (!paged && all_continue && step.past + 1 <= longest + options.block_tokens) {
    cache->RoundLikeBlocks(out.present, step.past);  // float16 blocks: the next step sees what a gather would give
    last_decode.ids = std::move(ids);
    last_decode.present = std::move(out.present);
    last_decode.attention_mask = std::move(step.attention_mask);
    last_decode.width = step.past;
  }
  return Status::Ok();
}

Status Engine::Impl::PrefillChunk(Sequence& seq, int64_t chunk) {
  const int64_t past = seq.kv.length;
  DecoderStep step;
  step.batch = 1;
  step.sequence = chunk;
  step.past = past;
  step.logits_to_keep = 1;
  step.input_ids.assign(seq.prompt.begin() + seq.prefilled, seq.prompt.begin() + seq.prefilled + chunk);
  for (int64_t i = 0; i < chunk; ++i) step.position_ids.push_back(past + i);
  const bool paged = decoder->shape().layout == KvLayout::kPaged;
  if (paged) {
    Sequence* row = &seq;
    HONE_RETURN_IF_ERROR(FillPaged({&row, 1}, step));
  } else {
    step.attention_mask.assign(static_cast<size_t>(past + chunk), 1);
    const KvSequence* kv = &seq.kv;
    HONE_ASSIGN_OR_RETURN(step.past_key_values, cache->Gather({&kv, 1}, past));
  }
  HONE_ASSIGN_OR_RETURN(DecoderOutput out, decoder->Run(step));
  if (paged)
    cache->Advance(&seq.kv, chunk);
  else
    cache->Append(out.present, 0, past, chunk, &seq.kv);
  seq.prefilled += chunk;
  if (options.prefix_cache) cache->Register(seq.prompt, seq.prefilled, &seq.kv);
  if (seq.prefilled < static_cast<int64_t>(seq.prompt.size())) return Status::Ok();
  const int64_t kept = out.logits.shape()[1];
  const int64_t vocab = out.logits.shape()[2];
  // Without num_logits_to_keep the model gave every position's logits: the last row is the next token's.
  const float* last = out.logits.values<float>().data() + (kept - 1) * vocab;
  HONE_ASSIGN_OR_RETURN(const int64_t token, Choose(seq, {last, static_cast<size_t>(vocab)}));
  Deliver(seq, token);
  return Status::Ok();
}

Result<int64_t> Engine::Impl::Choose(Sequence& seq, std::span<const float> logits) {
  if (!seq.constraint) return seq.sampler.Next(logits);
  HONE_ASSIGN_OR_RETURN(const int64_t token, seq.constraint->Choose(logits, seq.sampler));
  seq.constraint->Accept(token);
  return token;
}

bool Engine::Impl::Deliver(Sequence& seq, int64_t token) {
  const Clock::time_point now = Clock::now();
  if (seq.generated == 0) seq.times.first_token = now;
  seq.times.last_token = now;
  ++seq.generated;
  const auto& eos = decoder->shape().eos_token_ids;
  seq.last_token = token;
  // A constrained sequence ends where its grammar does (the constraint allows an end token only there).
  if ((!seq.ignore_eos || seq.constraint) && std::find(eos.begin(), eos.end(), token) != eos.end()) {
    Finish(seq, FinishReason::kStop, Status::Ok(), seq.text.Finish());
    return true;
  }
  Result<std::string> text = seq.text.Push(token);
  if (!text.ok()) {
    Finish(seq, FinishReason::kError, text.status());
    return true;
  }
  if (seq.text.stopped()) {
    Finish(seq, FinishReason::kStop, Status::Ok(), std::move(*text));
    return true;
  }
  // The cache holds prompt + generated - 1 positions now; the next token needs one more, within the context.
  if (seq.generated >= seq.max_tokens || seq.kv.length + 1 >= context_length) {
    Finish(seq, FinishReason::kLength, Status::Ok(), *text + seq.text.Finish());
    return true;
  }
  seq.next_token = token;
  GenerationUpdate u;
  u.token = token;
  u.text = std::move(*text);
  u.prompt_tokens = static_cast<int64_t>(seq.prompt.size());
  u.cached_tokens = seq.cached_tokens;
  u.completion_tokens = seq.generated;
  u.new_token = true;
  u.time = now;
  seq.on_update(u);
  return false;
}

void Engine::Impl::Finish(Sequence& seq, FinishReason reason, Status error, std::string text) {
  if (seq.handle == nullptr) return;  // already finished
  cache->Release(&seq.kv);
  GenerationUpdate u;
  u.text = std::move(text);
  u.prompt_tokens = static_cast<int64_t>(seq.prompt.size());
  u.cached_tokens = seq.cached_tokens;
  u.completion_tokens = seq.generated;
  u.new_token = reason == FinishReason::kStop || reason == FinishReason::kLength;
  if (u.new_token) u.token = seq.last_token;
  u.time = seq.times.last_token.time_since_epoch().count() ? seq.times.last_token : Clock::now();
  u.finish = reason;
  u.error = std::move(error);
  u.times = seq.times;
  seq.handle = nullptr;  // marks it finished: the step loop drops it from `running`
  seq.on_update(u);
}

}  // namespace hone::generate
