// GPT-2's byte-to-character table: every byte 0-255 gets a printable Unicode character (printable Latin-1 bytes
// map to themselves, the rest to U+0100 onwards in byte order), so that byte-level BPE vocabularies are text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hone::process {

// The UTF-8 of the character that stands for `byte`.
std::string_view ByteLevelChar(uint8_t byte);
// Appends the characters for every byte of `bytes`.
void AppendByteLevel(std::string_view bytes, std::string* out);
// The byte that `cp` stands for, or nullopt for a character outside the table.
std::optional<uint8_t> ByteLevelByte(char32_t cp);

}  // namespace hone::process
