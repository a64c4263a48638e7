#include "serve/http/content_coding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

namespace hone::serve::http {
namespace {

TEST(ContentCoding, RoundTripsAndRefusesBombs) {
  std::string plain(200000, 'a');
  std::vector<std::span<const std::byte>> pieces = {std::as_bytes(std::span(plain))};
  for (ContentCoding c : {ContentCoding::kGzip, ContentCoding::kDeflate}) {
    const std::string packed = Compress(c, pieces);
    EXPECT_LT(packed.size(), 2000u);
    client::BodyBuffer out;
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
