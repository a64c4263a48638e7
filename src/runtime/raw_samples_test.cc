// Raw samples for a model whose one input is BYTES: text lines, JSON strings, a folder of files; and the input pool
// that cuts requests from them.
#include "runtime/raw_samples.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/temp_dir_test_util.h"
#include "runtime/input_pool.h"

namespace hone::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RawSamplesTest, TextLinesSkipBlankOnesAndCarriageReturns) {
  testing_util::TempDir dir;
  const std::string path = dir.Write("texts.txt", "first line\r\n\nsecond, with é\n  \nlast without newline");
  auto samples = ReadRawSamples(path);
  ASSERT_TRUE(samples.ok()) << samples.status().ToString();
  EXPECT_THAT(*samples, ElementsAre("first line", "second, with é", "  ", "last without newline"));
  EXPECT_TRUE(IsRawSamplePath(path));
  EXPECT_FALSE(IsRawSamplePath(dir.File("data.npz")));
}

TEST(RawSamplesTest, JsonLinesCarryControlCharacters) {
  testing_util::TempDir dir;
  const std::string path = dir.Write("texts.jsonl", "\"tab\\there\"\n\"line\\nbreak\"\n");
  auto samples = ReadRawSamples(path);
  ASSERT_TRUE(samples.ok()) << samples.status().ToString();
  EXPECT_THAT(*samples, ElementsAre("tab\there", "line\nbreak"));
  const std::string bad = dir.Write("bad.jsonl", "\"ok\"\n{\"text\": \"no\"}\n");
  EXPECT_THAT(ReadRawSamples(bad).status().message(), HasSubstr("line 2: expected a JSON string"));
}

TEST(RawSamplesTest, AFolderIsOneSampleAFileInNameOrder) {
  testing_util::TempDir dir;
  dir.Write("images/b.png", std::string("\x89PNG\0b", 6));
  dir.Write("images/a.jpg", "a");
  dir.Write("images/.hidden", "skipped");
  auto samples = ReadRawSamples(dir.File("images"));
  ASSERT_TRUE(samples.ok()) << samples.status().ToString();
  EXPECT_THAT(*samples, ElementsAre("a", std::string("\x89PNG\0b", 6)));
}

TEST(RawSamplesTest, MissingAndEmpty) {
  testing_util::TempDir dir;
  EXPECT_EQ(ReadRawSamples(dir.File("nothing.txt")).status().code(), StatusCode::kNotFound);
  const std::string empty = dir.Write("empty.txt", "\n\n");
  EXPECT_THAT(ReadRawSamples(empty).status().message(), HasSubstr("holds no samples"));
}

ModelMetadata OneBytesInput(Shape shape) {
  ModelMetadata m;
  m.inputs.push_back({"text", DataType::kBytes, "BYTES", std::move(shape), {"batch", ""}});
  m.outputs.push_back({"embedding", DataType::kFp32, "FP32", {-1, 4}, {"batch", ""}});
  return m;
}

TEST(RawSamplesTest, ThePoolStacksStringsIntoRequests) {
  testing_util::TempDir dir;
  InputOptions options;
  options.data_path = dir.Write("texts.txt", "one\ntwo\nthree\n");
  auto pool = InputPool::Create(OneBytesInput({-1, 1}), options);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->sample_count(), 3);
  auto batch = pool->MakeBatch(2, 2);  // wraps round: three, one
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ((*batch)[0].shape(), (Shape{2, 1}));
  EXPECT_THAT((*batch)[0].bytes_elements(), ElementsAre("three", "one"));
}

TEST(RawSamplesTest, BytesInputsNeedData) {
  auto generated = InputPool::Create(OneBytesInput({-1, 1}), InputOptions{});
  EXPECT_THAT(generated.status().message(), HasSubstr("input 'text' is BYTES (raw text or files): give samples"));
  ModelMetadata two = OneBytesInput({-1, 1});
  two.inputs.push_back({"lang", DataType::kBytes, "BYTES", {-1, 1}, {"batch", ""}});
  testing_util::TempDir dir;
  InputOptions options;
  options.data_path = dir.Write("texts.txt", "one\n");
  EXPECT_THAT(InputPool::Create(two, options).status().message(),
              HasSubstr("raw samples (a folder, .txt or .jsonl) are for a model with one BYTES input"));
}

}  // namespace
}  // namespace hone::runtime
