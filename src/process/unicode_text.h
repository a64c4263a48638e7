// UTF-8 and Unicode character questions the tokenizers ask, answered the way Hugging Face `tokenizers` (Rust)
// answers them, so that hone produces the same ids. Categories, case mapping and normalisation come from utf8proc.
//
// Where Rust and utf8proc differ, Rust wins: IsWhitespace is Rust's char::is_whitespace (the White_Space property,
// which includes U+0085 and excludes U+200B), and Lowercase applies the one unconditional multi-character mapping
// Rust's char::to_lowercase has (U+0130 -> "i\u0307"), one character at a time (no final-sigma rule).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace hone::process {

// Ok, or InvalidArgument "invalid UTF-8 at byte offset N" for the first ill-formed sequence (overlong forms,
// surrogates and code points above U+10FFFF are ill-formed).
Status ValidateUtf8(std::string_view text);

// Decodes the code point at text[*pos] and advances *pos past it. `text` must be valid UTF-8.
char32_t NextCodePoint(std::string_view text, size_t* pos);
// Appends the UTF-8 encoding of `cp`.
void AppendUtf8(char32_t cp, std::string* out);
// Byte length of the UTF-8 sequence that starts with `lead` (1 for a stray continuation byte).
size_t Utf8SequenceLength(unsigned char lead);
// Number of code points in valid UTF-8 text.
size_t CodePointCount(std::string_view text);

// Bytes decoded as UTF-8 with each maximal ill-formed subsequence replaced by U+FFFD, as Rust's
// String::from_utf8_lossy does.
std::string Utf8Lossy(std::string_view bytes);

bool IsWhitespace(char32_t cp);         // Unicode White_Space (Rust char::is_whitespace)
bool IsControl(char32_t cp);            // Cc, Cf, Co or Cs, but not \t \n \r (BERT's definition)
bool IsPunctuation(char32_t cp);        // general category P*
bool IsBertPunctuation(char32_t cp);    // ASCII punctuation (which includes $+<=>^`|~) or P*
bool IsNumeric(char32_t cp);            // N* (Rust char::is_numeric)
bool IsMark(char32_t cp);               // M* (Mn, Mc, Me)
bool IsNonspacingMark(char32_t cp);     // Mn
bool IsAlphanumeric(char32_t cp);       // L*, N* or M* spacing marks; approximates Rust's is_alphanumeric
bool IsChineseChar(char32_t cp);        // the CJK ideograph blocks BERT pads with spaces

// Lowercases each code point (see above).
std::string Lowercase(std::string_view text);

enum class NormalForm { kNfc, kNfd, kNfkc, kNfkd };
// Unicode normalisation of valid UTF-8 text.
std::string Normalize(std::string_view text, NormalForm form);

}  // namespace hone::process
