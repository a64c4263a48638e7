#include "process/byte_level.h"

#include <array>

#include "process/unicode_text.h"

namespace hone::process {
namespace {

struct Table {
  std::array<std::string, 256> chars;
  std::array<int16_t, 512> bytes;  // code point (all below U+0200) -> byte, -1 for none

  Table() {
    bytes.fill(-1);
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const int cp = printable ? b : next++;
      AppendUtf8(static_cast<char32_t>(cp), &chars[b]);
      bytes[cp] = static_cast<int16_t>(b);
    }
  }
};

const Table& GetTable() {
  static const Table table;
  return table;
}

}  // namespace

std::string_view ByteLevelChar(uint8_t byte) { return GetTable().chars[byte]; }

void AppendByteLevel(std::string_view bytes, std::string* out) {
  const Table& t = GetTable();
  for (char c : bytes) out->append(t.chars[static_cast<uint8_t>(c)]);
}

std::optional<uint8_t> ByteLevelByte(char32_t cp) {
  if (cp >= 512) return std::nullopt;
  const int16_t b = GetTable().bytes[cp];
  if (b < 0) return std::nullopt;
  return static_cast<uint8_t>(b);
}

}  // namespace hone::process
