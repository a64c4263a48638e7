#include "tune/svg_chart.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>

namespace hone::tune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// Every element closed in order, no stray '<' or '&' in text: what a browser needs to draw what we meant.
::testing::AssertionResult WellFormed(const std::string& svg) {
  std::vector<std::string> open;
  for (size_t i = 0; i < svg.size(); ++i) {
    if (svg[i] == '&') {
      static const std::regex entity("&(amp|lt|gt|quot|#39);");
      if (!std::regex_search(svg.begin() + i, svg.begin() + std::min(svg.size(), i + 6), entity,
                             std::regex_constants::match_continuous))
        return ::testing::AssertionFailure() << "bare '&' at " << i;
    }
    if (svg[i] != '<') continue;
    const size_t end = svg.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag at " << i;
    std::string tag = svg.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return ::testing::AssertionFailure() << "'<' inside a tag at " << i;
    i = end;
    if (!tag.empty() && tag.back() == '/') continue;
    if (!tag.empty() && tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name)
        return ::testing::AssertionFailure() << "</" << name << "> closes " << (open.empty() ? "nothing" : open.back());
      open.pop_back();
    } else {
      open.push_back(tag.substr(0, tag.find(' ')));
    }
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  return ::testing::AssertionSuccess();
}

ChartFrame Frame() {
  ChartFrame f;
  f.title = "p99 against throughput";
  f.x_label = "throughput (samples/s)";
  f.y_label = "p99 (ms)";
  return f;
}

