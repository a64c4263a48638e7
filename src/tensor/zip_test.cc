#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "tensor/little_endian.h"
#include "tensor/test_util.h"
#include "tensor/zip_reader.h"
#include "tensor/zip_writer.h"

namespace hone {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using testing_util::AsBytes;

struct File {
  std::string name;
  std::string contents;
};

std::string Build(const std::vector<File>& files, bool compress, bool zip64 = false) {
  ZipWriter zip(zip64);
  for (const File& f : files) EXPECT_TRUE(zip.Add(f.name, AsBytes(f.contents), compress).ok());
  return zip.Finish();
}

// Lists and reads every entry; the first error, or the contents.
Result<std::vector<File>> ReadAll(std::string_view archive) {
  HONE_ASSIGN_OR_RETURN(auto entries, ListZipEntries(AsBytes(archive), "file 't.zip'"));
  std::vector<File> files;
  std::vector<std::byte> scratch;
  for (const ZipEntry& e : entries) {
    HONE_ASSIGN_OR_RETURN(auto contents, ReadZipEntry(e, scratch, "file 't.zip'"));
    files.push_back({e.name, std::string(reinterpret_cast<const char*>(contents.data()), contents.size())});
  }
  return files;
}

std::vector<File> SampleFiles() {
  std::string noise(5000, '\0');
  std::mt19937 rng(7);
  for (char& c : noise) c = static_cast<char>(rng());
  return {{"first.npy", "hello, zip"}, {"empty.npy", ""}, {"zeros.npy", std::string(100000, '\0')},
          {"noise.npy", noise}, {"d\xc3\xa9j\xc3\xa0.npy", "utf-8 name"}};
}

// Offset of the first central directory record (the archives here hold no "PK\1\2" in their contents).
size_t CentralOffset(const std::string& a) { return a.find("PK\1\2"); }

// Overwrites a little-endian field in place (byte by byte: GCC 12 warns falsely on string::replace here).
void Put(std::string& a, size_t at, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) a[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void Put16(std::string& a, size_t at, uint16_t v) { Put(a, at, v, 2); }
void Put32(std::string& a, size_t at, uint32_t v) { Put(a, at, v, 4); }

TEST(ZipTest, RoundTrips) {
  for (bool compress : {false, true}) {
    for (bool zip64 : {false, true}) {
      SCOPED_TRACE(std::string(compress ? "deflate" : "stored") + (zip64 ? " zip64" : ""));
      std::string archive = Build(SampleFiles(), compress, zip64);
      EXPECT_EQ(archive.find("PK\6\6") != std::string::npos, zip64);
      auto files = ReadAll(archive);
      ASSERT_TRUE(files.ok()) << files.status().ToString();
      ASSERT_EQ(files->size(), SampleFiles().size());
      for (size_t i = 0; i < files->size(); ++i) {
        EXPECT_EQ((*files)[i].name, SampleFiles()[i].name);
        EXPECT_TRUE((*files)[i].contents == SampleFiles()[i].contents) << (*files)[i].name;
      }
      auto entries = ListZipEntries(AsBytes(archive), "t");
      ASSERT_TRUE(entries.ok());
      EXPECT_EQ((*entries)[0].method, compress ? 8 : 0);
    }
  }
  EXPECT_EQ(Build({}, false).size(), 22u);  // just the end record
  auto empty = ReadAll(Build({}, false));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  EXPECT_LT(Build({{"z.npy", std::string(100000, '\0')}}, true).size(), 1000u);
}

TEST(ZipTest, ToleratesAnArchiveComment) {
  std::string archive = Build(SampleFiles(), true);
  std::string comment(300, 'c');
  Put16(archive, archive.size() - 2, static_cast<uint16_t>(comment.size()));
  archive += comment;
  EXPECT_TRUE(ReadAll(archive).ok());
}

TEST(ZipTest, EveryTruncationIsAnError) {
  for (bool compress : {false, true}) {
    for (bool zip64 : {false, true}) {
      std::string archive = Build({{"a.npy", "some contents"}, {"b.npy", std::string(300, 'x')}}, compress, zip64);
      for (size_t n = 0; n < archive.size(); ++n) {
        auto r = ReadAll(std::string_view(archive).substr(0, n));
        ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes read";
        EXPECT_THAT(r.status().message(), HasSubstr("file 't.zip'"));
      }
    }
  }
}

TEST(ZipTest, NotAZip) {
  for (std::string bad : {std::string(), std::string("hello"), std::string(1000, 'x'), std::string("\x93NUMPY")}) {
    auto r = ReadAll(bad);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr("not a zip archive"));
  }
}

TEST(ZipTest, CrcMismatchIsDataLoss) {
  std::string archive = Build({{"a.npy", "some contents"}}, false);
  archive[archive.find("some")] = 'S';
  auto r = ReadAll(archive);
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr("entry 'a.npy': CRC-32"));

  std::string deflated = Build({{"a.npy", std::string(1000, 'q')}}, true);
  Put32(deflated, CentralOffset(deflated) + 16, 0x12345678);
  r = ReadAll(deflated);
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr("expected 0x12345678"));
}

