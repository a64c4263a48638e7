#include "client/tensor_contents.h"

#include <cstring>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hone::client {
namespace {

using ::testing::HasSubstr;
using inference::InferTensorContents;

template <typename T>
std::string RawOf(std::vector<T> values) {
  std::string raw(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  return raw;
}

std::string Bytes(const Tensor& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.byte_size()); }

TEST(TensorContentsTest, FieldForEveryDataType) {
  EXPECT_EQ(ContentsFieldFor(DataType::kBool), "bool_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kInt8), "int_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kInt16), "int_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kInt32), "int_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kInt64), "int64_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kUint8), "uint_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kUint16), "uint_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kUint32), "uint_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kUint64), "uint64_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kFp32), "fp32_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kFp64), "fp64_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kBytes), "bytes_contents");
  EXPECT_EQ(ContentsFieldFor(DataType::kFp16), "");
  EXPECT_EQ(ContentsFieldFor(DataType::kBf16), "");
}

// Every fixed-size type, as raw bytes: the tensor is a view over the very bytes of the message (no copy).
TEST(TensorContentsTest, RawEveryTypeIsBorrowedWithItsBytes) {
  for (DataType type : {DataType::kBool, DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64,
                        DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64, DataType::kFp16,
                        DataType::kBf16, DataType::kFp32, DataType::kFp64}) {
    SCOPED_TRACE(std::string(DataTypeName(type)));
    // 2x3 elements; bytes 0/1 so that BOOL's rule holds too. A heap string (> SSO) is 16-byte aligned.
    std::string raw(6 * ElementSize(type), '\0');
    for (size_t i = 0; i < raw.size(); i += 2) raw[i] = 1;
    auto t = TensorFromRaw("input 'x'", type, {2, 3}, raw);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->type(), type);
    EXPECT_EQ(t->shape(), (Shape{2, 3}));
    EXPECT_EQ(Bytes(*t), raw);
    if (raw.size() > 15) {
      EXPECT_EQ(static_cast<const void*>(t->data()), static_cast<const void*>(raw.data()));
    }
    EXPECT_FALSE(t->owns_data());
  }
}

// Protobuf does not promise aligned string storage; typed reads of a misaligned buffer would be undefined.
TEST(TensorContentsTest, RawMisalignedIsCopied) {
  std::string buffer = "?" + RawOf<float>({1.5f, -2.0f, 3.25f, 4.0f});
  std::string_view raw(buffer.data() + 1, buffer.size() - 1);  // buffer.data() is aligned, so this is not
  auto t = TensorFromRaw("input 'x'", DataType::kFp32, {4}, raw);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->owns_data());
  EXPECT_THAT(std::vector<float>(t->values<float>().begin(), t->values<float>().end()),
              ::testing::ElementsAre(1.5f, -2.0f, 3.25f, 4.0f));
}

