#include "process/image_resize.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hone::process {
namespace {

// Weights are integers in units of 2^-22: 8-bit samples times weights summing to about 2^22 stay far inside 64 bits,
// and this is the precision PIL's 8-bit path uses, so the rounding of each pass is PIL's.
constexpr int kWeightBits = 22;

// For each output index of a window along one axis: the first input index it reads and its weights.
struct Taps {
  std::vector<int64_t> first;
  std::vector<size_t> begin;  // where its weights start in `weights`; begin[i + 1] - begin[i] of them
  std::vector<int64_t> weights;
  int64_t count(size_t i) const { return static_cast<int64_t>(begin[i + 1] - begin[i]); }
  int64_t end(size_t i) const { return first[i] + count(i); }  // one past the last input index read
};

double Triangle(double x) {
  x = std::abs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

// Output indices [offset, offset + count) of an axis that goes from in_size to full_size samples. When reducing,
// the triangle is stretched by the reduction factor, so every input sample under an output sample counts.
Taps BilinearTaps(int64_t in_size, int64_t full_size, int64_t offset, int64_t count) {
  const double scale = static_cast<double>(in_size) / static_cast<double>(full_size);
  const double stretch = std::max(scale, 1.0);
  const double support = stretch;  // the triangle's radius is 1
  Taps taps;
  taps.begin.push_back(0);
  std::vector<double> w;
  for (int64_t i = offset; i < offset + count; ++i) {
    const double center = (static_cast<double>(i) + 0.5) * scale;
    // Input samples whose centres (j + 0.5) lie within the support; C truncation, as the reference's casts.
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in_size);
    w.clear();
    double total = 0;
    for (int64_t j = lo; j < hi; ++j) {
      w.push_back(Triangle((static_cast<double>(j) - center + 0.5) * (1.0 / stretch)));
      total += w.back();
    }
    taps.first.push_back(lo);
    for (double v : w) taps.weights.push_back(std::lround((total != 0 ? v / total : v) * (1 << kWeightBits)));
    taps.begin.push_back(taps.weights.size());
  }
  return taps;
}

uint8_t Round8(int64_t sum) {
  const int64_t v = (sum + (int64_t{1} << (kWeightBits - 1))) >> kWeightBits;
  return static_cast<uint8_t>(std::clamp<int64_t>(v, 0, 255));
}

// Resamples along x: output column i reads input columns taps.first[i] - shift onwards; output row r is input row
// row_begin + r.
Image8 Horizontal(const Image8& in, const Taps& taps, int64_t shift, int64_t row_begin, int64_t row_end) {
  const int c = in.channels;
  Image8 out = Image8::Zeros(static_cast<int64_t>(taps.first.size()), row_end - row_begin, c);
  for (int64_t y = row_begin; y < row_end; ++y) {
    const uint8_t* src = in.row(y);
    uint8_t* dst = out.row(y - row_begin);
    for (size_t i = 0; i < taps.first.size(); ++i) {
      const uint8_t* first = src + (taps.first[i] - shift) * c;
      const int64_t* w = taps.weights.data() + taps.begin[i];
      for (int ch = 0; ch < c; ++ch) {
        int64_t sum = 0;
        for (int64_t k = 0; k < taps.count(i); ++k) sum += first[k * c + ch] * w[k];
        dst[static_cast<int64_t>(i) * c + ch] = Round8(sum);
      }
    }
  }
  return out;
}

// Resamples along y: output row i reads input rows taps.first[i] - shift onwards; output column x is input column
// column_begin + x.
Image8 Vertical(const Image8& in, const Taps& taps, int64_t shift, int64_t column_begin, int64_t column_end) {
  const int c = in.channels;
  Image8 out = Image8::Zeros(column_end - column_begin, static_cast<int64_t>(taps.first.size()), c);
  const size_t samples = out.stride();
  std::vector<int64_t> sums(samples);
  for (size_t i = 0; i < taps.first.size(); ++i) {
    std::fill(sums.begin(), sums.end(), 0);
    const int64_t* w = taps.weights.data() + taps.begin[i];
    for (int64_t k = 0; k < taps.count(i); ++k) {
      const uint8_t* src = in.row(taps.first[i] - shift + k) + column_begin * c;
      for (size_t s = 0; s < samples; ++s) sums[s] += src[s] * w[k];
    }
    uint8_t* dst = out.row(static_cast<int64_t>(i));
    for (size_t s = 0; s < samples; ++s) dst[s] = Round8(sums[s]);
  }
  return out;
}

Image8 Bilinear(const Image8& in, const ResizeWindow& win) {
  const Taps x = BilinearTaps(in.width, win.full_width, win.left, win.width);
  const Taps y = BilinearTaps(in.height, win.full_height, win.top, win.height);
  // The input rows the vertical pass reads, and the input columns the horizontal pass reads.
  const int64_t row_lo = y.first.front(), row_hi = y.end(y.first.size() - 1);
  const int64_t col_lo = x.first.front(), col_hi = x.end(x.first.size() - 1);
  const int64_t horizontal_first = (row_hi - row_lo) * win.width;
  const int64_t vertical_first = (col_hi - col_lo) * win.height;
  // PIL's order unless its intermediate would be over 16 times the larger of the input and the output (an image
  // thousands of times longer than wide): then the other order, whose rounding differs by a level here and there.
  const int64_t bound = 16 * std::max(in.width * in.height, win.width * win.height);
  if (horizontal_first <= bound || horizontal_first <= vertical_first) {
    const Image8 rows = Horizontal(in, x, 0, row_lo, row_hi);
    return Vertical(rows, y, row_lo, 0, win.width);
  }
  const Image8 columns = Vertical(in, y, 0, col_lo, col_hi);
  return Horizontal(columns, x, col_lo, 0, win.height);
}

// The input index under the centre of each output index in [offset, offset + count): floor((i + 0.5) * scale),
// with the centre found as PIL finds it, by adding the scale to a running position (0.5 * scale, then + scale per
// index). Where (i + 0.5) * scale is a whole number the running sum can land just below it, and PIL takes the
// index below; summing the same way gives PIL's indices exactly. An axis of more than 2^24 samples (only a centre
// crop of an absurdly long image makes one) uses the closed form instead, not to add up billions of steps.
std::vector<int64_t> NearestIndices(int64_t in_size, int64_t full_size, int64_t offset, int64_t count) {
  const double scale = static_cast<double>(in_size) / static_cast<double>(full_size);
  std::vector<int64_t> out;
  const bool running = full_size <= (int64_t{1} << 24);
  double position = scale * 0.5;
  if (running)
    for (int64_t i = 0; i < offset; ++i) position += scale;
  for (int64_t i = offset; i < offset + count; ++i) {
    const double centre = running ? position : (static_cast<double>(i) + 0.5) * scale;
    out.push_back(std::clamp<int64_t>(static_cast<int64_t>(centre), 0, in_size - 1));
    position += scale;
  }
  return out;
}

Image8 Nearest(const Image8& in, const ResizeWindow& win) {
  const std::vector<int64_t> xs = NearestIndices(in.width, win.full_width, win.left, win.width);
  const std::vector<int64_t> ys = NearestIndices(in.height, win.full_height, win.top, win.height);
  const int c = in.channels;
  Image8 out = Image8::Zeros(win.width, win.height, c);
  for (int64_t y = 0; y < win.height; ++y) {
    const uint8_t* src = in.row(ys[static_cast<size_t>(y)]);
    uint8_t* dst = out.row(y);
    for (int64_t x = 0; x < win.width; ++x)
      std::copy_n(src + xs[static_cast<size_t>(x)] * c, c, dst + x * c);
  }
  return out;
}

// Python's round(diff / 2) for a non-negative integer diff: halves go to the even neighbour.
int64_t HalfRoundedToEven(int64_t diff) {
  const int64_t half = diff / 2;
  if (diff % 2 == 0) return half;
  return half % 2 == 0 ? half : half + 1;
}

}  // namespace

ResizeWindow ExactWindow(int64_t width, int64_t height) { return {width, height, 0, 0, width, height}; }

ResizeWindow ShorterSideWindow(int64_t in_width, int64_t in_height, int64_t shorter_side, int64_t width,
                               int64_t height) {
  ResizeWindow win;
  // Integer division truncates as Python's int(n * long / short) does (the quotient is never within a rounding
  // error of the next integer for sizes this small).
  if (in_width <= in_height) {
    win.full_width = shorter_side;
    win.full_height = shorter_side * in_height / in_width;
  } else {
    win.full_width = shorter_side * in_width / in_height;
    win.full_height = shorter_side;
  }
  win.width = width;
  win.height = height;
  win.left = HalfRoundedToEven(win.full_width - width);
  win.top = HalfRoundedToEven(win.full_height - height);
  return win;
}

Image8 Resize(const Image8& in, const ResizeWindow& window, Interpolation interpolation) {
  return interpolation == Interpolation::kNearest ? Nearest(in, window) : Bilinear(in, window);
}

}  // namespace hone::process
