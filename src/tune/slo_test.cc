#include "tune/slo.h"

#include <gtest/gtest.h>

namespace hone::tune {
namespace {

TEST(ParseSlo, ClosedAndOpenLoop) {
  auto a = ParseSlo("p99<=5ms@concurrency=8");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->percentile, 99);
  EXPECT_DOUBLE_EQ(a->bound_ns, 5e6);
  EXPECT_FALSE(a->load.open_loop());
  EXPECT_EQ(a->load.concurrency, 8);
  EXPECT_FALSE(a->strict);

  auto b = ParseSlo(" p99.9 < 250us @ rate=2000/s ");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_DOUBLE_EQ(b->percentile, 99.9);
  EXPECT_TRUE(b->strict);
  EXPECT_DOUBLE_EQ(b->bound_ns, 250e3);
  EXPECT_TRUE(b->load.open_loop());
  EXPECT_DOUBLE_EQ(b->load.rate, 2000);
  EXPECT_EQ(b->load.Label(), "rate 2000/s");

  auto c = ParseSlo("p50<=1s@concurrency=1");
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->bound_ns, 1e9);
}

TEST(ParseSlo, ErrorsNameWhatIsWrong) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"", "percentile"},
      {"99<=5ms@concurrency=8", "percentile"},
      {"p0<=5ms@concurrency=8", "(0, 100]"},
      {"p101<=5ms@concurrency=8", "(0, 100]"},
      {"p99>=5ms@concurrency=8", "<= or <"},
      {"p99<=5@concurrency=8", "unit"},
      {"p99<=-5ms@concurrency=8", "positive"},
      {"p99<=5ms", "@concurrency"},
      {"p99<=5ms@concurrency=0", "whole number"},
      {"p99<=5ms@concurrency=2.5", "whole number"},
      {"p99<=5ms@concurrency=8x", "whole number"},
      {"p99<=5ms@rate=0", "positive"},
      {"p99<=5ms@qps=10", "concurrency=N or rate=R"},
  };
  for (const Case& c : cases) {
    auto r = ParseSlo(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << c.text << ": " << r.status().message();
    EXPECT_NE(r.status().message().find("--slo"), std::string::npos);
  }
}

TEST(JudgeSlo, MetMissedAndRateNotKeptUp) {
  Slo slo = *ParseSlo("p99<=5ms@concurrency=8");
  LoadFigures f;
  f.load = slo.load;
  f.throughput_sps = 1000;
  f.p99_ns = 2'000'000;
  SloResult met = JudgeSlo(slo, f);
  EXPECT_TRUE(met.met);
  EXPECT_NEAR(met.margin, 0.6, 1e-9);
  EXPECT_NE(met.detail.find("met with 60% to spare"), std::string::npos) << met.detail;

  f.p99_ns = 6'000'000;
  SloResult missed = JudgeSlo(slo, f);
  EXPECT_FALSE(missed.met);
  EXPECT_NEAR(missed.margin, -0.2, 1e-9);
  EXPECT_NE(missed.detail.find("missed by 20%"), std::string::npos) << missed.detail;

  f.p99_ns = 5'000'000;
  EXPECT_TRUE(JudgeSlo(slo, f).met);
  Slo strict = *ParseSlo("p99<5ms@concurrency=8");
  EXPECT_FALSE(JudgeSlo(strict, f).met);

  f.p99_ns = 1'000'000;
  f.errors = 3;
  f.first_error = "boom";
  EXPECT_FALSE(JudgeSlo(slo, f).met);

  Slo open = *ParseSlo("p95<=10ms@rate=1000");
  LoadFigures g;
  g.load = open.load;
  g.throughput_sps = 500;
  g.achieved_rate = 500;
  g.p95_ns = 1'000'000;
  SloResult slow = JudgeSlo(open, g);
  EXPECT_FALSE(slow.met);
  EXPECT_NE(slow.detail.find("could not keep up"), std::string::npos) << slow.detail;

  LoadFigures nothing;
  nothing.load = slo.load;
  EXPECT_FALSE(JudgeSlo(slo, nothing).met);
}

TEST(ParseBudgetSeconds, Forms) {
  EXPECT_DOUBLE_EQ(*ParseBudgetSeconds("15m"), 900);
  EXPECT_DOUBLE_EQ(*ParseBudgetSeconds("90s"), 90);
  EXPECT_DOUBLE_EQ(*ParseBudgetSeconds("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(*ParseBudgetSeconds("300"), 300);
  for (const char* bad : {"", "0", "ten", "5ms", "-3m", "5x"}) {
    auto r = ParseBudgetSeconds(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("--budget"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace hone::tune
