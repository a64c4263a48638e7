// The search on made-up measurements: what wins, what noise hides, and how risk breaks ties.
#include "tune/search.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace hone::tune {
namespace {

Objective ClosedLoop(const char* slo_text = nullptr) {
  Objective o;
  if (slo_text) o.slos.push_back(*ParseSlo(slo_text));
  o.loads = {Load{false, 8, 0}};
  return o;
}

Candidate Named(const std::string& id, int risk) {
  Candidate c;
  c.id = id;
  c.risk = risk;
  return c;
}

// Each candidate measures its listed throughput (and p99) every time, times a wobble that alternates from one of
// its measurements to the next; `phase` names the candidates whose wobble starts the other way.
MeasureFn Fixed(std::map<std::string, std::pair<double, double>> figures, double wobble = 0,
                std::map<std::string, int>* calls = nullptr, std::set<std::string> phase = {}) {
  return [figures, wobble, calls, phase](const Candidate& c, double) -> Result<TrialResult> {
    auto it = figures.find(c.id);
    if (it == figures.end()) return Status::FailedPrecondition("hone serve could not load '" + c.id + "'");
    int n = calls ? (*calls)[c.id]++ : 0;
    if (phase.count(c.id)) ++n;
    double w = 1 + ((n % 2) ? wobble : -wobble);
    TrialResult t;
    t.candidate_id = c.id;
    LoadFigures f;
    f.load = Load{false, 8, 0};
    f.throughput_sps = it->second.first * w;
    f.p99_ns = static_cast<uint64_t>(it->second.second);
    f.p50_ns = f.p95_ns = f.p99_ns;
    t.loads.push_back(f);
    return t;
  };
}

SearchSettings Quiet() {
  SearchSettings s;
  s.confirm_repeats = 3;
  return s;
}

TEST(Search, ClearWinnerBeyondNoiseIsChosen) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1), Named("slow", 2)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}, {"fast", {2000, 1e6}},
                                                   {"slow", {500, 4e6}}}),
                          Quiet());
  EXPECT_EQ(r.entries[r.winner].candidate.id, "fast");
  EXPECT_EQ(r.entries[1].outcome, "chosen");
  EXPECT_NEAR(r.entries[1].ratio_vs_incumbent, 2.0, 1e-9);
  EXPECT_NE(r.entries[2].outcome, "chosen");
  EXPECT_NE(r.reason.find("beyond the noise"), std::string::npos) << r.reason;
}

TEST(Search, GainWithinNoiseKeepsTheIncumbent) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("barely", 1)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}, {"barely", {1030, 2e6}}}), Quiet());
  EXPECT_EQ(r.winner, 0);
  EXPECT_EQ(r.entries[1].outcome, "not confirmed");
  EXPECT_NE(r.reason.find("within the noise"), std::string::npos) << r.reason;
}

TEST(Search, NoisyMeasurementsWidenTheBand) {
  // 20% better, but the two swing by +-15% against each other from round to round: the paired ratios run from
  // about 0.9x to 1.6x, and that spread is the noise.
  std::map<std::string, int> calls;
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("maybe", 1)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}, {"maybe", {1200, 2e6}}}, 0.15, &calls,
                                                  {"maybe"}),
                          Quiet());
  EXPECT_GT(r.noise, 0.2);
  EXPECT_EQ(r.winner, 0) << r.reason;
}

TEST(Search, PairedRoundsCancelADriftBothSidesShare) {
  // The same +-15% swing, but the machine's: both move together in every round, so each round's ratio is 1.2x and
  // the gain is told apart from the drift.
  std::map<std::string, int> calls;
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("steady", 1)};
  SearchResult r =
      Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}, {"steady", {1200, 2e6}}}, 0.15, &calls), Quiet());
  EXPECT_EQ(r.entries[r.winner].candidate.id, "steady") << r.reason;
  EXPECT_NEAR(r.entries[1].ratio_vs_incumbent, 1.2, 1e-9);
  EXPECT_LT(r.noise, 0.1);
}

TEST(Search, LessRiskyRunnerUpWithinNoiseWins) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("risky", 5), Named("safe", 1)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}, {"risky", {2040, 2e6}},
                                                   {"safe", {2000, 2e6}}}),
                          Quiet());
  EXPECT_EQ(r.entries[r.winner].candidate.id, "safe");
  EXPECT_NE(r.reason.find("less risky"), std::string::npos) << r.reason;
}

TEST(Search, WithoutRoundsTheNoiseSeenBeforeDecides) {
  // One confirming round: the pair's own spread is unknown, so the prior noise (30%) hides a 1.2x gain.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("maybe", 1)};
  SearchSettings s = Quiet();
  s.confirm_repeats = 1;
  s.prior_noise = 0.3;
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}, {"maybe", {1200, 2e6}}}), s);
  EXPECT_EQ(r.winner, 0) << r.reason;
  EXPECT_FALSE(r.noise_from_rounds);
  EXPECT_DOUBLE_EQ(r.noise, 0.3);
  EXPECT_NE(r.reason.find("earlier measurements"), std::string::npos) << r.reason;
  // A gain beyond it still wins.
  SearchResult clear = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}, {"maybe", {1500, 2e6}}}), s);
  EXPECT_EQ(clear.entries[clear.winner].candidate.id, "maybe") << clear.reason;
}

TEST(Search, MeetingTheSloBeatsThroughput) {
  // "fast" has more throughput but misses p99<=5ms; "meets" holds it.
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1), Named("meets", 2)};
  SearchResult r = Search(cs, ClosedLoop("p99<=5ms@concurrency=8"),
                          Fixed({{"incumbent", {1000, 9e6}}, {"fast", {3000, 6e6}}, {"meets", {1100, 4e6}}}),
                          Quiet());
  EXPECT_EQ(r.entries[r.winner].candidate.id, "meets");
  EXPECT_TRUE(r.entries[r.winner].score.feasible);
  EXPECT_NE(r.reason.find("meets every SLO"), std::string::npos) << r.reason;
}

TEST(Search, AFailingCandidateIsRejectedWithItsReason) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("broken", 1)};
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}}), Quiet());
  EXPECT_EQ(r.winner, 0);
  EXPECT_EQ(r.entries[1].outcome, "rejected");
  EXPECT_NE(r.entries[1].reason.find("could not load 'broken'"), std::string::npos);
}

TEST(Search, OutOfBudgetMeasuresNothingMoreAndKeepsTheIncumbent) {
  std::vector<Candidate> cs = {Named("incumbent", 0), Named("fast", 1)};
  SearchSettings s = Quiet();
  int allowed = 2;  // both ranking runs, no confirmation
  s.may_continue = [&allowed] { return allowed-- > 0; };
  SearchResult r = Search(cs, ClosedLoop(), Fixed({{"incumbent", {1000, 2e6}}, {"fast", {5000, 1e6}}}), s);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.winner, 0);
  EXPECT_NE(r.reason.find("no time to confirm"), std::string::npos) << r.reason;
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

}  // namespace
}  // namespace hone::tune
