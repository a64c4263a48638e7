#include "process/image_stage.h"

#include <array>

#include "process/image_decode.h"
#include "process/image_options.h"
#include "process/image_resize.h"

namespace hone::process {
namespace {

class ImageStage final : public Stage {
 public:
  ImageStage(ImageOptions options, std::string description)
      : options_(std::move(options)), description_(std::move(description)) {
    const int64_t c = options_.channels(), h = options_.height, w = options_.width;
    const bool nchw = options_.layout == ImageOptions::Layout::kNchw;
    outputs_ = {{"pixels", DataType::kFp32, nchw ? Shape{-1, c, h, w} : Shape{-1, h, w, c}}};
    // Every output value is one of 256 per channel: computed once, in double, as the reference computes them.
    for (int ch = 0; ch < c; ++ch)
      for (int v = 0; v < 256; ++v)
        table_[static_cast<size_t>(ch)][static_cast<size_t>(v)] = static_cast<float>(
            (v * options_.scale - options_.mean[static_cast<size_t>(ch)]) / options_.std[static_cast<size_t>(ch)]);
  }

  const std::vector<StageTensorSpec>& inputs() const override { return inputs_; }
  const std::vector<StageTensorSpec>& outputs() const override { return outputs_; }
  const std::string& description() const override { return description_; }

  Result<std::vector<Tensor>> Run(std::span<const Tensor> in) const override {
    const Tensor& images = in[0];
    if (images.type() != DataType::kBytes || images.shape().size() != 2 || images.shape()[1] != 1)
      return Status::InvalidArgument("input 'image': " + std::string(DataTypeName(images.type())) + " " +
                                     ShapeToString(images.shape()) +
                                     ": expected BYTES [batch, 1], one PNG or JPEG file per row");
    const std::vector<std::string_view> files = images.bytes_elements();
    const int64_t batch = images.shape()[0];
    const int64_t c = options_.channels(), h = options_.height, w = options_.width;
    Shape shape = options_.layout == ImageOptions::Layout::kNchw ? Shape{batch, c, h, w} : Shape{batch, h, w, c};
    HONE_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(DataType::kFp32, std::move(shape)));
    std::span<float> pixels = out.mutable_values<float>();
    for (int64_t row = 0; row < batch; ++row) {
      Result<Image8> image = Prepare(files[static_cast<size_t>(row)]);
      if (!image.ok())
        return Status::InvalidArgument("input 'image' row " + std::to_string(row) + ": " + image.status().message());
      Write(*image, pixels.subspan(static_cast<size_t>(row * c * h * w), static_cast<size_t>(c * h * w)));
    }
    std::vector<Tensor> result;
    result.push_back(std::move(out));
    return result;
  }

 private:
  // Decoded, converted to the stage's channels and resampled to width x height.
  Result<Image8> Prepare(std::string_view file) const {
    HONE_ASSIGN_OR_RETURN(Image8 image, DecodeImage(file, options_.channels(), options_.max_pixels));
    const ResizeWindow window =
        options_.resize == ImageOptions::Resize::kExact
            ? ExactWindow(options_.width, options_.height)
            : ShorterSideWindow(image.width, image.height, options_.shorter_side, options_.width, options_.height);
    return Resize(image, window, options_.interpolation);
  }

  // One row of the output from width x height interleaved samples: channels reversed for bgr, planes for nchw.
  void Write(const Image8& image, std::span<float> out) const {
    const size_t channels = static_cast<size_t>(image.channels);
    const size_t plane = static_cast<size_t>(image.width * image.height);
    const bool bgr = options_.color == ImageOptions::Color::kBgr;
    const bool nchw = options_.layout == ImageOptions::Layout::kNchw;
    for (size_t p = 0; p < plane; ++p) {
      for (size_t ch = 0; ch < channels; ++ch) {
        const uint8_t v = image.data[p * channels + (bgr ? channels - 1 - ch : ch)];
        out[nchw ? ch * plane + p : p * channels + ch] = table_[ch][v];
      }
    }
  }

  ImageOptions options_;
  std::string description_;
  std::array<std::array<float, 256>, 3> table_{};  // [output channel][8-bit sample]
  std::vector<StageTensorSpec> inputs_ = {{"image", DataType::kBytes, {-1, 1}}};
  std::vector<StageTensorSpec> outputs_;
};

}  // namespace

Result<std::unique_ptr<Stage>> CreateImageStage(const StageConfig& config) {
  HONE_ASSIGN_OR_RETURN(ImageOptions options, ParseImageOptions(config.kind, config.parameters));
  std::string description = config.kind + " (" + options.Summary() + ")";
  return std::unique_ptr<Stage>(std::make_unique<ImageStage>(std::move(options), std::move(description)));
}

}  // namespace hone::process
