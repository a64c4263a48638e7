// BYTES tensors: the KServe binary layout (4-byte little-endian length, then the bytes), checked on the way in.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace hone {
namespace {

std::string Serialized(const std::vector<std::string>& elements) {
  std::string out;
  for (const std::string& e : elements) {
    uint32_t n = static_cast<uint32_t>(e.size());
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
    out += e;
  }
  return out;
}

TEST(BytesTensorTest, FromStringsWritesTheBinaryLayout) {
  std::vector<std::string_view> in = {"ab", "", std::string_view("x\0y", 3)};
  auto t = Tensor::FromStrings({3}, in);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->type(), DataType::kBytes);
  EXPECT_EQ(t->element_count(), 3);
  EXPECT_TRUE(t->owns_data());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(t->data()), t->byte_size()),
            Serialized({"ab", "", std::string("x\0y", 3)}));
  EXPECT_EQ(t->bytes_elements(), in);
}

TEST(BytesTensorTest, FromStringsChecksTheCount) {
  std::vector<std::string_view> in = {"a", "b"};
  auto t = Tensor::FromStrings({3}, in);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("expected 3 elements, got 2"), std::string::npos) << t.status().ToString();
  EXPECT_FALSE(Tensor::FromStrings({-1}, in).ok());
}

TEST(BytesTensorTest, BorrowChecksTheLayout) {
  std::string ok = Serialized({"hello", "world!"});
  auto t = Tensor::Borrow(DataType::kBytes, {2, 1}, ok.data(), ok.size());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_FALSE(t->owns_data());
  EXPECT_EQ(t->bytes_elements(), (std::vector<std::string_view>{"hello", "world!"}));

  // One element short, one too many, a length running past the end, a prefix cut short, bytes left over.
  EXPECT_FALSE(Tensor::Borrow(DataType::kBytes, {3}, ok.data(), ok.size()).ok());
  auto extra = Tensor::Borrow(DataType::kBytes, {1}, ok.data(), ok.size());
  ASSERT_FALSE(extra.ok());
  EXPECT_NE(extra.status().message().find("left over"), std::string::npos) << extra.status().ToString();
  auto past = Tensor::Borrow(DataType::kBytes, {2}, ok.data(), ok.size() - 1);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("runs past the end"), std::string::npos) << past.status().ToString();
  auto cut = Tensor::Borrow(DataType::kBytes, {2}, ok.data(), 9 + 2);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("cut short"), std::string::npos) << cut.status().ToString();
  // A hostile length near 4 GiB does not read out of bounds.
  std::string huge = "\xff\xff\xff\xff" "abc";
  EXPECT_FALSE(Tensor::Borrow(DataType::kBytes, {1}, huge.data(), huge.size()).ok());
}

TEST(BytesTensorTest, EmptyTensorAndEmptyElements) {
  auto none = Tensor::FromStrings({0}, {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->byte_size(), 0u);
  EXPECT_TRUE(none->bytes_elements().empty());
  std::vector<std::string_view> blanks = {"", ""};
  auto two = Tensor::FromStrings({2}, blanks);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->byte_size(), 8u);
  EXPECT_EQ(two->bytes_elements(), blanks);
}

TEST(BytesTensorTest, SliceRowsWalksTheVariableLengths) {
  std::vector<std::string_view> in = {"a", "bb", "ccc", "dddd", "", "ffffff"};
  auto t = Tensor::FromStrings({3, 2}, in);
  ASSERT_TRUE(t.ok());
  auto middle = t->SliceRows(1, 1);
  ASSERT_TRUE(middle.ok()) << middle.status().ToString();
  EXPECT_EQ(middle->shape(), (Shape{1, 2}));
  EXPECT_EQ(middle->bytes_elements(), (std::vector<std::string_view>{"ccc", "dddd"}));
  auto tail = t->SliceRows(1, 2);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->bytes_elements(), (std::vector<std::string_view>{"ccc", "dddd", "", "ffffff"}));
  EXPECT_EQ(tail->byte_size(), 4u * 4 + 3 + 4 + 0 + 6);
  EXPECT_FALSE(t->SliceRows(2, 2).ok());
}

TEST(BytesTensorTest, CloneOwnsACopy) {
  std::string data = Serialized({"one", "two"});
  auto view = Tensor::Borrow(DataType::kBytes, {2}, data.data(), data.size());
  ASSERT_TRUE(view.ok());
  Tensor copy = view->Clone();
  data[4] = 'X';
  EXPECT_TRUE(copy.owns_data());
  EXPECT_EQ(copy.bytes_elements(), (std::vector<std::string_view>{"one", "two"}));
}

TEST(BytesTensorTest, OtherTypesHaveNoBytesElements) {
  auto t = Tensor::Allocate(DataType::kFp32, {2});
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->bytes_elements().empty());
}

}  // namespace
}  // namespace hone
