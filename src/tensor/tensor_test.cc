#include "tensor/tensor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace hone {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(DataTypeTest, NamesRoundTrip) {
  for (DataType t : {DataType::kBool, DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64,
                     DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64, DataType::kFp16,
                     DataType::kBf16, DataType::kFp32, DataType::kFp64, DataType::kBytes}) {
    auto parsed = ParseDataType(DataTypeName(t));
    ASSERT_TRUE(parsed.has_value()) << DataTypeName(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(DataTypeName(DataType::kFp32), "FP32");
  EXPECT_EQ(DataTypeName(DataType::kInvalid), "INVALID");
}

TEST(DataTypeTest, ParseRejectsUnknownAndWrongCase) {
  EXPECT_FALSE(ParseDataType("fp32").has_value());
  EXPECT_FALSE(ParseDataType("FLOAT").has_value());
  EXPECT_FALSE(ParseDataType("").has_value());
  EXPECT_FALSE(ParseDataType("INVALID").has_value());
}

TEST(DataTypeTest, SizesAndKinds) {
  EXPECT_EQ(ElementSize(DataType::kBool), 1u);
  EXPECT_EQ(ElementSize(DataType::kInt8), 1u);
  EXPECT_EQ(ElementSize(DataType::kUint16), 2u);
  EXPECT_EQ(ElementSize(DataType::kFp16), 2u);
  EXPECT_EQ(ElementSize(DataType::kBf16), 2u);
  EXPECT_EQ(ElementSize(DataType::kInt32), 4u);
  EXPECT_EQ(ElementSize(DataType::kFp32), 4u);
  EXPECT_EQ(ElementSize(DataType::kUint64), 8u);
  EXPECT_EQ(ElementSize(DataType::kFp64), 8u);
  EXPECT_EQ(ElementSize(DataType::kBytes), 0u);
  EXPECT_EQ(ElementSize(DataType::kInvalid), 0u);
  EXPECT_TRUE(IsFloatingPoint(DataType::kBf16));
  EXPECT_FALSE(IsFloatingPoint(DataType::kInt32));
  EXPECT_TRUE(IsInteger(DataType::kUint8));
  EXPECT_FALSE(IsInteger(DataType::kBool));
  EXPECT_FALSE(IsInteger(DataType::kFp16));
  EXPECT_EQ(DataTypeOf<float>(), DataType::kFp32);
  EXPECT_EQ(DataTypeOf<int64_t>(), DataType::kInt64);
}

TEST(ShapeTest, ElementCount) {
  EXPECT_EQ(ElementCount({}), 1);
  EXPECT_EQ(ElementCount({2, 3, 4}), 24);
  EXPECT_EQ(ElementCount({5, 0, 7}), 0);
  EXPECT_FALSE(ElementCount({2, -1}).has_value());
  EXPECT_FALSE(ElementCount({kMax, 2}).has_value());
  EXPECT_FALSE(ElementCount({int64_t{1} << 32, int64_t{1} << 32}).has_value());
  EXPECT_EQ(ElementCount({kMax, 1}), kMax);
  // A zero anywhere makes the product zero even after huge dimensions.
  EXPECT_EQ(ElementCount({0, kMax, kMax}), 0);
}

TEST(ShapeTest, ToString) {
  EXPECT_EQ(ShapeToString({}), "scalar");
  EXPECT_EQ(ShapeToString({1, 28, 28}), "1x28x28");
  EXPECT_EQ(ShapeToString({-1, 3}), "-1x3");
  EXPECT_EQ(ShapeToString({0}), "0");
}

TEST(ShapeTest, Parse) {
  EXPECT_EQ(ParseShape("8x128"), (Shape{8, 128}));
  EXPECT_EQ(ParseShape("8,128"), (Shape{8, 128}));
  EXPECT_EQ(ParseShape("5"), (Shape{5}));
  EXPECT_EQ(ParseShape("0x3"), (Shape{0, 3}));
  for (const char* bad : {"", "x", "8x", "x8", "8xx1", "-1x3", "8 x 1", "abc", "1.5", "99999999999999999999",
                          "8x128 "}) {
    EXPECT_FALSE(ParseShape(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(TensorTest, AllocateIsZeroFilledAndOwned) {
  auto t = Tensor::Allocate(DataType::kFp32, {2, 3});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->type(), DataType::kFp32);
  EXPECT_EQ(t->shape(), (Shape{2, 3}));
  EXPECT_EQ(t->element_count(), 6);
  EXPECT_EQ(t->byte_size(), 24u);
  EXPECT_TRUE(t->owns_data());
  EXPECT_FALSE(t->empty());
  for (float v : t->values<float>()) EXPECT_EQ(v, 0.0f);
}

TEST(TensorTest, AllocateScalarAndZeroSize) {
  auto scalar = Tensor::Allocate(DataType::kInt64, {});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->element_count(), 1);
  EXPECT_EQ(scalar->byte_size(), 8u);
  auto none = Tensor::Allocate(DataType::kInt64, {4, 0});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->element_count(), 0);
  EXPECT_EQ(none->byte_size(), 0u);
}

TEST(TensorTest, AllocateRejectsBadRequests) {
  EXPECT_EQ(Tensor::Allocate(DataType::kFp32, {2, -1}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Allocate(DataType::kBytes, {2}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Allocate(DataType::kInvalid, {2}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Allocate(DataType::kFp32, {kMax, 2}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Allocate(DataType::kFp64, {int64_t{1} << 40}).status().code(), StatusCode::kResourceExhausted);
}

TEST(TensorTest, BorrowChecksSize) {
  std::vector<int32_t> data = {1, 2, 3, 4, 5, 6};
  auto t = Tensor::Borrow(DataType::kInt32, {3, 2}, data.data(), data.size() * sizeof(int32_t));
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->owns_data());
  EXPECT_EQ(t->data(), reinterpret_cast<const std::byte*>(data.data()));
  EXPECT_EQ(t->values<int32_t>()[5], 6);
  data[5] = 60;  // a view, not a copy
  EXPECT_EQ(t->values<int32_t>()[5], 60);

  auto small = Tensor::Borrow(DataType::kInt32, {3, 2}, data.data(), 20);
  EXPECT_EQ(small.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(small.status().message().find("expected 24 bytes, got 20"), std::string::npos);
  EXPECT_FALSE(Tensor::Borrow(DataType::kInt32, {3, 2}, data.data(), 28).ok());
  // data[0] is 1: a BYTES element of length 1 would need 5 bytes.
  EXPECT_FALSE(Tensor::Borrow(DataType::kBytes, {1}, data.data(), 4).ok());
}

TEST(TensorTest, ShareKeepsTheOwnerAlive) {
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1.0f, 2.0f});
  std::weak_ptr<std::vector<float>> watch = owner;
  auto t = Tensor::Share(DataType::kFp32, {2}, owner, owner->data(), 8);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->owns_data());
  EXPECT_FALSE(Tensor::Share(DataType::kFp32, {3}, owner, owner->data(), 8).ok());
  owner.reset();
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(t->values<float>()[1], 2.0f);
  t = Status::Internal("drop it");
  EXPECT_TRUE(watch.expired());
}

TEST(TensorTest, SliceRowsSharesTheBuffer) {
  auto t = Tensor::Allocate(DataType::kInt16, {4, 2});
  ASSERT_TRUE(t.ok());
  auto v = t->mutable_values<int16_t>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int16_t>(i);
  auto rows = t->SliceRows(1, 2);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->shape(), (Shape{2, 2}));
  EXPECT_EQ(rows->byte_size(), 8u);
  EXPECT_TRUE(rows->owns_data());
  EXPECT_EQ(rows->values<int16_t>()[0], 2);
  EXPECT_EQ(rows->values<int16_t>()[3], 5);
  v[2] = 20;
  EXPECT_EQ(rows->values<int16_t>()[0], 20);

  EXPECT_TRUE(t->SliceRows(4, 0).ok());
  EXPECT_EQ(t->SliceRows(3, 2).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(t->SliceRows(-1, 1).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(t->SliceRows(0, -1).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(t->SliceRows(1, kMax).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(t->SliceRows(kMax, 1).status().code(), StatusCode::kOutOfRange);
  auto scalar = Tensor::Allocate(DataType::kInt16, {});
  EXPECT_EQ(scalar->SliceRows(0, 1).status().code(), StatusCode::kInvalidArgument);
}

TEST(TensorTest, SliceRowsOfZeroRows) {
  auto t = Tensor::Allocate(DataType::kFp32, {0, 3});
  ASSERT_TRUE(t.ok());
  auto rows = t->SliceRows(0, 0);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->byte_size(), 0u);
}

TEST(TensorTest, CloneIsDeep) {
  std::vector<double> data = {1.5, -2.5};
  auto borrowed = Tensor::Borrow(DataType::kFp64, {2}, data.data(), sizeof(double) * 2);
  ASSERT_TRUE(borrowed.ok());
  Tensor copy = borrowed->Clone();
  EXPECT_TRUE(copy.owns_data());
  EXPECT_NE(copy.data(), borrowed->data());
  data[0] = 9.0;
  EXPECT_EQ(copy.values<double>()[0], 1.5);
  EXPECT_EQ(copy.shape(), (Shape{2}));
  EXPECT_TRUE(Tensor().Clone().empty());
}

}  // namespace
}  // namespace hone
