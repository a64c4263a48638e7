#include "tune/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hone::tune {
namespace {

// Distinguishable on white and for the common colour blindnesses (the Tableau 10 order, by hand).
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
// Room around the plot: the title above, tick labels and the axis label below and to the left.
constexpr int kLeft = 72, kRight = 24, kTop = 34, kBottom = 50, kLegendRow = 18;
constexpr size_t kLegendChars = 70, kPointLabelChars = 28, kBarLabelChars = 28;

std::string Px(double v) { return fmt::format("{:.1f}", v); }

std::string Text(double x, double y, std::string_view text, std::string_view attributes = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\"{}{}>{}</text>", Px(x), Px(y), attributes.empty() ? "" : " ", attributes,
                     XmlEscape(text));
}

std::string SvgOpen(int width, int height, std::string_view title) {
  return fmt::format("<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" font-family=\"sans-serif\" "
                     "font-size=\"12\"><title>{2}</title>",
                     width, height, XmlEscape(title));
}

bool Usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// One axis: the value range [lo, hi] drawn from pixel px_lo to px_hi (px_hi < px_lo for a y axis, which grows up).
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double px_lo = 0, px_hi = 1;
  std::vector<double> ticks;

  double Map(double v) const {
    const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return px_lo + t * (px_hi - px_lo);
  }
};

Axis MakeAxis(const std::vector<double>& values, bool log, bool from_zero, double px_lo, double px_hi) {
  Axis a;
  a.log = log;
  a.px_lo = px_lo;
  a.px_hi = px_hi;
  double lo = log ? 1 : 0, hi = log ? 10 : 1;  // the frame of an empty chart
  if (!values.empty()) {
    auto [mn, mx] = std::minmax_element(values.begin(), values.end());
    lo = *mn;
    hi = *mx;
    if (!log && from_zero) {
      lo = std::min(lo, 0.0);
      hi = std::max(hi, lo == hi ? 1.0 : 0.0);
    }
  }
  if (log) {
    // Breathing room so that the extreme points do not sit on the frame; one value gets a factor of 2 each side.
    const double pad = lo == hi ? 2 : 1.15;
    lo /= pad;
    hi *= pad;
    a.ticks = LogTicks(lo, hi);
  } else {
    a.ticks = LinearTicks(lo, hi);
    if (a.ticks.size() >= 2) {
      lo = a.ticks.front();
      hi = a.ticks.back();
    }
  }
  if (!(hi > lo)) hi = lo + 1;  // a degenerate range the ticks could not widen (overflow): still a valid map
  a.lo = lo;
  a.hi = hi;
  return a;
}

// The title, the plot area with its grid, the ticks and the axis labels; "no data" inside when nothing is drawn.
std::string FrameSvg(const ChartFrame& f, const Axis& x, const Axis& y, bool has_data) {
  const double left = kLeft, right = f.width - kRight, top = kTop, bottom = f.height - kBottom;
  std::string s = Text(left, 20, f.title, "font-size=\"14\" font-weight=\"bold\"");
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" stroke=\"#999\"/>", Px(left),
                   Px(top), Px(right - left), Px(bottom - top));
  for (double t : x.ticks) {
    const double px = x.Map(t);
    if (px < left - 0.5 || px > right + 0.5) continue;
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e5e5e5\"/>", Px(px), Px(top),
                     Px(bottom));
    s += Text(px, bottom + 16, FormatChartNumber(t), "text-anchor=\"middle\" fill=\"#333\"");
  }
  for (double t : y.ticks) {
    const double py = y.Map(t);
    if (py < top - 0.5 || py > bottom + 0.5) continue;
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#e5e5e5\"/>", Px(left), Px(py),
                     Px(right));
    s += Text(left - 6, py + 4, FormatChartNumber(t), "text-anchor=\"end\" fill=\"#333\"");
  }
  s += Text((left + right) / 2, bottom + 36, f.x_label, "text-anchor=\"middle\"");
  const double ymid = (top + bottom) / 2;
  s += fmt::format("<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {0})\">{1}</text>",
                   Px(ymid), XmlEscape(f.y_label));
  if (std::isfinite(f.y_reference)) {
    const double py = y.Map(f.y_reference);
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#c62828\" stroke-width=\"1.5\" "
                     "stroke-dasharray=\"6 4\"/>",
                     Px(left), Px(py), Px(right));
    s += Text(right - 4, py - 5, f.y_reference_label, "text-anchor=\"end\" fill=\"#c62828\"");
  }
  if (!has_data) {
    s += Text((left + right) / 2, ymid, "no data", "text-anchor=\"middle\" fill=\"#777\" font-size=\"16\"");
  }
  return s;
}

