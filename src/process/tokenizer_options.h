// Truncation and padding: read from the "truncation" and "padding" sections of a tokenizer.json, or set from code
// (Tokenizer::set_truncation / set_padding), and applied as tokenizers applies them: truncation before the special
// tokens are added (leaving room for them), padding after.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/result.h"
#include "process/tokenizer_encoding.h"
#include "process/tokenizer_json.h"

namespace hone::process {

enum class Side { kRight, kLeft };

struct TruncationOptions {
  // The most tokens an encoding keeps, special tokens included.
  size_t max_length = 512;
  // Which end loses tokens: kRight keeps the start of the text, kLeft keeps its end.
  Side direction = Side::kRight;
  // tokenizers' strategies; for a single text LongestFirst and OnlyFirst both cut the text, and OnlySecond (which
  // needs a second text) fails at Encode.
  enum class Strategy { kLongestFirst, kOnlyFirst, kOnlySecond } strategy = Strategy::kLongestFirst;
  // Overlap of the overflowing windows tokenizers can return; hone returns no windows, so it only has to be
  // smaller than max_length minus the special tokens, as tokenizers requires.
  size_t stride = 0;
};

struct PaddingOptions {
  // Pad every encoding to this many tokens; nullopt pads a batch to its longest encoding.
  std::optional<size_t> fixed_length;
  // Round the padded length up to a multiple of this (0: no rounding), e.g. 8 for tensor cores.
  size_t pad_to_multiple_of = 0;
  Side direction = Side::kRight;  // where the padding goes
  int64_t pad_id = 0;
  int64_t pad_type_id = 0;
  std::string pad_token = "[PAD]";
};

// Read the sections (`json` null or JSON null: none). Errors name `path` and the field.
Result<std::optional<TruncationOptions>> ParseTruncation(const Json* json, std::string_view path);
Result<std::optional<PaddingOptions>> ParsePadding(const Json* json, std::string_view path);

// Keeps `max_length` tokens of `encoding`, dropping from the side `direction` names.
void Truncate(Encoding* encoding, size_t max_length, Side direction);
// Pads every encoding to the same length: the fixed length or the longest, rounded up to the multiple. Encodings
// already at least that long are left as they are.
void Pad(std::span<Encoding> encodings, const PaddingOptions& options);

}  // namespace hone::process
