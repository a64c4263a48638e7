// A decoder-only language model as an ONNX graph with a KV cache, in the layout ONNX Runtime's own tooling
// (and Hugging Face Optimum) exports:
//
//   inputs   input_ids INT64 [batch, sequence], attention_mask INT64 [batch, past + sequence],
//            position_ids INT64 [batch, sequence], num_logits_to_keep INT64 [] (optional: 0 = every position),
//            past_key_values.N.key / .value FP32 [batch, kv_heads, past, head_size] for each layer N
//   outputs  logits FP32 [batch, kept, vocab], present.N.key / .value FP32 [batch, kv_heads, past + sequence,
//            head_size] (the past with the new positions appended; keys after rotary embedding)
//
// Key slot j is visible to query i of row b when attention_mask[b, j] is 1 and j <= past + i, so rows may pad
// their past with masked slots: that is how sequences of different lengths share one step.
//
// Or hone's paged layout (build_decoder.py --layout paged): attention is ai.hone.PagedAttention
// (runtime/custom_ops.h), which reads and writes the KV cache's blocks in place, so no past is copied in or out:
//
//   inputs   input_ids, position_ids, num_logits_to_keep as above; kv_cache FP16 or INT8 [blocks, layers, 2,
//            kv_heads, block_tokens, head_size] (the KvCache's pool), with an INT8 one kv_scales FP16 [blocks,
//            layers, 2, kv_heads, block_tokens, head_size / 32] (its scales), block_table INT32 [batch, width]
//            (each row's blocks in position order), past_lengths INT32 [batch] (positions already in each row's
//            blocks)
//   outputs  logits only; the step's keys and values land in the blocks at past_lengths[b] ..
//
// Open checks the graph against these layouts and reads the model's limits from its metadata_props (written by
// models/smollm2/build_decoder.py): hone.context_length, hone.bos_token_id, hone.add_bos_token, hone.eos_token_id,
// hone.chat_template.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/session.h"
#include "tensor/tensor.h"

namespace hone::generate {

enum class KvLayout {
  kDense,  // past_key_values in, present out
  kPaged,  // kv_cache, block_table, past_lengths in; the blocks written in place
};

struct DecoderShape {
  KvLayout layout = KvLayout::kDense;
  int layers = 0;
  int kv_heads = 0;
  int head_size = 0;
  int64_t vocab = 0;
  int64_t context_length = 0;  // positions the model was trained for (hone.context_length; 2048 when absent)
  std::optional<int64_t> bos_token_id;
  bool add_bos_token = false;  // prompts start with the BOS token (hone.add_bos_token "true"; llama.cpp's
                               // tokenizer.ggml.add_bos_token): Llama 2/3 want it, SmolLM2 does not
  std::vector<int64_t> eos_token_ids;  // generation stops at any of them
  std::string chat_template;          // jinja text from the model, or ""
  bool has_logits_to_keep = false;
  DataType kv_element = DataType::kFp16;  // paged: kv_cache's element type, kFp16 or kInt8 (with kv_scales)

  // Floats one token occupies in the cache: layers x (key + value) x kv_heads x head_size.
  int64_t FloatsPerToken() const { return int64_t{layers} * 2 * kv_heads * head_size; }
};

// One run of the decoder: rows of `sequence` new tokens each, after a past of `past` slots per row.
struct DecoderStep {
  int64_t batch = 0;
  int64_t sequence = 0;
  int64_t past = 0;
  std::vector<int64_t> input_ids;       // batch x sequence
  std::vector<int64_t> attention_mask;  // batch x (past + sequence)
  std::vector<int64_t> position_ids;    // batch x sequence
  int64_t logits_to_keep = 1;           // last positions of each row to get logits for (0: all)
  // Dense layout: past_key_values in layer order, key then value: 2 x layers tensors of [batch, kv_heads, past,
  // head_size]; `past` is their width and attention_mask says which slots count.
  std::vector<Tensor> past_key_values;
  // Paged layout (attention_mask and past_key_values unused): the pool (borrowed, written by the run), each row's
  // blocks (batch x table_width) and its positions before this step.
  Tensor kv_cache;
  Tensor kv_scales;  // with an INT8 kv_cache: its scales (borrowed too)
  int64_t table_width = 0;
  std::vector<int32_t> block_table;
  std::vector<int32_t> past_lengths;
};

struct DecoderOutput {
  Tensor logits;                 // [batch, kept, vocab]
  std::vector<Tensor> present;   // dense layout: 2 x layers, key then value: [batch, kv_heads, past + sequence,
                                 // head_size]; paged: empty (the keys and values are in the blocks)
};

class Decoder {
 public:
  // InvalidArgument naming the input or output that does not fit the layout above.
  static Result<std::unique_ptr<Decoder>> Open(const std::string& model_path, const runtime::SessionOptions& options);

  const DecoderShape& shape() const { return shape_; }
  const runtime::Session& session() const { return *session_; }

  // Runs one step. The step's tensors are borrowed for the call only.
  Result<DecoderOutput> Run(const DecoderStep& step) const;

 private:
  Decoder() = default;
  std::unique_ptr<runtime::Session> session_;
  DecoderShape shape_;
  // Where each model input comes from, in the model's input order.
  enum class Source {
    kInputIds, kAttentionMask, kPositionIds, kLogitsToKeep, kPast, kKvCache, kKvScales, kBlockTable, kPastLengths
  };
  std::vector<std::pair<Source, int>> inputs_;  // kPast: index into past_key_values
  int logits_output_ = -1;
  std::vector<int> present_outputs_;  // per past_key_values index, the model output holding it
};

}  // namespace hone::generate
