#include "tensor/npz.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "tensor/npy.h"
#include "tensor/test_util.h"
#include "tensor/zip_writer.h"

namespace hone {
namespace {

using ::testing::HasSubstr;
using testing_util::AsBytes;
using testing_util::Fixture;
using testing_util::Patterned;
using testing_util::SameBytes;

Result<std::vector<NamedTensor>> Parse(std::string_view archive) { return ParseNpz(AsBytes(archive), "file 't.npz'"); }

std::vector<NamedTensor> EveryDtype() {
  std::vector<NamedTensor> tensors;
  const Shape shapes[] = {{2, 3}, {}, {0}, {4, 1, 2}};
  size_t i = 0;
  for (DataType type : testing_util::NpyTypes()) {
    // Names out of alphabetical order, to show that archive order is kept.
    std::string name = "t";  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on "t" + std::string
    name += std::to_string(100 - i);
    name += DataTypeName(type);
    tensors.push_back({name, Patterned(type, shapes[i % 4])});
    ++i;
  }
  return tensors;
}

void ExpectSame(const std::vector<NamedTensor>& want, const std::vector<NamedTensor>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(want[i].name, got[i].name);
    EXPECT_TRUE(SameBytes(want[i].tensor, got[i].tensor)) << want[i].name;
  }
}

TEST(NpzTest, RoundTripsEveryDtype) {
  for (bool compress : {false, true}) {
    SCOPED_TRACE(compress ? "compressed" : "stored");
    auto archive = EncodeNpz(EveryDtype(), compress);
    ASSERT_TRUE(archive.ok()) << archive.status().ToString();
    auto got = Parse(*archive);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectSame(EveryDtype(), *got);
  }
  auto empty = Parse(*EncodeNpz({}, false));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(NpzTest, FileRoundTripAndErrors) {
  std::string path = testing_util::TempPath("round_trip.npz");
  ASSERT_TRUE(WriteNpz(path, EveryDtype(), true).ok());
  auto got = ReadNpz(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(EveryDtype(), *got);
  std::remove(path.c_str());
  auto missing = ReadNpz(path);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr(path));
}

TEST(NpzTest, ReadsZip64ArchivesLikeNumpysOwn) {
  ZipWriter zip(/*force_zip64=*/true);
  std::vector<NamedTensor> tensors = EveryDtype();
  for (const NamedTensor& t : tensors) {
    std::string npy = *EncodeNpy(t.tensor);
    ASSERT_TRUE(zip.Add(t.name + ".npy", AsBytes(npy), t.name.size() % 2 == 0).ok());
  }
  auto got = Parse(zip.Finish());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(tensors, *got);
}

void ExpectNumpyFixture(const std::string& file) {
  auto got = ReadNpz(Fixture(file));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 2u);
  const NamedTensor& a = (*got)[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.tensor.type(), DataType::kFp32);
  EXPECT_EQ(a.tensor.shape(), (Shape{2, 3}));
  EXPECT_EQ(std::vector<float>(a.tensor.values<float>().begin(), a.tensor.values<float>().end()),
            (std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 4.0f, -0.5f}));
  const NamedTensor& b = (*got)[1];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.tensor.type(), DataType::kInt64);
  EXPECT_EQ(b.tensor.shape(), (Shape{4}));
  EXPECT_EQ(std::vector<int64_t>(b.tensor.values<int64_t>().begin(), b.tensor.values<int64_t>().end()),
            (std::vector<int64_t>{1, -2, 3, int64_t{1} << 40}));
}

TEST(NpzTest, ReadsNumpySavez) { ExpectNumpyFixture("numpy_stored.npz"); }
TEST(NpzTest, ReadsNumpySavezCompressed) { ExpectNumpyFixture("numpy_compressed.npz"); }

TEST(NpzTest, EntriesMustBeNpyFiles) {
  ZipWriter zip;
  ASSERT_TRUE(zip.Add("a.npy", AsBytes(*EncodeNpy(Patterned(DataType::kInt8, {2}))), false).ok());
  ASSERT_TRUE(zip.Add("readme.txt", AsBytes("hello"), false).ok());
  auto r = Parse(zip.Finish());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("entry 'readme.txt': expected a name ending in .npy"));

  ZipWriter bare;
  ASSERT_TRUE(bare.Add(".npy", AsBytes(*EncodeNpy(Patterned(DataType::kInt8, {2}))), false).ok());
  EXPECT_EQ(Parse(bare.Finish()).status().code(), StatusCode::kInvalidArgument);
}

TEST(NpzTest, BadArrayInsideNamesTheArray) {
  ZipWriter zip;
  ASSERT_TRUE(zip.Add("image.npy", AsBytes("not an npy file"), true).ok());
  auto r = Parse(zip.Finish());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("array 'image' in file 't.npz': not a .npy file"));
}

TEST(NpzTest, CrcMismatchIsDataLoss) {
  std::string archive = *EncodeNpz({{"a", Patterned(DataType::kInt32, {8})}}, false);
  archive[30 + 5 + 64 + 3] ^= 1;  // a byte of the array's data: local header, "a.npy", the .npy header
  auto r = Parse(archive);
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr("file 't.npz': entry 'a.npy': CRC-32"));
}

TEST(NpzTest, TruncatedArchivesAreErrors) {
  for (bool compress : {false, true}) {
    std::string archive =
        *EncodeNpz({{"a", Patterned(DataType::kFp32, {2, 3})}, {"b", Patterned(DataType::kInt64, {4})}}, compress);
    for (size_t n = 0; n < archive.size(); ++n) {
      auto r = Parse(std::string_view(archive).substr(0, n));
      ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes parsed";
      EXPECT_THAT(r.status().message(), HasSubstr("t.npz")) << n;
    }
  }
}

TEST(NpzTest, NotAZip) {
  auto r = Parse(*EncodeNpy(Patterned(DataType::kFp32, {3})));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("file 't.npz': not a zip archive"));
  EXPECT_EQ(ReadNpz(Fixture("numpy_f8_v1.npy")).status().code(), StatusCode::kInvalidArgument);
}

TEST(NpzTest, WriterRejectsBadNamesAndTypes) {
  EXPECT_EQ(EncodeNpz({{"", Patterned(DataType::kFp32, {1})}}, false).status().code(),
            StatusCode::kInvalidArgument);
  auto dup = EncodeNpz({{"x", Patterned(DataType::kFp32, {1})}, {"x", Patterned(DataType::kFp32, {1})}}, false);
  EXPECT_EQ(dup.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(dup.status().message(), HasSubstr("'x'"));
  auto bf16 = EncodeNpz({{"w", Patterned(DataType::kBf16, {2})}}, true);
  EXPECT_EQ(bf16.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(bf16.status().message(), HasSubstr("npz array 'w'"));
  Status s = WriteNpz(testing_util::TempPath("bf16.npz"), {{"w", Patterned(DataType::kBf16, {2})}}, true);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace hone