// The y values with the reference line's, so that the line is always inside the plot.
std::vector<double> WithReference(std::vector<double> ys, const ChartFrame& f) {
  if (!ys.empty() && std::isfinite(f.y_reference)) ys.push_back(f.y_reference);
  return ys;
}

struct Mapped {
  double px, py;
  size_t index;  // in the caller's list
};

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return, not even as references.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += c;
    }
  }
  return out;
}

std::string TruncateLabel(std::string_view text, size_t max_chars) {
  if (max_chars == 0) return "";
  size_t chars = 0, cut = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte
    if (chars == max_chars - 1) cut = i;
    if (++chars > max_chars) return std::string(text.substr(0, cut)) + "\u2026";
  }
  return std::string(text);
}

std::vector<double> LinearTicks(double lo, double hi, int target_count) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (lo > hi) std::swap(lo, hi);
  if (lo == hi) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / std::max(1, target_count);
  if (!std::isfinite(raw) || raw <= 0) return {};
  const int exponent = static_cast<int>(std::floor(std::log10(raw)));
  const double magnitude = std::pow(10, exponent);
  const double r = raw / magnitude;
  const double multiple = r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10;
  const double step = multiple * magnitude;
  const double first = std::floor(lo / step), last = std::ceil(hi / step);
  // A tick is k * multiple (an integer) scaled by a power of ten, dividing for negative powers: 3 / 10 is the double
  // nearest 0.3, where 3 * 0.1 or a running sum would print as 0.30000000000000004.
  const double divisor = exponent < 0 ? std::pow(10, -exponent) : 1;
  std::vector<double> ticks;
  for (double k = first; k <= last && ticks.size() < 50; ++k) {
    const double v = exponent < 0 ? k * multiple / divisor : k * step;
    ticks.push_back(v == 0 ? 0.0 : v);  // no "-0"
  }
  return ticks;
}

std::vector<double> LogTicks(double lo, double hi) {
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi)) return {};
  const int k0 = static_cast<int>(std::floor(std::log10(lo))), k1 = static_cast<int>(std::ceil(std::log10(hi)));
  auto in_range = [&](double v) { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); };
  std::vector<double> all, decades;
  for (int k = k0; k <= k1 && k - k0 < 40; ++k) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10, k);
      if (!in_range(v)) continue;
      all.push_back(v);
      if (m == 1) decades.push_back(v);
    }
  }
  if (all.size() <= 8) {
    if (all.size() >= 2) return all;
    // A range narrower than 1-2-5 steps: round linear ticks inside it.
    std::vector<double> inside;
    for (double v : LinearTicks(lo, hi, 3)) {
      if (v > 0 && in_range(v)) inside.push_back(v);
    }
    return inside;
  }
  return decades;
}

std::string FormatChartNumber(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e3) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.3g}", v);
}

