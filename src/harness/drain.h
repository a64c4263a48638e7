// How a server stops without losing a request that a balancer or Kubernetes still sends it: the traffic stops
// after the signal, not at it. A balancer keeps sending until its health check has failed a few times, Kubernetes
// until the endpoint update reaches every proxy, and both run asynchronously to SIGTERM; a server that refuses work
// at the signal fails every request sent in that gap (78 of them in one rolling restart behind HAProxy).
//
// So a drain turns readiness off at once (503, the check fails on its next try), keeps serving what arrives, and
// asks HTTP clients to close their keep-alive connections, for a grace period that ends early once no request has
// arrived for `quiet`: the balancer has stopped sending. Then the caller stops the server as before (Shutdown:
// in-flight requests finish until the deadline).
//
//   harness::DrainResult r = harness::DrainTraffic(server, {.grace = 5s, .quiet = 1s}, wait_for_second_signal);
//   assembled->Shutdown(deadline);
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>

#include "serve/core/server.h"

namespace hone::harness {

struct DrainPlan {
  std::chrono::milliseconds grace{5000};  // the longest to keep serving after the signal
  std::chrono::milliseconds quiet{1000};  // ends the grace early: this long without a new request
};

enum class DrainEnd { kQuiet, kGraceOver, kInterrupted };
std::string_view DrainEndName(DrainEnd end);  // "no request for the quiet period", "grace period over", "interrupted"

struct DrainResult {
  DrainEnd end = DrainEnd::kQuiet;
  std::chrono::milliseconds waited{0};
  uint64_t requests = 0;  // inference and generation requests received during the drain (each was served)
};

// Calls server.BeginDrain(), then waits as DrainPlan says. `wait(d)` blocks for up to `d` and returns true to end
// the drain at once (hone serve: a second SIGTERM or SIGINT). A grace of 0 returns at once.
DrainResult DrainTraffic(serve::Server& server, const DrainPlan& plan,
                         const std::function<bool(std::chrono::milliseconds)>& wait);

}  // namespace hone::harness
