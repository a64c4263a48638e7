#include "base/progress.h"

#include <gtest/gtest.h>

#include <string>

namespace hone {
namespace {

// A progress reporter writing into `out`, on a clock the test moves by hand.
struct Fixture {
  std::string out;
  double now_s = 100;
  Progress Make(bool terminal) {
    return Progress("point", terminal, [this](std::string_view t) { out += t; }, [this] { return now_s; });
  }
};

TEST(ProgressTest, LineShowsPlaceLabelElapsedAndTimeLeft) {
  EXPECT_EQ(Progress::Line("point", 3, 12, "concurrency 4, batch 1", 12, 3),
            "point 3 of 12: concurrency 4, batch 1 (12.0 s elapsed, about 36.0 s left)");
  EXPECT_EQ(Progress::Line("round", 2, 0, "", 1.5, 2), "round 2 (1.5 s elapsed)");  // total unknown: no estimate
  EXPECT_EQ(Progress::Line("row", 1, 4, "x", 0.25, 0), "row 1 of 4: x (0.2 s elapsed)");  // nothing finished yet
  EXPECT_EQ(Progress::Line("batch", 4, 4, "", 200, 4), "batch 4 of 4 (3 min 20 s elapsed, done)");
}

TEST(ProgressTest, PipedWritesOneLinePerFinishedStepAndNoUpdates) {
  Fixture f;
  {
    Progress p = f.Make(false);
    p.Start(2);
    p.Update("window 1: 100 req/s");
    f.now_s += 2;
    p.StepDone(1, "concurrency 1");
    f.now_s += 2;
    p.StepDone(2, "concurrency 2");
  }
  EXPECT_EQ(f.out,
            "point 1 of 2: concurrency 1 (2.0 s elapsed, about 2.0 s left)\n"
            "point 2 of 2: concurrency 2 (4.0 s elapsed, done)\n");
}

TEST(ProgressTest, PipedFastStepsMakeAtMostALineASecond) {
  Fixture f;
  {
    Progress p = f.Make(false);
    p.Start(8);
    for (size_t step = 1; step <= 8; ++step) {
      f.now_s += 0.25;  // exact in binary: 2 s in all
      p.StepDone(step, "");
    }
  }
  // The first step, the next a second after it, and the last.
  auto line = [](size_t step, double elapsed) { return Progress::Line("point", step, 8, "", elapsed, step) + "\n"; };
  EXPECT_EQ(f.out, line(1, 0.25) + line(5, 1.25) + line(8, 2.0));
}

TEST(ProgressTest, TerminalRewritesOneLineAndClearsItAtTheEnd) {
  Fixture f;
  Progress p = f.Make(true);
  p.Start(3);
  f.now_s += 1;
  p.Update("window 1");
  EXPECT_EQ(f.out, "\rpoint 1 of 3: window 1 (1.0 s elapsed)\x1b[K");
  f.out.clear();
  p.StepDone(1, "concurrency 1");
  f.now_s += 1;
  p.Update("window 1");
  EXPECT_EQ(f.out,
            "\rpoint 1 of 3: concurrency 1 (1.0 s elapsed, about 2.0 s left)\x1b[K"
            "\rpoint 2 of 3: window 1 (2.0 s elapsed, about 4.0 s left)\x1b[K");
  EXPECT_EQ(f.out.find('\n'), std::string::npos);
  f.out.clear();
  p.Finish();
  p.Finish();  // idempotent: one clear only
  EXPECT_EQ(f.out, "\r\x1b[K");
}

TEST(ProgressTest, SetTotalKeepsTheClockAndTheStepsDone) {
  Fixture f;
  Progress p = f.Make(false);
  p.Start(6);
  f.now_s += 3;
  p.StepDone(1, "a");
  p.SetTotal(2);  // fewer steps than first thought
  f.now_s += 3;
  p.StepDone(2, "b");
  EXPECT_EQ(f.out,
            "point 1 of 6: a (3.0 s elapsed, about 15.0 s left)\n"
            "point 2 of 2: b (6.0 s elapsed, done)\n");
}

TEST(ProgressTest, TerminalWithNothingShownClearsNothing) {
  Fixture f;
  { Progress p = f.Make(true); }
  EXPECT_EQ(f.out, "");
}

}  // namespace
}  // namespace hone

namespace hone {
namespace {

TEST(ProgressSinkTest, ForStderrWritesPipedLinesToTheSinkWhileOneIsSet) {
  std::string got;
  Progress::SetStderrSink([&](std::string_view text) { got += text; });
  {
    auto p = Progress::ForStderr("round");
    p->Start(2);
    p->StepDone(1, "first");
    p->StepDone(2, "second");
  }
  Progress::SetStderrSink({});
  EXPECT_NE(got.find("round 1 of 2: first"), std::string::npos) << got;
  EXPECT_NE(got.find("round 2 of 2: second"), std::string::npos) << got;
  EXPECT_EQ(got.find('\r'), std::string::npos) << "piped lines, never the terminal's rewriting line";
}

}  // namespace
}  // namespace hone