std::string LineChartSvg(const ChartFrame& f, const std::vector<LineSeries>& series) {
  std::vector<double> xs, ys;
  for (const LineSeries& s : series) {
    for (const ChartPoint& p : s.points) {
      if (!Usable(p.x, f.log_x) || !Usable(p.y, false)) continue;
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  }
  const Axis x = MakeAxis(xs, f.log_x, f.x_from_zero, kLeft, f.width - kRight);
  const Axis y = MakeAxis(WithReference(ys, f), false, f.y_from_zero, f.height - kBottom, kTop);
  const int height = f.height + static_cast<int>(series.size()) * kLegendRow + 6;
  std::string s = SvgOpen(f.width, height, f.title) + FrameSvg(f, x, y, !xs.empty());
  for (size_t i = 0; i < series.size(); ++i) {
    const char* colour = kPalette[i % kPaletteSize];
    std::string line, dots;
    size_t drawn = 0;
    for (const ChartPoint& p : series[i].points) {
      if (!Usable(p.x, f.log_x) || !Usable(p.y, false)) continue;
      const double px = x.Map(p.x), py = y.Map(p.y);
      line += fmt::format("{}{},{}", line.empty() ? "" : " ", Px(px), Px(py));
      dots += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"><title>{}: {}, {}</title></circle>",
                          Px(px), Px(py), colour, XmlEscape(series[i].name), FormatChartNumber(p.x),
                          FormatChartNumber(p.y));
      ++drawn;
    }
    if (drawn >= 2) {
      s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>", line, colour);
    }
    s += dots;
    const double ly = f.height + 4 + i * kLegendRow;
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"3\"/>", kLeft,
                     Px(ly), kLeft + 24, colour);
    s += Text(kLeft + 30, ly + 4,
              TruncateLabel(series[i].name, kLegendChars) + (drawn == 0 ? " (no points)" : ""));
  }
  return s + "</svg>";
}

// Where a label's text lies, roughly (6.5 px a character at the charts' font size), to keep labels apart.
struct LabelBox {
  double x, y, w, h;
  bool Overlaps(const LabelBox& o) const { return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h; }
};

std::string ScatterChartSvg(const ChartFrame& f, const std::vector<ScatterPoint>& points, bool pareto_front) {
  std::vector<double> xs, ys;
  for (const ScatterPoint& p : points) {
    if (!Usable(p.x, f.log_x) || !Usable(p.y, false)) continue;
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  const Axis x = MakeAxis(xs, f.log_x, f.x_from_zero, kLeft, f.width - kRight);
  const Axis y = MakeAxis(WithReference(ys, f), false, f.y_from_zero, f.height - kBottom, kTop);
  const int legend_rows = pareto_front ? 2 : 1;
  std::string s = SvgOpen(f.width, f.height + legend_rows * kLegendRow + 6, f.title) + FrameSvg(f, x, y, !xs.empty());
  std::vector<Mapped> mapped;
  for (size_t i = 0; i < points.size(); ++i) {
    if (Usable(points[i].x, f.log_x) && Usable(points[i].y, false))
      mapped.push_back({x.Map(points[i].x), y.Map(points[i].y), i});
  }
  // With a front, only its points and the chosen one are labelled (the rest keep their tooltip), and a label that
  // would overlap one already written is left out: many candidates share a quality figure.
  std::vector<bool> on_front(points.size(), !pareto_front);
  if (pareto_front && !mapped.empty()) {
    // Best x first; a point is on the front when its y beats every point with a larger (or equal, better-y) x.
    std::vector<Mapped> order = mapped;
    std::sort(order.begin(), order.end(), [&](const Mapped& a, const Mapped& b) {
      const ScatterPoint &pa = points[a.index], &pb = points[b.index];
      return pa.x != pb.x ? pa.x > pb.x : pa.y > pb.y;
    });
    std::string line;
    double best_y = -INFINITY;
    for (const Mapped& m : order) {
      if (points[m.index].y <= best_y) continue;
      best_y = points[m.index].y;
      on_front[m.index] = true;
      line += fmt::format("{}{},{}", line.empty() ? "" : " ", Px(m.px), Px(m.py));
    }
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.5\" "
                     "stroke-dasharray=\"5 4\"/>",
                     line);
  }
  // The chosen point's label is placed first, so that no other label crowds it out.
  std::stable_sort(mapped.begin(), mapped.end(),
                   [&](const Mapped& a, const Mapped& b) { return points[a.index].highlighted > points[b.index].highlighted; });
  std::vector<LabelBox> placed;
  for (const Mapped& m : mapped) {
    const ScatterPoint& p = points[m.index];
    s += p.highlighted ? fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"{}\" stroke=\"#000\" "
                                     "stroke-width=\"2\">",
                                     Px(m.px), Px(m.py), kPalette[1])
                       : fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\">", Px(m.px), Px(m.py),
                                     kPalette[0]);
    s += fmt::format("<title>{}: {}, {}</title></circle>", XmlEscape(p.label), FormatChartNumber(p.x),
                     FormatChartNumber(p.y));
    if (!p.highlighted && !on_front[m.index]) continue;
    // Labels near the right edge go to the left of their point, so that they stay inside the picture.
    const bool flip = m.px > f.width - kRight - 170;
    // A point at the top of the plot gets its label below it, clear of the title.
    const double label_y = m.py - 8 < kTop + 10 ? m.py + 18 : m.py - 8;
    const std::string label = TruncateLabel(p.label, kPointLabelChars);
    const double width = 6.5 * static_cast<double>(label.size());
    const LabelBox box{flip ? m.px - 10 - width : m.px + 10, label_y - 11, width, 14};
    if (std::any_of(placed.begin(), placed.end(), [&](const LabelBox& b) { return b.Overlaps(box); })) continue;
    placed.push_back(box);
    std::string attributes = flip ? "text-anchor=\"end\"" : "";
    if (p.highlighted) attributes += flip ? " font-weight=\"bold\"" : "font-weight=\"bold\"";
    s += Text(flip ? m.px - 10 : m.px + 10, label_y, label, attributes);
  }
  double ly = f.height + 4;
  s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"{}\" stroke=\"#000\" stroke-width=\"2\"/>", kLeft + 12,
                   Px(ly), kPalette[1]);
  s += Text(kLeft + 30, ly + 4, "chosen");
  if (pareto_front) {
    ly += kLegendRow;
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#555\" stroke-width=\"1.5\" "
                     "stroke-dasharray=\"5 4\"/>",
                     kLeft, Px(ly), kLeft + 24);
    s += Text(kLeft + 30, ly + 4, "Pareto front (no other candidate is better on both axes)");
  }
  return s + "</svg>";
}

