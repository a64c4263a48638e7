#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>

#include "base/result.h"

namespace hone {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("x: expected even, got " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  HONE_ASSIGN_OR_RETURN(int h, Half(x));
  HONE_ASSIGN_OR_RETURN(auto q, Half(h));
  return q;
}

Status CheckEven(int x) {
  HONE_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CodesMatchGrpcNumbers) {
  EXPECT_EQ(static_cast<int>(StatusCode::kInvalidArgument), 3);
  EXPECT_EQ(static_cast<int>(StatusCode::kUnavailable), 14);
  EXPECT_EQ(StatusCodeName(StatusCode::kNotFound), "NOT_FOUND");
}

TEST(StatusTest, ContextIsPrepended) {
  Status s = Status::NotFound("no such file").WithContext("model 'a.onnx'");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "model 'a.onnx': no such file");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

TEST(ResultTest, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "x: expected even, got 3");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(5).code(), StatusCode::kInvalidArgument);
}

TEST(ResultTest, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

}  // namespace
}  // namespace hone
