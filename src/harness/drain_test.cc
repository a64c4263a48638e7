// DrainTraffic: readiness off at once, then serving until the traffic stops (the quiet period), the grace period
// ends, or a second signal comes. The traffic here is the test server's request counter moved from `wait`, as
// requests arriving during the drain would move it.
#include "harness/drain.h"

#include <gtest/gtest.h>

#include <thread>

#include "serve/http/test_server.h"

namespace hone::harness {
namespace {

using namespace std::chrono_literals;
using serve::http::testing::TestServer;

TEST(DrainTraffic, EndsOnceRequestsStopArrivingAndCountsThem) {
  TestServer server;
  int calls = 0;
  const DrainResult r = DrainTraffic(server, {.grace = 10s, .quiet = 100ms}, [&](std::chrono::milliseconds d) {
    if (calls++ < 20) ++server.received;  // a request in each of the first 20 waits, then none
    std::this_thread::sleep_for(d);
    return false;
  });
  EXPECT_TRUE(server.draining);
  EXPECT_EQ(r.end, DrainEnd::kQuiet);
  EXPECT_EQ(r.requests, 20u);
  EXPECT_GE(r.waited, 100ms);  // at least one quiet period after the last request
  EXPECT_LT(r.waited, 10s);    // not the whole grace
}

TEST(DrainTraffic, EndsWithTheGracePeriodWhileRequestsKeepComing) {
  TestServer server;
  const DrainResult r = DrainTraffic(server, {.grace = 300ms, .quiet = 100ms}, [&](std::chrono::milliseconds d) {
    ++server.received;
    std::this_thread::sleep_for(d);
    return false;
  });
  EXPECT_EQ(r.end, DrainEnd::kGraceOver);
  EXPECT_GE(r.waited, 300ms);
  EXPECT_GT(r.requests, 0u);
}

TEST(DrainTraffic, ASecondSignalEndsItAtOnce) {
  TestServer server;
  const DrainResult r = DrainTraffic(server, {.grace = 10s, .quiet = 5s}, [](std::chrono::milliseconds) { return true; });
  EXPECT_EQ(r.end, DrainEnd::kInterrupted);
  EXPECT_LT(r.waited, 5s);
}

TEST(DrainTraffic, NoGraceStillTurnsReadinessOff) {
  TestServer server;
  bool waited = false;
  const DrainResult r = DrainTraffic(server, {.grace = 0ms, .quiet = 100ms}, [&](std::chrono::milliseconds) {
    waited = true;
    return false;
  });
  EXPECT_FALSE(waited);
  EXPECT_EQ(r.end, DrainEnd::kGraceOver);
  EXPECT_TRUE(server.IsDraining());
}

}  // namespace
}  // namespace hone::harness
