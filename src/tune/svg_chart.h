// Small SVG charts for the pages hone writes (the `hone tune` report): a line chart of named series, a scatter chart
// of labelled points with its Pareto front, and a horizontal bar chart. Each returns one `<svg>` element meant to be
// inlined into an HTML page; it needs no script, font file or network. The xmlns attribute is left out on purpose:
// HTML5 puts an inline <svg> in the SVG namespace by itself, and the page then holds no URL at all.
//
// Every text (titles, labels, legend) is XML-escaped and long labels are cut with an ellipsis. Missing values are
// NaN: a point with a NaN coordinate (or, on a log axis, a coordinate <= 0) is skipped, never drawn at 0. A chart
// with nothing to draw still renders its frame with "no data" in it, so a page never loses a section.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace hone::tune {

// `text` with & < > " ' replaced by entities and control characters that XML forbids dropped; safe both as element
// content and inside a double- or single-quoted attribute.
std::string XmlEscape(std::string_view text);

// `text` cut to at most `max_chars` characters (UTF-8 code points, not bytes), the last one an ellipsis when cut.
std::string TruncateLabel(std::string_view text, size_t max_chars);

// Round tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi] with about `target_count` ticks; the
// first tick <= lo and the last >= hi. lo == hi gets a range around it. Empty for non-finite bounds.
std::vector<double> LinearTicks(double lo, double hi, int target_count = 5);

// Ticks for a log axis within [lo, hi] (both > 0): 1, 2 and 5 times powers of ten when that gives at most 8, else
// the powers of ten alone. Empty unless 0 < lo <= hi.
std::vector<double> LogTicks(double lo, double hi);

// A tick or value label: "0.25", "1.5k", "2M", "6e-05"; at most 3 significant digits.
std::string FormatChartNumber(double v);

// The frame every x-y chart shares. Axis labels carry their unit ("throughput (samples/s)").
struct ChartFrame {
  int width = 640;   // of the plot with its axes; a legend below adds to the height
  int height = 340;
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;        // points with x <= 0 are then skipped
  bool x_from_zero = false;  // a linear axis that starts at 0 (counts, throughput) rather than at the smallest value
  bool y_from_zero = false;
  // A dashed horizontal line across the plot (an SLO's bound), kept inside the y range; NaN: none.
  double y_reference = std::numeric_limits<double>::quiet_NaN();
  std::string y_reference_label;
};

struct ChartPoint {
  double x = 0, y = 0;
};

struct LineSeries {
  std::string name;  // in the legend
  std::vector<ChartPoint> points;  // drawn in this order (a latency-throughput curve may bend back)
};

// One polyline with dots per series, each in its own colour, the legend below the plot.
std::string LineChartSvg(const ChartFrame& frame, const std::vector<LineSeries>& series);

struct ScatterPoint {
  double x = 0, y = 0;
  std::string label;        // written beside the point
  bool highlighted = false;  // the chosen one: larger, ringed, bold label
};

// Labelled points; with `pareto_front`, a dashed line through the points that no other point beats on both x and y
// (larger is better on both axes), and only those points and the highlighted one labelled. Every point keeps its
// label as a tooltip; a label that would overlap one already written is left out.
std::string ScatterChartSvg(const ChartFrame& frame, const std::vector<ScatterPoint>& points, bool pareto_front);

struct Bar {
  std::string label;
  double value = 0;        // NaN: the row says "not measured"; negative values draw as 0
  std::string value_text;  // written after the bar ("71% · 30.1 us/run"); empty: FormatChartNumber(value)
};

struct BarChartOptions {
  int width = 640;
  int row_height = 22;
  std::string title;
  double full_scale = 0;  // the value of a bar across the whole width; 0: the largest value
};

// Horizontal bars, one row each, label on the left, in the given order.
std::string BarChartSvg(const BarChartOptions& options, const std::vector<Bar>& bars);

}  // namespace hone::tune