TEST(TensorContentsTest, RawErrorsNameTheInput) {
  auto size = TensorFromRaw("input 'x'", DataType::kFp32, {1, 4}, std::string(12, '\0'));
  EXPECT_EQ(size.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(size.status().message(), "input 'x': expected 16 bytes for FP32 shape 1x4 in its raw contents, got 12");

  auto negative = TensorFromRaw("input 'x'", DataType::kFp32, {1, -1}, "");
  EXPECT_EQ(negative.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.status().message(), HasSubstr("input 'x': shape"));
  EXPECT_THAT(negative.status().message(), HasSubstr("expected non-negative dimensions"));

  int64_t big = std::numeric_limits<int64_t>::max() / 2;
  auto overflow = TensorFromRaw("input 'x'", DataType::kFp64, {big, 4}, "");
  EXPECT_EQ(overflow.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(overflow.status().message(), HasSubstr("too many elements"));

  // "abcd" read as a BYTES length prefix claims 1.6 GB.
  auto bytes = TensorFromRaw("input 's'", DataType::kBytes, {1}, "abcd");
  EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bytes.status().message(), HasSubstr("input 's': BYTES element 0: length 1684234849 runs past the end"));

  auto boolean = TensorFromRaw("input 'b'", DataType::kBool, {3}, std::string("\x01\x00\x02", 3));
  EXPECT_EQ(boolean.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(boolean.status().message(), "input 'b': BOOL element 2 is 2, expected 0 or 1");
}

TEST(TensorContentsTest, ZeroElementsAreFine) {
  auto raw = TensorFromRaw("input 'x'", DataType::kFp32, {0, 4}, "");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->element_count(), 0);
  auto contents = TensorFromContents("input 'x'", DataType::kInt8, {0}, InferTensorContents());
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(contents->byte_size(), 0u);
}

// Every type that has a contents field: known values in, the same values out.
TEST(TensorContentsTest, ContentsEveryTypeKnownAnswers) {
  InferTensorContents c;
  c.add_bool_contents(true), c.add_bool_contents(false);
  auto b = TensorFromContents("input 'b'", DataType::kBool, {2}, c);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->values<bool>()[0], true);
  EXPECT_EQ(b->values<bool>()[1], false);

  c.Clear();
  for (int v : {-128, 0, 127}) c.add_int_contents(v);
  auto i8 = TensorFromContents("input 'x'", DataType::kInt8, {3}, c);
  ASSERT_TRUE(i8.ok());
  EXPECT_THAT(std::vector<int8_t>(i8->values<int8_t>().begin(), i8->values<int8_t>().end()),
              ::testing::ElementsAre(-128, 0, 127));
  EXPECT_TRUE(i8->owns_data());  // narrowed into a tensor of its own

  c.Clear();
  for (int v : {-32768, 1, 32767}) c.add_int_contents(v);
  auto i16 = TensorFromContents("input 'x'", DataType::kInt16, {3}, c);
  ASSERT_TRUE(i16.ok());
  EXPECT_EQ(i16->values<int16_t>()[0], -32768);
  EXPECT_EQ(i16->values<int16_t>()[2], 32767);

  c.Clear();
  for (int v : {std::numeric_limits<int32_t>::min(), 7}) c.add_int_contents(v);
  auto i32 = TensorFromContents("input 'x'", DataType::kInt32, {2}, c);
  ASSERT_TRUE(i32.ok());
  EXPECT_EQ(i32->values<int32_t>()[0], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(static_cast<const void*>(i32->data()), static_cast<const void*>(c.int_contents().data()));

  c.Clear();
  c.add_int64_contents(std::numeric_limits<int64_t>::max());
  auto i64 = TensorFromContents("input 'x'", DataType::kInt64, {1}, c);
  ASSERT_TRUE(i64.ok());
  EXPECT_EQ(i64->values<int64_t>()[0], std::numeric_limits<int64_t>::max());

  c.Clear();
  for (unsigned v : {0u, 255u}) c.add_uint_contents(v);
  auto u8 = TensorFromContents("input 'x'", DataType::kUint8, {2}, c);
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ(u8->values<uint8_t>()[1], 255);

  c.Clear();
  c.add_uint_contents(65535u);
  auto u16 = TensorFromContents("input 'x'", DataType::kUint16, {1}, c);
  ASSERT_TRUE(u16.ok());
  EXPECT_EQ(u16->values<uint16_t>()[0], 65535);

  c.Clear();
  c.add_uint_contents(4000000000u);
  auto u32 = TensorFromContents("input 'x'", DataType::kUint32, {1}, c);
  ASSERT_TRUE(u32.ok());
  EXPECT_EQ(u32->values<uint32_t>()[0], 4000000000u);

  c.Clear();
  c.add_uint64_contents(std::numeric_limits<uint64_t>::max());
  auto u64 = TensorFromContents("input 'x'", DataType::kUint64, {1}, c);
  ASSERT_TRUE(u64.ok());
  EXPECT_EQ(u64->values<uint64_t>()[0], std::numeric_limits<uint64_t>::max());

  c.Clear();
  for (float v : {0.5f, -1.25f}) c.add_fp32_contents(v);
  auto f32 = TensorFromContents("input 'x'", DataType::kFp32, {1, 2}, c);
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(f32->values<float>()[1], -1.25f);
  EXPECT_FALSE(f32->owns_data());  // a view over the repeated field

  c.Clear();
  c.add_fp64_contents(1e300);
  auto f64 = TensorFromContents("input 'x'", DataType::kFp64, {1}, c);
  ASSERT_TRUE(f64.ok());
  EXPECT_EQ(f64->values<double>()[0], 1e300);
}

TEST(TensorContentsTest, ContentsErrorsNameTheInput) {
  InferTensorContents c;
  c.add_fp32_contents(1.0f);
  auto half = TensorFromContents("input 'h'", DataType::kFp16, {1}, c);
  EXPECT_EQ(half.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(half.status().message(),
            "input 'h': FP16 data must be sent as raw contents (raw_input_contents); no contents field carries it");
  auto bf16 = TensorFromContents("input 'h'", DataType::kBf16, {1}, c);
  EXPECT_THAT(bf16.status().message(), HasSubstr("BF16 data must be sent as raw contents"));

  InferTensorContents wrong;
  wrong.add_int_contents(1);
  auto field = TensorFromContents("input 'x'", DataType::kFp32, {1}, wrong);
  EXPECT_EQ(field.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(field.status().message(), "input 'x': FP32 data goes in fp32_contents, got int_contents");

  InferTensorContents three;
  for (int i = 0; i < 3; ++i) three.add_fp32_contents(0.0f);
  auto count = TensorFromContents("input 'x'", DataType::kFp32, {1, 4}, three);
  EXPECT_EQ(count.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(count.status().message(), "input 'x': expected 4 values in fp32_contents for shape 1x4, got 3");

  InferTensorContents range;
  range.add_int_contents(1);
  range.add_int_contents(300);
  auto narrow = TensorFromContents("input 'x'", DataType::kInt8, {2}, range);
  EXPECT_EQ(narrow.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(narrow.status().message(), "input 'x': value 300 at index 1 is out of range for INT8");

  InferTensorContents unsigned_range;
  unsigned_range.add_uint_contents(70000);
  auto u16 = TensorFromContents("input 'x'", DataType::kUint16, {1}, unsigned_range);
  EXPECT_EQ(u16.status().message(), "input 'x': value 70000 at index 0 is out of range for UINT16");
}

TEST(TensorContentsTest, ToContentsRoundTripsEveryTypeWithAField) {
  for (DataType type : {DataType::kBool, DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64,
                        DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64, DataType::kFp32,
                        DataType::kFp64}) {
    SCOPED_TRACE(std::string(DataTypeName(type)));
    Tensor t = *Tensor::Allocate(type, {2, 2});
    // Bytes 0/1 make a valid value for every type (BOOL included).
    for (size_t i = 0; i < t.byte_size(); i += ElementSize(type)) t.mutable_data()[i] = std::byte{1};
    InferTensorContents c;
    ASSERT_TRUE(TensorToContents("output 'y'", t, &c).ok());
    auto back = TensorFromContents("output 'y'", type, {2, 2}, c);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(Bytes(*back), Bytes(t));
  }
  InferTensorContents c;
  Status half = TensorToContents("output 'h'", *Tensor::Allocate(DataType::kFp16, {1}), &c);
  EXPECT_EQ(half.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(half.message(), "output 'h': FP16 has no contents field; send it as raw contents");
}

TEST(TensorContentsTest, BytesTravelRawOrAsBytesContents) {
  std::vector<std::string_view> words = {"héllo", "", std::string_view("\0\xff", 2)};
  Tensor t = *Tensor::FromStrings({3, 1}, words);
  const std::string layout = Bytes(t);  // the raw tensor borrows it
  auto raw = TensorFromRaw("input 's'", DataType::kBytes, {3, 1}, layout);
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(raw->bytes_elements(), words);

  InferTensorContents c;
  ASSERT_TRUE(TensorToContents("output 's'", t, &c).ok());
  ASSERT_EQ(c.bytes_contents_size(), 3);
  EXPECT_EQ(c.bytes_contents(2), std::string("\0\xff", 2));
  auto back = TensorFromContents("input 's'", DataType::kBytes, {3, 1}, c);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->bytes_elements(), words);

  auto count = TensorFromContents("input 's'", DataType::kBytes, {2}, c);
  EXPECT_EQ(count.status().message(), "input 's': expected 2 values in bytes_contents for shape 2, got 3");
  c.add_fp32_contents(1.0f);
  auto mixed = TensorFromContents("input 's'", DataType::kBytes, {3, 1}, c);
  EXPECT_EQ(mixed.status().message(), "input 's': BYTES data goes in bytes_contents, got fp32_contents");
}

}  // namespace
}  // namespace hone::client