TEST(ZipTest, CorruptDeflateDataIsDataLoss) {
  std::string archive = Build({{"a.npy", std::string(1000, 'q')}}, true);
  size_t data = 30 + 5;  // after the first local header and its name
  archive[data] = '\x07';  // block type 3 is reserved
  auto r = ReadAll(archive);
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr("entry 'a.npy'"));
}

TEST(ZipTest, RejectsEncryptionAndOtherMethods) {
  std::string archive = Build({{"a.npy", "x"}}, false);
  std::string encrypted = archive;
  Put16(encrypted, CentralOffset(encrypted) + 8, 1);
  EXPECT_EQ(ReadAll(encrypted).status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(ReadAll(encrypted).status().message(), HasSubstr("entry 'a.npy' is encrypted"));
  std::string bzip2 = archive;
  Put16(bzip2, CentralOffset(bzip2) + 10, 12);
  EXPECT_EQ(ReadAll(bzip2).status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(ReadAll(bzip2).status().message(), HasSubstr("compression method 12"));
}

TEST(ZipTest, RejectsDuplicateNames) {
  auto r = ReadAll(Build({{"a.npy", "1"}, {"a.npy", "2"}}, false));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("two entries are named 'a.npy'"));
}

TEST(ZipTest, RejectsBadOffsetsAndSizes) {
  std::string archive = Build({{"a.npy", std::string(100, 'q')}}, true);
  size_t c = CentralOffset(archive);
  std::string bomb = archive;
  Put32(bomb, c + 24, 0x7FFFFFFF);  // claims 2 GiB from a few bytes
  EXPECT_THAT(ReadAll(bomb).status().message(), HasSubstr("deflate cannot expand that much"));
  std::string far = archive;
  Put32(far, c + 42, 0x7FFFFFF0);  // local header offset
  EXPECT_THAT(ReadAll(far).status().message(), HasSubstr("no local header at offset"));
  std::string big = archive;
  Put32(big, c + 20, 5000);  // compressed size past the directory
  EXPECT_THAT(ReadAll(big).status().message(), HasSubstr("go beyond the central directory"));
  std::string many = archive;
  Put16(many, many.size() - 12, 500);  // entry count
  Put16(many, many.size() - 14, 500);
  EXPECT_THAT(ReadAll(many).status().message(), HasSubstr("cannot hold the 500 entries"));
  std::string split = archive;
  Put16(split, split.size() - 18, 1);  // this disk's number
  EXPECT_EQ(ReadAll(split).status().code(), StatusCode::kUnimplemented);
  std::string renamed = archive;
  renamed[30] = 'b';  // the local header's copy of the name
  EXPECT_THAT(ReadAll(renamed).status().message(), HasSubstr("local header names it 'b.npy'"));
  std::string no_extra = archive;
  Put32(no_extra, c + 24, 0xFFFFFFFF);  // marked zip64, but there is no zip64 extra field
  EXPECT_THAT(ReadAll(no_extra).status().message(), HasSubstr("no zip64 extra field"));
}

// Random bytes overwritten anywhere: the reader never crashes or reads out of bounds (ASan checks that), rejects
// with a reason naming the file, and whatever it accepts reads back exactly what was written: the CRC-32 and the
// cross-checks between the local headers, the central directory and its end leave only bytes that do not matter
// (times, versions, attributes) free to change undetected.
TEST(ZipTest, RandomCorruptionIsRejectedOrHarmless) {
  const std::vector<File> files = {{"a.npy", "some contents"}, {"b.npy", std::string(300, 'x')}};
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64 ? "zip64" : "zip");
    const std::string good = Build(files, true, zip64);
    std::mt19937 rng(99);
    int tries = 0, rejected = 0;
    for (int iter = 0; iter < 20000; ++iter) {
      std::string bad = good;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<char>(rng());
      if (bad == good) continue;  // a byte overwritten with itself
      ++tries;
      Result<std::vector<File>> read = ReadAll(bad);
      if (!read.ok()) {
        ++rejected;
        EXPECT_THAT(read.status().code(), AnyOf(StatusCode::kInvalidArgument, StatusCode::kDataLoss,
                                               StatusCode::kUnimplemented))
            << read.status().ToString();
        EXPECT_THAT(read.status().message(), HasSubstr("file 't.zip'"));
        continue;
      }
      ASSERT_EQ(read->size(), files.size()) << "iteration " << iter;
      for (size_t i = 0; i < files.size(); ++i) {
        EXPECT_EQ((*read)[i].name, files[i].name) << "iteration " << iter;
        EXPECT_EQ((*read)[i].contents, files[i].contents) << "iteration " << iter;
      }
    }
    // Most overwritten bytes land in the compressed contents, the names, sizes and offsets: rejected.
    std::printf("%s: %d of %d corrupted archives rejected\n", zip64 ? "zip64" : "zip", rejected, tries);
    EXPECT_GT(rejected, tries / 2);
  }
}

}  // namespace
}  // namespace hone
