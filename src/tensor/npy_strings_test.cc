// numpy's string arrays read as BYTES tensors: np.array(["héllo", ""]) (<U5) and np.array([b"ab", b"c\0"]) (|S2).
#include "tensor/npy_strings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tensor/npy.h"

namespace hone {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A version 1.0 .npy with `descr`, `shape` (Python tuple text) and `data`, as numpy lays it out.
std::string Npy(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict + data;
}

std::string Utf32(const std::u32string& s, size_t width) {
  std::string out;
  for (size_t i = 0; i < width; ++i) {
    char32_t c = i < s.size() ? s[i] : 0;
    for (int b = 0; b < 4; ++b) out += static_cast<char>((c >> (8 * b)) & 0xFF);
  }
  return out;
}

Result<Tensor> Parse(const std::string& npy) { return ParseNpy(std::as_bytes(std::span(npy)), "array 'text'"); }

TEST(NpyStringsTest, UnicodeArraysBecomeUtf8) {
  auto t = Parse(Npy("<U5", "(2,)", Utf32(U"h\u00e9llo", 5) + Utf32(U"", 5)));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->type(), DataType::kBytes);
  EXPECT_THAT(t->bytes_elements(), ElementsAre("h\xc3\xa9llo", ""));
  auto emoji = Parse(Npy("<U1", "(1, 1)", Utf32(U"\U0001F600", 1)));
  ASSERT_TRUE(emoji.ok());
  EXPECT_EQ(emoji->shape(), (Shape{1, 1}));
  EXPECT_THAT(emoji->bytes_elements(), ElementsAre("\xf0\x9f\x98\x80"));
}

TEST(NpyStringsTest, ByteArraysDropTrailingNuls) {
  auto t = Parse(Npy("|S3", "(2,)", std::string("ab\0c\0\0", 6)));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(t->bytes_elements(), ElementsAre("ab", "c"));
}

TEST(NpyStringsTest, BadDataIsNamed) {
  EXPECT_THAT(Parse(Npy("<U2", "(2,)", Utf32(U"ab", 2))).status().message(),
              HasSubstr("array 'text': data is 8 bytes: expected 16"));
  std::string surrogate = Utf32(U"a", 1);
  surrogate[0] = '\x00';
  surrogate[1] = '\xd8';  // U+D800, a lone surrogate
  EXPECT_THAT(Parse(Npy("<U1", "(1,)", surrogate)).status().message(), HasSubstr("not a Unicode code point"));
  // Other dtypes are not strings: left to the numeric reader.
  EXPECT_TRUE(Parse(Npy("<f4", "(1,)", std::string(4, '\0'))).ok());
}

}  // namespace
}  // namespace hone
