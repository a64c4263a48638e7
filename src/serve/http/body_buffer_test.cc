#include "serve/http/body_buffer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "serve/http/content_coding.h"

namespace hone::serve::http {
namespace {

using ::testing::HasSubstr;

TEST(BodyBuffer, AlignsTheBinarySectionAndKeepsPadding) {
  for (size_t offset : {0u, 1u, 7u, 63u, 64u, 100u}) {
    BodyBuffer b;
    b.Reset(offset + 40, offset);
    std::string bytes(offset + 40, 'x');
    b.Append(bytes.data(), bytes.size());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data() + offset) % BodyBuffer::kAlignment, 0u) << offset;
    EXPECT_GE(b.readable(), b.size() + BodyBuffer::kPadding);
  }
}

TEST(BodyBuffer, GrowsKeepingContentAndAlignment) {
  BodyBuffer b;
  b.Reset(0, 5);  // no Content-Length (chunked): grows as bytes arrive
  std::string all;
  for (int i = 0; i < 1000; ++i) {
    std::string piece = std::to_string(i) + ",";
    b.Append(piece.data(), piece.size());
    all += piece;
  }
  ASSERT_EQ(b.size(), all.size());
  EXPECT_EQ(std::memcmp(b.data(), all.data(), all.size()), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data() + 5) % BodyBuffer::kAlignment, 0u);
}

TEST(BodyBuffer, MoveKeepsTheBytesWhereTheyAreAndEmptiesTheSource) {
  BodyBuffer a;
  a.Reset(3, 0);
  a.Append("abc", 3);
  const std::byte* where = a.data();
  BodyBuffer b(std::move(a));
  EXPECT_EQ(b.data(), where) << "tensors that point into the body stay valid";
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.data(), nullptr);
  a.Append("z", 1);  // a moved-from buffer is usable again
  EXPECT_EQ(a.size(), 1u);
}

TEST(ContentCoding, RoundTripsAndRefusesBombs) {
  std::string plain(200000, 'a');
  std::vector<std::span<const std::byte>> pieces = {std::as_bytes(std::span(plain))};
  for (ContentCoding c : {ContentCoding::kGzip, ContentCoding::kDeflate}) {
    const std::string packed = Compress(c, pieces);
    EXPECT_LT(packed.size(), 2000u);
    BodyBuffer out;
    ASSERT_TRUE(Decompress(c, std::as_bytes(std::span(packed)), 1 << 20, 0, out).ok());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(out.data()), out.size()), plain);
    EXPECT_TRUE(Decompress(c, std::as_bytes(std::span(packed)), plain.size(), 0, out).ok()) << "exactly the limit";
    Status s = Decompress(c, std::as_bytes(std::span(packed)), 1000, 0, out);
    EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << "200 KB from 2 KB must not pass a 1000-byte limit";
    EXPECT_EQ(Decompress(c, std::as_bytes(std::span(packed)).first(packed.size() / 2), 1 << 20, 0, out).code(),
              StatusCode::kInvalidArgument)
        << "truncated";
  }
  EXPECT_EQ(RequestCoding(""), ContentCoding::kIdentity);
  EXPECT_EQ(RequestCoding("GZIP"), ContentCoding::kGzip);
  EXPECT_EQ(RequestCoding("br"), ContentCoding::kUnsupported);
  EXPECT_EQ(ResponseCoding("gzip;q=0, deflate"), ContentCoding::kDeflate);
  EXPECT_EQ(ResponseCoding("br, identity"), ContentCoding::kIdentity);
  EXPECT_EQ(ResponseCoding("deflate, gzip;q=0.5"), ContentCoding::kGzip);
}

}  // namespace
}  // namespace hone::serve::http
