// The search on made-up measurements: what wins, what the noise of the run hides, when the rounds stop, which
// signal decides, and how risk breaks ties.
#include "tune/search.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace hone::tune {
namespace {

Objective ClosedLoop(const char* slo_text = nullptr) {
  Objective o;
  if (slo_text) o.slos.push_back(*ParseSlo(slo_text));
  o.loads = {Load::Closed(8)};
  return o;
}

Candidate Named(const std::string& id, int risk) {
  Candidate c;
  c.id = id;
  c.risk = risk;
  return c;
}

struct Figures {
  double sps = 0, p99_ns = 2e6, cpu_us = 100;
  double wobble = 0;  // this candidate's own swing: -wobble, +wobble, -wobble, ... from one measurement to the next
  bool flip = false;  // the swing starts the other way (+wobble first)
};

// Each candidate measures its figures times its own wobble; `drift(call)` is the machine's, shared by everything
// measured at that moment (call counts every measurement of the search, in order).
MeasureFn Fixed(std::map<std::string, Figures> figures, std::function<double(int)> drift = nullptr) {
  auto calls = std::make_shared<std::map<std::string, int>>();
  auto total = std::make_shared<int>(0);
  return [figures, drift, calls, total](const Candidate& c, double) -> Result<TrialResult> {
    auto it = figures.find(c.id);
    if (it == figures.end()) return Status::FailedPrecondition("hone serve could not load '" + c.id + "'");
    const Figures& f = it->second;
    const int n = (*calls)[c.id]++ + (f.flip ? 1 : 0);
    const double w = (1 + ((n % 2) ? f.wobble : -f.wobble)) * (drift ? drift((*total)++) : 1.0);
    TrialResult t;
    t.candidate_id = c.id;
    LoadFigures l;
    l.load = Load::Closed(8);
    l.throughput_sps = f.sps * w;
    l.p99_ns = static_cast<uint64_t>(f.p99_ns);
    l.p50_ns = l.p95_ns = l.p99_ns;
    l.cpu_us_per_sample = f.cpu_us;
    l.requests = 1000;
    t.loads.push_back(l);
    return t;
  };
}

SearchSettings Quiet() { return SearchSettings{}; }

const Entry& Winner(const SearchResult& r) { return r.entries[static_cast<size_t>(r.winner)]; }

TEST(Search, ClearWinnerBeyondNoiseIsChosenAfterTheFewestRounds) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1), Named("slow", 2)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}, {"fast", {2000}}, {"slow", {500}}}), Quiet());
  EXPECT_EQ(Winner(r).candidate.id, "fast");
  EXPECT_EQ(r.entries[1].outcome, Outcome::kChosen);
  EXPECT_EQ(r.decided_by, Signal::kThroughput);
  EXPECT_EQ(r.rounds, 3);  // both finalists told apart from the incumbent after the minimum
  EXPECT_NEAR(r.entries[1].ratio_vs_incumbent, 2.0, 1e-9);
  EXPECT_EQ(r.entries[1].score_pair.rounds, 3);
  EXPECT_NE(r.entries[2].outcome, Outcome::kChosen);
  EXPECT_NE(r.reason.find("beyond the noise"), std::string::npos) << r.reason;
}

TEST(Search, GainWithinTheRunsNoiseKeepsTheIncumbentAfterEveryRound) {
  // 3% better, but it swings by +-15% on its own: no number of rounds up to the limit tells them apart.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("barely", 1)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}, {"barely", {1030, 2e6, 100, 0.15}}}),
                          Quiet());
  EXPECT_EQ(r.winner, 0);
  EXPECT_EQ(r.rounds, Quiet().max_rounds);
  EXPECT_EQ(r.entries[1].outcome, Outcome::kNotConfirmed);
  EXPECT_EQ(r.decided_by, Signal::kNone);
  EXPECT_GT(r.noise, 0.05);
  EXPECT_NE(r.reason.find("not told apart"), std::string::npos) << r.reason;
}

TEST(Search, AGainTooSmallToBeWorthARiskStopsAtTheFewestRoundsAndKeepsTheIncumbent) {
  // 0.5% better every time: told apart from 1, but below the 3% a change must gain.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("same", 1)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}, {"same", {1005}}}), Quiet());
  EXPECT_EQ(r.winner, 0);
  EXPECT_EQ(r.rounds, 3);
  EXPECT_NE(r.reason.find("too small"), std::string::npos) << r.reason;
}

