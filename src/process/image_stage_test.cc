// hone_image as a server runs it: the pixels of every case in testdata/images/reference.json against PIL + numpy's
// (make_reference.py there), batches mixing PNG and JPEG, layouts, and bad rows and parameters named.
//
// Tolerance: one 8-bit level after normalisation, |got - want| <= scale / std (+ 1e-6 for float rounding). The
// decoders are the same libraries PIL links, and the resampling uses PIL's filter, fixed point and rounding, so in
// practice every value is identical (the test reports how many are not); the one level allows for a weight rounded
// the other way, and for a JPEG decoded by a different libjpeg-turbo build than the one that made the reference.
#include "process/image_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "process/image_test_util.h"
#include "tensor/npy.h"

namespace hone::process {
namespace {

using ::testing::HasSubstr;
using testing::ImageFile;
using testing::ImagesDir;

Tensor Files(const std::vector<std::string>& files) {
  std::vector<std::string_view> views(files.begin(), files.end());
  return *Tensor::FromStrings({static_cast<int64_t>(files.size()), 1}, views);
}

Result<std::vector<Tensor>> RunStage(const std::map<std::string, std::string>& parameters,
                                     const std::vector<std::string>& files) {
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<Stage> stage, CreateStage({"hone_image", parameters, ""}));
  std::vector<Tensor> in = {Files(files)};
  return stage->Run(in);
}

double Parameter(const std::map<std::string, std::string>& p, const std::string& key, double fallback) {
  auto it = p.find(key);
  return it == p.end() ? fallback : std::stod(it->second);
}

TEST(ImageStageTest, MatchesPilOnEveryReferenceCase) {
  std::ifstream file(ImagesDir() + "/reference.json");
  ASSERT_TRUE(file) << "reference.json missing: run make_reference.py";
  const nlohmann::json cases = nlohmann::json::parse(file)["cases"];
  ASSERT_GE(cases.size(), 30u);
  size_t values = 0, differing = 0;
  for (const nlohmann::json& c : cases) {
    const std::string name = c["name"];
    const auto parameters = c["parameters"].get<std::map<std::string, std::string>>();
    auto out = RunStage(parameters, {ImageFile(c["image"])});
    ASSERT_TRUE(out.ok()) << name << ": " << out.status().ToString();
    Result<Tensor> want = ReadNpy(ImagesDir() + "/" + name + ".npy");
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const Tensor& got = (*out)[0];
    ASSERT_EQ(got.shape(), want->shape()) << name;
    // One level in the least favourable channel (the smallest std).
    double min_std = 1e300;
    std::string stds = parameters.count("std") ? parameters.at("std") : "1";
    for (size_t at = 0; at != std::string::npos;) {
      min_std = std::min(min_std, std::stod(stds.substr(at)));
      at = stds.find(',', at);
      if (at != std::string::npos) ++at;
    }
    const double level = Parameter(parameters, "scale", 1.0 / 255.0) / min_std + 1e-6;
    auto g = got.values<float>();
    auto w = want->values<float>();
    for (size_t i = 0; i < g.size(); ++i) {
      ASSERT_LE(std::abs(g[i] - w[i]), level) << name << " value " << i << ": " << g[i] << ", PIL " << w[i];
      differing += g[i] != w[i];
    }
    values += g.size();
    size_t here = 0;
    for (size_t i = 0; i < g.size(); ++i) here += g[i] != w[i];
    if (here) std::cout << name << ": " << here << " differ\n";
  }
  std::cout << "hone_image vs PIL: " << differing << " of " << values << " values differ (by at most one level) "
            << "over " << cases.size() << " cases\n";
}

TEST(ImageStageTest, ABatchMixesFormatsInRowOrder) {
  auto batch = RunStage({{"width", "8"}, {"height", "6"}}, {ImageFile("rgb.png"), ImageFile("gray.jpg"),
                                                            ImageFile("rgb.png")});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const Tensor& t = (*batch)[0];
  ASSERT_EQ(t.shape(), (Shape{3, 3, 6, 8}));
  auto v = t.values<float>();
  const size_t row = 3 * 6 * 8;
  EXPECT_TRUE(std::equal(v.begin(), v.begin() + row, v.begin() + 2 * row)) << "rows 0 and 2 hold the same file";
  // A gray JPEG in an rgb stage: its three planes are equal.
  EXPECT_TRUE(std::equal(v.begin() + row, v.begin() + row + 48, v.begin() + row + 48));
  for (float x : v) {
    EXPECT_GE(x, 0.0f);
    EXPECT_LE(x, 1.0f);
  }
}

TEST(ImageStageTest, LayoutsAndColourOrderAreTranspositions) {
  auto nchw = RunStage({{"width", "5"}, {"height", "4"}}, {ImageFile("rgb.jpg")});
  auto nhwc = RunStage({{"width", "5"}, {"height", "4"}, {"layout", "nhwc"}, {"color", "bgr"}}, {ImageFile("rgb.jpg")});
  ASSERT_TRUE(nchw.ok() && nhwc.ok());
  ASSERT_EQ((*nhwc)[0].shape(), (Shape{1, 4, 5, 3}));
  auto a = (*nchw)[0].values<float>();
  auto b = (*nhwc)[0].values<float>();
  for (size_t c = 0; c < 3; ++c)
    for (size_t p = 0; p < 20; ++p) EXPECT_EQ(a[c * 20 + p], b[p * 3 + (2 - c)]) << c << "," << p;
}

TEST(ImageStageTest, EveryBadRowIsNamed) {
  const std::string jpeg = ImageFile("rgb.jpg"), png = ImageFile("rgb.png");
  const std::map<std::string, std::string> p = {{"width", "8"}, {"height", "8"}};
  struct Bad {
    std::string file, message;
  };
  const std::vector<Bad> bad = {
      {jpeg.substr(0, jpeg.size() / 2), "input 'image' row 2: JPEG data is truncated"},
      {png.substr(0, png.size() - 40), "input 'image' row 2: PNG data is truncated"},
      {std::string("\x13\x37\xca\xfe random bytes"), "input 'image' row 2: not a PNG or JPEG file"},
      {"", "input 'image' row 2: empty: expected the contents of a PNG or JPEG file"},
      {ImageFile("bomb.png"), "input 'image' row 2: PNG header claims 100000 x 100000 pixels (10000000000), more "
                              "than max_pixels 40000000"},
      {ImageFile("bomb.jpg"), "input 'image' row 2: JPEG header claims 65000 x 65000 pixels"},
  };
  for (const Bad& b : bad) {
    auto out = RunStage(p, {png, jpeg, b.file});
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << b.message;
    EXPECT_THAT(out.status().message(), HasSubstr(b.message));
  }
  auto flat = CreateStage({"hone_image", p, ""});
  std::vector<Tensor> wrong = {*Tensor::FromStrings({1}, std::vector<std::string_view>{png})};
  EXPECT_THAT((*flat)->Run(wrong).status().message(),
              HasSubstr("input 'image': BYTES 1: expected BYTES [batch, 1], one PNG or JPEG file per row"));
}

TEST(ImageStageTest, SpecsFollowTheParameters) {
  auto stage = CreateStage({"hone_image", {{"width", "28"}, {"height", "28"}, {"color", "gray"}}, ""});
  ASSERT_TRUE(stage.ok());
  EXPECT_EQ((*stage)->inputs()[0].name, "image");
  EXPECT_EQ((*stage)->inputs()[0].type, DataType::kBytes);
  EXPECT_EQ((*stage)->outputs()[0].name, "pixels");
  EXPECT_EQ((*stage)->outputs()[0].shape, (Shape{-1, 1, 28, 28}));
  EXPECT_EQ((*stage)->description(), "hone_image (gray 28x28, exact, bilinear, nchw)");
  auto nhwc = CreateStage({"hone_image", {{"width", "4"}, {"height", "3"}, {"layout", "nhwc"}}, ""});
  EXPECT_EQ((*nhwc)->outputs()[0].shape, (Shape{-1, 3, 4, 3}));
}

std::string Refusal(std::map<std::string, std::string> p) {
  p.emplace("width", "8");
  p.emplace("height", "8");
  return CreateStage({"hone_image", p, ""}).status().message();
}

TEST(ImageStageTest, BadParametersAreNamed) {
  EXPECT_THAT(CreateStage({"hone_image", {{"height", "8"}}, ""}).status().message(),
              HasSubstr("hone_image parameter 'width': required"));
  EXPECT_THAT(Refusal({{"width", "0"}}), HasSubstr("parameter 'width': expected an integer in [1, 16384]"));
  EXPECT_THAT(Refusal({{"resize", "fit"}}), HasSubstr("parameter 'resize': expected one of exact, shorter_side"));
  EXPECT_THAT(Refusal({{"resize", "shorter_side"}}), HasSubstr("parameter 'shorter_side': required"));
  EXPECT_THAT(Refusal({{"shorter_side", "256"}}), HasSubstr("only used with resize shorter_side"));
  EXPECT_THAT(Refusal({{"resize", "shorter_side"}, {"shorter_side", "7"}}),
              HasSubstr("expected at least the crop's width and height (8x8), got '7'"));
  EXPECT_THAT(Refusal({{"interpolation", "bicubic"}}), HasSubstr("expected one of bilinear, nearest"));
  EXPECT_THAT(Refusal({{"color", "hsv"}}), HasSubstr("expected one of gray, rgb, bgr"));
  EXPECT_THAT(Refusal({{"layout", "chw"}}), HasSubstr("expected one of nchw, nhwc"));
  EXPECT_THAT(Refusal({{"scale", "1/255"}}), HasSubstr("parameter 'scale': expected a positive decimal"));
  EXPECT_THAT(Refusal({{"scale", "-1"}}), HasSubstr("parameter 'scale'"));
  EXPECT_THAT(Refusal({{"mean", "0.5,0.5"}}), HasSubstr("parameter 'mean': expected 3 values (one per channel"));
  EXPECT_THAT(Refusal({{"mean", "0.5"}, {"color", "gray"}, {"std", "0"}}),
              HasSubstr("parameter 'std': expected positive decimals"));
  EXPECT_THAT(Refusal({{"mean", "a,b,c"}}), HasSubstr("parameter 'mean': expected decimals"));
  EXPECT_THAT(Refusal({{"max_pixels", "10"}}), HasSubstr("parameter 'max_pixels': expected at least the output's 64"));
  EXPECT_THAT(Refusal({{"colour", "rgb"}}), HasSubstr("hone_image parameter 'colour': unknown (hone_image reads"));
  // Spaces around the commas are fine.
  EXPECT_EQ(Refusal({{"mean", "0.485, 0.456, 0.406"}, {"std", " 0.229,0.224 ,0.225"}}), "");
}

}  // namespace
}  // namespace hone::process
