#include "process/image_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "process/stage_parameters.h"

namespace hone::process {
namespace {

constexpr int64_t kMaxSide = 16384;  // of the output: far beyond any vision model's input

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool ParseDecimal(std::string_view text, double* out) {
  text = Trim(text);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && std::isfinite(*out);
}

Status Bad(const std::string& kind, const std::string& key, const std::string& what, const std::string& value) {
  return Status::InvalidArgument(kind + " parameter '" + key + "': " + what + ", got '" + value + "'");
}

// One finite decimal per channel, comma-separated; `fallback` for each when the parameter is absent.
Result<std::vector<double>> PerChannel(StageParameters& params, const std::string& kind, const std::string& key,
                                       int channels, double fallback, bool positive) {
  const std::string text = params.String(key, "");
  if (text.empty()) return std::vector<double>(static_cast<size_t>(channels), fallback);
  std::vector<double> values;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    double v = 0;
    if (!ParseDecimal(rest.substr(0, comma), &v) || (positive && v <= 0))
      return Bad(kind, key, std::string(positive ? "expected positive decimals" : "expected decimals") +
                                ", comma-separated, one per channel", text);
    values.push_back(v);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (static_cast<int>(values.size()) != channels)
    return Bad(kind, key, "expected " + std::to_string(channels) + (channels == 1 ? " value" : " values") +
                              " (one per channel of the output)", text);
  return values;
}

}  // namespace

std::string ImageOptions::Summary() const {
  std::string s = color == Color::kGray ? "gray " : color == Color::kRgb ? "rgb " : "bgr ";
  s += std::to_string(width) + "x" + std::to_string(height);
  s += resize == Resize::kExact ? ", exact" : ", shorter side " + std::to_string(shorter_side) + " + centre crop";
  s += interpolation == Interpolation::kBilinear ? ", bilinear" : ", nearest";
  s += layout == Layout::kNchw ? ", nchw" : ", nhwc";
  return s;
}

Result<ImageOptions> ParseImageOptions(const std::string& kind, const std::map<std::string, std::string>& parameters) {
  StageParameters params(kind, parameters);
  ImageOptions o;
  HONE_ASSIGN_OR_RETURN(o.width, params.Int("width", 0, 1, kMaxSide));
  HONE_ASSIGN_OR_RETURN(o.height, params.Int("height", 0, 1, kMaxSide));
  HONE_ASSIGN_OR_RETURN(std::string resize, params.Choice("resize", "exact", {"exact", "shorter_side"}));
  HONE_ASSIGN_OR_RETURN(o.shorter_side, params.Int("shorter_side", 0, 1, kMaxSide));
  HONE_ASSIGN_OR_RETURN(std::string interpolation,
                        params.Choice("interpolation", "bilinear", {"bilinear", "nearest"}));
  HONE_ASSIGN_OR_RETURN(std::string color, params.Choice("color", "rgb", {"gray", "rgb", "bgr"}));
  HONE_ASSIGN_OR_RETURN(std::string layout, params.Choice("layout", "nchw", {"nchw", "nhwc"}));
  const std::string scale = params.String("scale", "");
  HONE_ASSIGN_OR_RETURN(o.max_pixels, params.Int("max_pixels", o.max_pixels, 1, 1'000'000'000));
  o.resize = resize == "exact" ? ImageOptions::Resize::kExact : ImageOptions::Resize::kShorterSide;
  o.interpolation = interpolation == "nearest" ? Interpolation::kNearest : Interpolation::kBilinear;
  o.color = color == "gray" ? ImageOptions::Color::kGray
                            : color == "rgb" ? ImageOptions::Color::kRgb : ImageOptions::Color::kBgr;
  o.layout = layout == "nhwc" ? ImageOptions::Layout::kNhwc : ImageOptions::Layout::kNchw;
  HONE_ASSIGN_OR_RETURN(o.mean, PerChannel(params, kind, "mean", o.channels(), 0.0, false));
  HONE_ASSIGN_OR_RETURN(o.std, PerChannel(params, kind, "std", o.channels(), 1.0, true));
  HONE_RETURN_IF_ERROR(params.CheckAllRead());

  // Checked after CheckAllRead, so that a misspelt key is reported as such rather than as a missing width.
  if (o.width == 0 || o.height == 0) {
    const std::string side = o.width == 0 ? "width" : "height";
    return Status::InvalidArgument(kind + " parameter '" + side + "': required (the output's " + side +
                                   " in pixels)");
  }
  if (!scale.empty() && (!ParseDecimal(scale, &o.scale) || o.scale <= 0))
    return Bad(kind, "scale", "expected a positive decimal (1/255 is 0.00392156862745098)", scale);
  const bool shorter = o.resize == ImageOptions::Resize::kShorterSide;
  if (shorter && o.shorter_side == 0)
    return Status::InvalidArgument(kind + " parameter 'shorter_side': required with resize shorter_side (the "
                                   "shorter side's length before the centre crop)");
  if (!shorter && o.shorter_side != 0)
    return Bad(kind, "shorter_side", "only used with resize shorter_side (resize is exact)",
               std::to_string(o.shorter_side));
  if (shorter && o.shorter_side < std::max(o.width, o.height))
    return Bad(kind, "shorter_side", "expected at least the crop's width and height (" + std::to_string(o.width) +
                                         "x" + std::to_string(o.height) + ")",
               std::to_string(o.shorter_side));
  if (o.width * o.height > o.max_pixels)
    return Bad(kind, "max_pixels", "expected at least the output's " + std::to_string(o.width * o.height) +
                                       " pixels", std::to_string(o.max_pixels));
  return o;
}

}  // namespace hone::process
