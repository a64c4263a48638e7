#include "client/body_buffer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace hone::client {
namespace {

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

}  // namespace
}  // namespace hone::client