TEST(Search, UndecidedAfterTheFewestRoundsMeasuresMoreUntilToldApart) {
  // 10% better with a +-8% swing of its own: three rounds leave the interval across 1, a few more do not.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("better", 1)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}, {"better", {1100, 2e6, 100, 0.08}}}),
                          Quiet());
  EXPECT_GT(r.rounds, 3);
  EXPECT_LT(r.rounds, Quiet().max_rounds);
  EXPECT_EQ(Winner(r).candidate.id, "better") << r.reason;
  EXPECT_GT(Winner(r).score_pair.low, 1);
}

TEST(Search, PairedRoundsCancelADriftBothSidesShare) {
  // The machine swings by +-30% from one measurement to the next, but the two of a round see the same state: each
  // round's ratio is 1.2x and the gain is told apart from the drift.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("steady", 1)};
  auto drift = [](int call) { return 1 + 0.3 * ((call / 2) % 2 ? 1 : -1); };
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}, {"steady", {1200}}}, drift), Quiet());
  EXPECT_EQ(Winner(r).candidate.id, "steady") << r.reason;
  EXPECT_NEAR(r.entries[1].ratio_vs_incumbent, 1.2, 0.05);
}

TEST(Search, LessRiskyFinalistNotToldApartFromTheBestWins) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("risky", 5), Named("safe", 1)};
  SearchResult r = Search(
      cs, ClosedLoop(),
      Fixed({{"incumbent", {1000}}, {"risky", {2040, 2e6, 100, 0.05}}, {"safe", {2000, 2e6, 100, 0.05, true}}}),
      Quiet());
  EXPECT_EQ(Winner(r).candidate.id, "safe") << r.reason;
  EXPECT_NE(r.reason.find("riskier"), std::string::npos) << r.reason;
}

TEST(Search, LessCpuPerSampleDecidesWhenThroughputCannot) {
  // Throughput swings by +-10% and cannot be told apart; the challenger needs 20% less CPU a sample, steadily.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("lean", 1)};
  SearchResult r = Search(
      cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6, 100}}, {"lean", {1000, 2e6, 80, 0.10}}}), Quiet());
  EXPECT_EQ(Winner(r).candidate.id, "lean") << r.reason;
  EXPECT_EQ(r.decided_by, Signal::kCpuPerSample);
  EXPECT_NEAR(Winner(r).cpu_pair.ratio, 1.25, 1e-6);
  EXPECT_NE(r.reason.find("less CPU per sample"), std::string::npos) << r.reason;
}

TEST(Search, LessCpuDoesNotRescueACandidateMeasuredSlower) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("lean-but-slow", 1)};
  SearchResult r =
      Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6, 100}}, {"lean-but-slow", {700, 2e6, 50}}}), Quiet());
  EXPECT_EQ(r.winner, 0) << r.reason;
  EXPECT_NE(r.reason.find("measured worse"), std::string::npos) << r.reason;
}

TEST(Search, RankingScoresTooCloseToOrderAreOrderedByCpuPerSample) {
  // One finalist: "loud" ranks 5% above "lean", closer than one ranking window can order; lean needs less CPU.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("loud", 1), Named("lean", 2)};
  SearchSettings one = Quiet();
  one.finalists = 1;
  SearchResult r = Search(
      cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6, 120}}, {"loud", {1100, 2e6, 110}}, {"lean", {1050, 2e6, 90}}}),
      one);
  EXPECT_EQ(Winner(r).candidate.id, "lean") << r.reason;
  EXPECT_EQ(r.entries[1].outcome, Outcome::kRankedOut);
  EXPECT_NE(r.entries[1].reason.find("needs more CPU per sample"), std::string::npos) << r.entries[1].reason;
}

TEST(Search, ARankingLeadBeyondTheTieIsKeptWhateverTheCpu) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1), Named("lean", 2)};
  SearchSettings one = Quiet();
  one.finalists = 1;
  SearchResult r = Search(
      cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6, 120}}, {"fast", {1300, 2e6, 150}}, {"lean", {1050, 2e6, 90}}}),
      one);
  EXPECT_EQ(Winner(r).candidate.id, "fast") << r.reason;
  EXPECT_EQ(r.entries[2].outcome, Outcome::kRankedOut);
  EXPECT_EQ(r.entries[2].reason.find("CPU"), std::string::npos) << r.entries[2].reason;
}