std::string BarChartSvg(const BarChartOptions& o, const std::vector<Bar>& bars) {
  const double label_width = std::min(200.0, o.width * 0.3), value_width = 170;
  const double bar_left = label_width + 6, bar_span = std::max(10.0, o.width - bar_left - value_width);
  double full = o.full_scale;
  if (!(full > 0)) {
    full = 0;
    for (const Bar& b : bars) {
      if (std::isfinite(b.value)) full = std::max(full, b.value);
    }
  }
  const size_t rows = std::max<size_t>(1, bars.size());
  const int height = 30 + static_cast<int>(rows) * o.row_height + 8;
  std::string s = SvgOpen(o.width, height, o.title) + Text(4, 18, o.title, "font-size=\"14\" font-weight=\"bold\"");
  if (bars.empty()) s += Text(bar_left, 30 + o.row_height * 0.7, "no data", "fill=\"#777\"");
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double top = 30 + i * o.row_height, text_y = top + o.row_height * 0.7;
    s += Text(label_width, text_y, TruncateLabel(b.label, kBarLabelChars), "text-anchor=\"end\"");
    if (!std::isfinite(b.value)) {
      s += Text(bar_left, text_y, "not measured", "fill=\"#777\"");
      continue;
    }
    const double width = full > 0 ? std::clamp(b.value / full, 0.0, 1.0) * bar_span : 0;
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", Px(bar_left), Px(top + 3),
                     Px(width), Px(o.row_height - 6), kPalette[0]);
    s += Text(bar_left + width + 6, text_y, b.value_text.empty() ? FormatChartNumber(b.value) : b.value_text);
  }
  return s + "</svg>";
}

}  // namespace hone::tune
