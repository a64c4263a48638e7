// hone_ctc: greedy CTC decoding (argmax per frame, repeats collapsed, blanks dropped) with a dictionary file.
#include "process/ctc_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/temp_dir_test_util.h"

namespace hone::process {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Frames whose best class is `best[t]`, over `classes` classes.
Tensor Frames(const std::vector<std::vector<int>>& best, int64_t classes) {
  const int64_t batch = static_cast<int64_t>(best.size()), frames = static_cast<int64_t>(best[0].size());
  Tensor t = *Tensor::Allocate(DataType::kFp32, {batch, frames, classes});
  auto v = t.mutable_values<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t f = 0; f < frames; ++f)
      v[static_cast<size_t>((b * frames + f) * classes + best[static_cast<size_t>(b)][static_cast<size_t>(f)])] = 5.0f;
  return t;
}

class CtcStageTest : public ::testing::Test {
 protected:
  // blank, a, b, space, é
  CtcStageTest() { dir_.Write("1/dictionary.txt", "<blank>\na\nb\n \n\xc3\xa9\n"); }
  std::unique_ptr<Stage> Make(std::map<std::string, std::string> parameters = {}) {
    auto stage = CreateStage({"hone_ctc", std::move(parameters), dir_.File("1")});
    EXPECT_TRUE(stage.ok()) << stage.status().ToString();
    return stage.ok() ? std::move(stage).value() : nullptr;
  }
  testing_util::TempDir dir_;
};

TEST_F(CtcStageTest, CollapsesRepeatsAndDropsBlanks) {
  auto stage = Make();
  ASSERT_TRUE(stage);
  // a a _ a b b _ space é  ->  "aab é"; a row of blanks -> "".
  std::vector<Tensor> in = {Frames({{1, 1, 0, 1, 2, 2, 0, 3, 4}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 5)};
  auto out = stage->Run(in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 1}));
  EXPECT_THAT((*out)[0].bytes_elements(), ElementsAre("aab \xc3\xa9", ""));
}

TEST_F(CtcStageTest, AnotherBlankIndex) {
  auto stage = Make({{"blank_index", "3"}});
  std::vector<Tensor> in = {Frames({{1, 3, 1, 2}}, 5)};
  auto out = stage->Run(in);
  ASSERT_TRUE(out.ok());
  EXPECT_THAT((*out)[0].bytes_elements(), ElementsAre("aab"));
}

TEST_F(CtcStageTest, ErrorsNameWhatIsWrong) {
  auto stage = Make();
  std::vector<Tensor> too_many = {Frames({{1}}, 7)};
  EXPECT_THAT(stage->Run(too_many).status().message(), HasSubstr("class 5 has no dictionary entry"));
  Tensor nan = Frames({{1, 2}}, 5);
  nan.mutable_values<float>()[7] = std::numeric_limits<float>::quiet_NaN();
  std::vector<Tensor> bad = {nan};
  EXPECT_THAT(stage->Run(bad).status().message(), HasSubstr("row 0 frame 1: class 2 is nan"));
  std::vector<Tensor> flat = {*Tensor::Allocate(DataType::kFp32, {1, 5})};
  EXPECT_THAT(stage->Run(flat).status().message(), HasSubstr("expected [batch, frames, classes]"));
  EXPECT_THAT(CreateStage({"hone_ctc", {{"blank_index", "9"}}, dir_.File("1")}).status().message(),
              HasSubstr("'blank_index': 9 is past"));
  EXPECT_EQ(CreateStage({"hone_ctc", {{"dictionary_file", "none.txt"}}, dir_.File("1")}).status().code(),
            StatusCode::kNotFound);
  EXPECT_THAT(CreateStage({"hone_ctc", {{"dictionary_file", "../x"}}, dir_.File("1")}).status().message(),
              HasSubstr("expected a file name inside the version directory"));
}

}  // namespace
}  // namespace hone::process
