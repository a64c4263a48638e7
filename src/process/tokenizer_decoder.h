// Decoders: turn tokens back into text. Supported "type"s: ByteLevel, WordPiece, Sequence, Replace, Strip, Fuse,
// ByteFallback. Without a decoder the tokens are joined with spaces, as tokenizers does.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "process/tokenizer_json.h"

namespace hone::process {

class Decoder {
 public:
  virtual ~Decoder() = default;
  // Rewrites the token strings (a decoder may merge them into fewer); the text is their concatenation.
  virtual Status DecodeChain(std::vector<std::string>* tokens) const = 0;
  // Whether tokens are spelled in GPT-2's byte alphabet (byte_level.h) and this decoder maps them back to bytes:
  // then a token's bytes can be read from it alone, even when they end inside a UTF-8 character.
  virtual bool byte_level() const { return false; }
};

// The decoder described by `json`; `path` names it in errors ("decoder").
Result<std::unique_ptr<Decoder>> ParseDecoder(const Json& json, std::string_view path);

}  // namespace hone::process