TEST(Search, MeetingTheSloBeatsThroughput) {
  // "fast" has more throughput but misses p99<=5ms; "meets" holds it.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1), Named("meets", 2)};
  SearchResult r = Search(cs, ClosedLoop("p99<=5ms@concurrency=8"),
                          Fixed({{"incumbent", {1000, 9e6}}, {"fast", {3000, 6e6}}, {"meets", {1100, 4e6}}}), Quiet());
  EXPECT_EQ(Winner(r).candidate.id, "meets");
  EXPECT_TRUE(Winner(r).score.feasible);
  EXPECT_EQ(r.decided_by, Signal::kSlo);
  EXPECT_NE(r.reason.find("meets every SLO"), std::string::npos) << r.reason;
}

TEST(Search, AFailingCandidateIsRejectedWithItsReason) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("broken", 1)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}}), Quiet());
  EXPECT_EQ(r.winner, 0);
  EXPECT_EQ(r.entries[1].outcome, Outcome::kRejected);
  EXPECT_NE(r.entries[1].reason.find("could not load 'broken'"), std::string::npos);
}

TEST(Search, OutOfBudgetMeasuresNothingMoreAndKeepsTheIncumbent) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1)};
  SearchSettings s = Quiet();
  int allowed = 2;  // both ranking runs, no confirmation
  s.may_continue = [&allowed] { return allowed-- > 0; };
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}, {"fast", {5000}}}), s);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.winner, 0);
  EXPECT_EQ(r.rounds, 0);
  EXPECT_NE(r.reason.find("no time to confirm"), std::string::npos) << r.reason;
}

TEST(Search, OneRoundCannotMeasureTheNoiseSoTheIncumbentStays) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1)};
  SearchSettings s = Quiet();
  int allowed = 4;  // the ranking runs and one round
  s.may_continue = [&allowed] { return allowed-- > 0; };
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}, {"fast", {5000}}}), s);
  EXPECT_EQ(r.rounds, 1);
  EXPECT_EQ(r.winner, 0);
  EXPECT_NE(r.reason.find("one confirming round"), std::string::npos) << r.reason;
}

TEST(Search, AnInterruptedRoundIsDroppedFromThePairs) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1)};
  SearchSettings s = Quiet();
  int allowed = 2 + 2 * 2 + 1;  // ranking, two rounds, half of a third
  s.may_continue = [&allowed] { return allowed-- > 0; };
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000}}, {"fast", {2000}}}), s);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_EQ(r.entries[1].score_pair.rounds, 2);
  EXPECT_EQ(Winner(r).candidate.id, "fast") << r.reason;
}

TEST(ScoreRatio, OpenLoopComparesLatency) {
  Objective o;
  o.slos.push_back(*ParseSlo("p95<=10ms@rate=100"));
  o.loads = {o.slos[0].load};
  TrialResult a, b;
  LoadFigures fa, fb;
  fa.load = fb.load = o.loads[0];
  fa.throughput_sps = fb.throughput_sps = 100;
  fa.p95_ns = 1'000'000;
  fb.p95_ns = 2'000'000;
  a.loads = {fa};
  b.loads = {fb};
  EXPECT_NEAR(ScoreRatio(o, a, b), 2.0, 1e-9);
  EXPECT_NEAR(ScoreRatio(o, b, a), 0.5, 1e-9);
}

TEST(CpuRatio, CheaperIsAboveOneAndMissingFiguresGiveZero) {
  TrialResult a, b;
  LoadFigures fa, fb;
  fa.load = fb.load = Load::Closed(8);
  fa.cpu_us_per_sample = 50;
  fb.cpu_us_per_sample = 100;
  a.loads = {fa};
  b.loads = {fb};
  EXPECT_NEAR(CpuRatio(a, b), 2.0, 1e-9);
  b.loads[0].cpu_us_per_sample = 0;
  EXPECT_EQ(CpuRatio(a, b), 0);
}

TEST(Names, OutcomesAndSignalsReadAsTheReportWritesThem) {
  EXPECT_EQ(OutcomeName(Outcome::kNotConfirmed), "not confirmed");
  EXPECT_EQ(SignalName(Signal::kCpuPerSample), "CPU per sample");
}

}  // namespace
}  // namespace hone::tune