TEST(XmlEscapeTest, EscapesMarkupAndDropsForbiddenControls) {
  EXPECT_EQ(XmlEscape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(XmlEscape(std::string("a\x01" "b\tc\n", 6)), "ab\tc\n");
  EXPECT_EQ(XmlEscape("µs · ok"), "µs · ok");
}

TEST(TruncateLabelTest, CutsCharactersNotBytes) {
  EXPECT_EQ(TruncateLabel("short", 10), "short");
  EXPECT_EQ(TruncateLabel("exactly10!", 10), "exactly10!");
  EXPECT_EQ(TruncateLabel("a very long label indeed", 10), "a very lo\u2026");
  // Two-byte characters are never split in half.
  EXPECT_EQ(TruncateLabel("µµµµµµ", 4), "µµµ\u2026");
  EXPECT_EQ(TruncateLabel("anything", 0), "");
}

TEST(LinearTicksTest, RoundStepsCoveringTheRange) {
  const std::vector<double> t = LinearTicks(0, 5400);
  ASSERT_GE(t.size(), 3u);
  EXPECT_LE(t.front(), 0);
  EXPECT_GE(t.back(), 5400);
  const double step = t[1] - t[0];
  EXPECT_THAT(step, ::testing::AnyOf(1000.0, 2000.0, 500.0));
  for (double v : t) EXPECT_DOUBLE_EQ(std::round(v / step) * step, v);
  EXPECT_EQ(LinearTicks(0.1, 0.3, 2), (std::vector<double>{0.1, 0.2, 0.3}));  // exactly: no 0.30000000000000004
  EXPECT_EQ(LinearTicks(0.0, 0.7, 4), (std::vector<double>{0.0, 0.2, 0.4, 0.6, 0.8}));
  EXPECT_EQ(LinearTicks(-3, 3, 3), (std::vector<double>{-4, -2, 0, 2, 4}));
}

TEST(LinearTicksTest, DegenerateRanges) {
  const std::vector<double> same = LinearTicks(3, 3);
  ASSERT_GE(same.size(), 2u);
  EXPECT_LT(same.front(), 3);
  EXPECT_GT(same.back(), 3);
  EXPECT_GE(LinearTicks(0, 0).size(), 2u);
  EXPECT_TRUE(LinearTicks(kNaN, 1).empty());
  EXPECT_TRUE(LinearTicks(0, std::numeric_limits<double>::infinity()).empty());
  EXPECT_EQ(LinearTicks(5, 1), LinearTicks(1, 5));
}

TEST(LogTicksTest, OneTwoFiveOrDecades) {
  EXPECT_EQ(LogTicks(900, 5900), (std::vector<double>{1000, 2000, 5000}));
  EXPECT_EQ(LogTicks(1, 1e6), (std::vector<double>{1, 10, 100, 1000, 1e4, 1e5, 1e6}));
  EXPECT_TRUE(LogTicks(0, 10).empty());
  EXPECT_TRUE(LogTicks(10, 1).empty());
  for (double v : LogTicks(3, 4)) EXPECT_TRUE(v >= 3 && v <= 4) << v;
}

TEST(FormatChartNumberTest, ShortWithSuffixes) {
  EXPECT_EQ(FormatChartNumber(0), "0");
  EXPECT_EQ(FormatChartNumber(0.25), "0.25");
  EXPECT_EQ(FormatChartNumber(900), "900");
  EXPECT_EQ(FormatChartNumber(5400), "5.4k");
  EXPECT_EQ(FormatChartNumber(2e6), "2M");
  EXPECT_EQ(FormatChartNumber(kNaN), "n/a");
}

TEST(LineChartSvgTest, OneLinePerSeriesWithItsLegend) {
  const std::string svg = LineChartSvg(Frame(), {{"baseline", {{900, 1.5}, {1600, 5.9}, {1620, 12.4}}},
                                                 {"final", {{1400, 1.0}, {5400, 2.1}}}});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_EQ(Count(svg, "<polyline"), 2u);
  EXPECT_EQ(Count(svg, "<circle"), 5u);
  EXPECT_THAT(svg, HasSubstr(">baseline</text>"));
  EXPECT_THAT(svg, HasSubstr(">final</text>"));
  EXPECT_THAT(svg, HasSubstr(">throughput (samples/s)</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("no data")));
  EXPECT_THAT(svg, Not(HasSubstr("http")));
}

TEST(LineChartSvgTest, AReferenceLineInsideTheRange) {
  ChartFrame f = Frame();
  f.y_reference = 50;  // above every point: the axis grows to show it
  f.y_reference_label = "SLO: p99<=50ms";
  const std::string svg = LineChartSvg(f, {{"s", {{1, 1}, {2, 2}}}});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_THAT(svg, HasSubstr(">SLO: p99&lt;=50ms</text>"));
  EXPECT_THAT(svg, HasSubstr(">50</text>"));
  EXPECT_THAT(LineChartSvg(Frame(), {{"s", {{1, 1}}}}), Not(HasSubstr("stroke-dasharray")));
}

TEST(LineChartSvgTest, EmptyOnePointAndEqualValues) {
  const std::string empty = LineChartSvg(Frame(), {});
  EXPECT_TRUE(WellFormed(empty));
  EXPECT_THAT(empty, HasSubstr("no data"));
  const std::string no_points = LineChartSvg(Frame(), {{"baseline", {}}});
  EXPECT_THAT(no_points, HasSubstr("baseline (no points)"));
  const std::string one = LineChartSvg(Frame(), {{"only", {{1600, 5.9}}}});
  EXPECT_TRUE(WellFormed(one));
  EXPECT_EQ(Count(one, "<circle"), 1u);
  EXPECT_EQ(Count(one, "<polyline"), 0u);
  const std::string equal = LineChartSvg(Frame(), {{"flat", {{5, 2}, {5, 2}, {5, 2}}}});
  EXPECT_TRUE(WellFormed(equal));
  for (const std::string& svg : {empty, one, equal}) {
    EXPECT_THAT(svg, Not(HasSubstr("nan")));
    EXPECT_THAT(svg, Not(HasSubstr("inf")));
  }
}

TEST(LineChartSvgTest, SkipsMissingValuesAndNonPositiveOnALogAxis) {
  ChartFrame f = Frame();
  const std::string linear = LineChartSvg(f, {{"s", {{1, 1}, {kNaN, 2}, {3, kNaN}, {4, 4}}}});
  EXPECT_EQ(Count(linear, "<circle"), 2u);
  f.log_x = true;
  const std::string log = LineChartSvg(f, {{"s", {{0, 1}, {-1, 2}, {10, 3}, {1000, 4}}}});
  EXPECT_TRUE(WellFormed(log));
  EXPECT_EQ(Count(log, "<circle"), 2u);
  EXPECT_THAT(log, Not(HasSubstr("nan")));
}

TEST(LineChartSvgTest, EscapesAndTruncatesLabels) {
  ChartFrame f = Frame();
  f.title = "<script>alert(1)</script>";
  const std::string svg = LineChartSvg(f, {{"a&b <i>" + std::string(200, 'x'), {{1, 1}}}});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
  EXPECT_THAT(svg, HasSubstr("&lt;script&gt;"));
  EXPECT_THAT(svg, HasSubstr("a&amp;b &lt;i&gt;"));
  EXPECT_THAT(svg, HasSubstr("\u2026</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(std::string(100, 'x') + "<")));
}

TEST(ScatterChartSvgTest, HighlightsTheChosenAndDrawsTheFront) {
  const std::vector<ScatterPoint> points = {{1600, 0.891, "baseline", false},
                                            {3360, 0.891, "batch32", false},
                                            {5400, 0.889, "int8-dynamic", true},
                                            {2390, 0.887, "int8-static", false},  // beaten by batch32 on both
                                            {kNaN, 0.891, "fp16", false}};
  const std::string svg = ScatterChartSvg(Frame(), points, /*pareto_front=*/true);
  EXPECT_TRUE(WellFormed(svg)) << svg;
  // Four drawn points and the chosen marker in the legend.
  EXPECT_EQ(Count(svg, "<circle"), 5u);
  EXPECT_EQ(Count(svg, "stroke=\"#000\""), 2u);
  EXPECT_THAT(svg, HasSubstr("font-weight=\"bold\">int8-dynamic</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(">fp16<")));
  // The front: int8-dynamic then batch32 (baseline ties batch32 on quality with less throughput: not on it).
  std::smatch m;
  const std::string front_tag = svg.substr(svg.find("<polyline"));
  ASSERT_TRUE(std::regex_search(front_tag, m, std::regex("points=\"([^\"]*)\"")));
  EXPECT_EQ(Count(m[1].str(), ","), 2u) << m[1];
  EXPECT_THAT(svg, HasSubstr("Pareto front"));
}

TEST(ScatterChartSvgTest, OnlyTheFrontAndTheChosenAreLabelledAndLabelsNeverOverlap) {
  // Twelve serving candidates with the same accuracy, close together in throughput, as tune's stages make them.
  std::vector<ScatterPoint> points;
  for (int i = 0; i < 12; ++i) points.push_back({10000.0 + 150 * i, 0.9, "candidate-" + std::to_string(i), i == 5});
  const std::string svg = ScatterChartSvg(Frame(), points, /*pareto_front=*/true);
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_EQ(Count(svg, "<title>candidate-"), 12u);  // every point keeps its tooltip
  EXPECT_THAT(svg, HasSubstr(">candidate-5</text>"));   // the chosen one
  EXPECT_THAT(svg, HasSubstr(">candidate-11</text>"));  // the front: the most throughput at that quality
  EXPECT_THAT(svg, Not(HasSubstr(">candidate-3</text>")));
}

TEST(ScatterChartSvgTest, NoPointsOrOne) {
  const std::string none = ScatterChartSvg(Frame(), {}, true);
  EXPECT_TRUE(WellFormed(none));
  EXPECT_THAT(none, HasSubstr("no data"));
  EXPECT_EQ(Count(none, "<polyline"), 0u);
  const std::string one = ScatterChartSvg(Frame(), {{5, 0.9, "only", true}}, true);
  EXPECT_TRUE(WellFormed(one));
  EXPECT_THAT(one, Not(HasSubstr("nan")));
}

TEST(BarChartSvgTest, RowsInOrderWithValuesAndMissingOnes) {
  BarChartOptions o;
  o.title = "op types";
  o.full_scale = 1;
  const std::string svg = BarChartSvg(o, {{"Conv", 0.71, "71% · 30.1 us"},
                                          {"MatMul", 0.18, ""},
                                          {"Gemm", kNaN, ""},
                                          {"Negative", -1, "<0>"},
                                          {std::string(60, 'L'), 0.01, ""}});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_LT(svg.find(">Conv<"), svg.find(">MatMul<"));
  EXPECT_THAT(svg, HasSubstr("71% · 30.1 us"));
  EXPECT_THAT(svg, HasSubstr(">0.18<"));
  EXPECT_THAT(svg, HasSubstr("not measured"));
  EXPECT_THAT(svg, HasSubstr("&lt;0&gt;"));
  EXPECT_THAT(svg, HasSubstr("\u2026</text>"));
  EXPECT_EQ(Count(svg, "<rect"), 4u);
  EXPECT_THAT(svg, Not(HasSubstr("width=\"-")));
}

TEST(BarChartSvgTest, EmptyAndAllZero) {
  const std::string empty = BarChartSvg({}, {});
  EXPECT_TRUE(WellFormed(empty));
  EXPECT_THAT(empty, HasSubstr("no data"));
  const std::string zeros = BarChartSvg({}, {{"a", 0, ""}, {"b", 0, ""}});
  EXPECT_TRUE(WellFormed(zeros));
  EXPECT_THAT(zeros, Not(HasSubstr("nan")));
}

}  // namespace
}  // namespace hone::tune
