// Turns generated token ids into text as they come, for streaming: a token may end inside a UTF-8 character (a
// byte-level BPE token is bytes, not characters), and the text may be running into a stop sequence, so some text
// is held back until it is certain. What Push returns is never taken back.
//
// Decoding works on a window of the last tokens (as Hugging Face's text-generation-inference does): the text of
// tokens [prefix, read) is known; decoding [prefix, end) and dropping that known text gives the new text, unless it
// ends in U+FFFD (an unfinished character), in which case it waits for the next token. Decoding a window, not
// single tokens, keeps decoders that look at neighbours (spaces, byte fallback) right.
//
// Stop sequences end the text before their first occurrence; the stop sequence itself is not returned (OpenAI's
// behaviour).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "process/tokenizer.h"

namespace hone::generate {

class TextStream {
 public:
  // `tokenizer` outlives the stream.
  TextStream(const process::Tokenizer& tokenizer, std::vector<std::string> stop);

  // Adds a generated token; returns the text that became certain (often empty). After a stop sequence appears,
  // stopped() is true and further tokens are ignored.
  Result<std::string> Push(int64_t id);
  // The text still held back, at the end of generation (nothing after a stop).
  std::string Finish();
  bool stopped() const { return stopped_; }

 private:
  std::string TakeSafe();

  const process::Tokenizer& tokenizer_;
  std::vector<std::string> stop_;
  std::vector<int64_t> ids_;
  size_t prefix_ = 0;
  size_t read_ = 0;
  std::string text_;     // all certain decoded text
  std::string emitted_;  // the prefix of text_ returned so far
  bool stopped_ = false;
};

}  // namespace hone::generate
