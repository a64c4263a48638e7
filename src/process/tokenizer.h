// A text tokenizer read from a Hugging Face tokenizer.json, giving the same ids as the Python `tokenizers` library
// (0.22) for the two families models use most:
//   - WordPiece / BERT (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] ... [SEP] templates), as in
//     sentence-transformers' MiniLM and BERT-style encoders;
//   - byte-level BPE (ByteLevel and regex Split pre-tokenizers, Digits, Unicode normalizers), as in GPT-2,
//     Llama 3 and SmolLM2.
// plus added (special) tokens, and the truncation and padding sections. A component hone does not implement (say
// a Unigram model or a Metaspace pre-tokenizer) is an InvalidArgument naming its JSON path and the supported
// types, never a tokenizer that gives different ids.
//
//   HONE_ASSIGN_OR_RETURN(auto tokenizer, Tokenizer::FromFile("tokenizer.json"));
//   HONE_ASSIGN_OR_RETURN(Encoding e, tokenizer->Encode("Hello, world!"));   // e.ids, e.attention_mask, ...
//
// hone encodes single texts (no sentence pairs) and does not report character offsets.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "process/tokenizer_encoding.h"
#include "process/tokenizer_options.h"

namespace hone::process {

class AddedVocabulary;
class Decoder;
class Model;
class Normalizer;
class PostProcessor;
class PreTokenizer;

class Tokenizer {
 public:
  // Reads and parses the file. NotFound naming `path` when it cannot be read; InvalidArgument naming `path` and
  // the JSON path at fault when it is malformed or uses an unsupported component.
  static Result<std::unique_ptr<Tokenizer>> FromFile(const std::string& path);
  // Parses tokenizer.json text; `source_name` starts every error message.
  static Result<std::unique_ptr<Tokenizer>> FromJson(std::string_view json, std::string_view source_name);

  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // Tokenizes one text: added tokens, normalizer, pre-tokenizer, model, truncation, special tokens (when
  // add_special_tokens), then padding when it is to a fixed length (or a multiple). InvalidArgument when `text`
  // is not valid UTF-8 (naming the byte offset). Thread-safe: may be called concurrently, but not concurrently
  // with the setters below.
  Result<Encoding> Encode(std::string_view text, bool add_special_tokens = true) const;
  // Encodes each text, then pads them all to the same length when padding is set (to the longest, or the fixed
  // length). The first failure is returned, naming the index of its text. Thread-safe like Encode.
  Result<std::vector<Encoding>> EncodeBatch(std::span<const std::string_view> texts,
                                            bool add_special_tokens = true) const;
  // The text the ids stand for, through the tokenizer.json's decoder (tokens joined with spaces when it has
  // none). Special added tokens are left out when skip_special_tokens. InvalidArgument naming an id that is in
  // neither the vocabulary nor the added tokens.
  Result<std::string> Decode(std::span<const int64_t> ids, bool skip_special_tokens = true) const;

  // The bytes token `id` adds to a text, for constrained decoding (which must know what each token spells before
  // choosing it): with a byte-level decoder (byte_level()) its exact bytes, which may end inside a UTF-8
  // character, whatever comes before it. Otherwise its text decoded alone, which can differ from what it adds in
  // context (a decoder that strips the first token's leading space): constrained decoding refuses such tokenizers.
  // nullopt for special added tokens, ids outside the vocabulary, and text with U+FFFD.
  std::optional<std::string> TokenBytes(int64_t id) const;
  // The decoder maps GPT-2's byte alphabet back to bytes (GPT-2, Llama 3, SmolLM2): every token's bytes are its own.
  bool byte_level() const;
  // Added tokens first, then the model's vocabulary, as tokenizers looks them up.
  std::optional<int64_t> TokenToId(std::string_view token) const;
  std::optional<std::string> IdToToken(int64_t id) const;
  // The model's vocabulary plus added tokens that are not in it.
  size_t VocabSize() const;

  // Truncation and padding start as tokenizer.json says; nullopt turns them off.
  const std::optional<TruncationOptions>& truncation() const { return truncation_; }
  const std::optional<PaddingOptions>& padding() const { return padding_; }
  // InvalidArgument when max_length leaves no room after the special tokens and the stride.
  Status set_truncation(std::optional<TruncationOptions> options);
  void set_padding(std::optional<PaddingOptions> options) { padding_ = std::move(options); }

 private:
  Tokenizer();
  Status EncodeSegment(std::string text, Encoding* out) const;

  std::unique_ptr<AddedVocabulary> added_;
  std::unique_ptr<Normalizer> normalizer_;        // null: none
  std::unique_ptr<PreTokenizer> pre_tokenizer_;   // null: the whole segment is one word
  std::unique_ptr<Model> model_;
  std::unique_ptr<PostProcessor> post_processor_;  // null: no special tokens
  std::unique_ptr<Decoder> decoder_;              // null: join with spaces
  std::optional<TruncationOptions> truncation_;
  std::optional<PaddingOptions> padding_;
};

}  // namespace hone::process
