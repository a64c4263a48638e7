#include "bench/interrupt.h"

#include <csignal>
#include <unistd.h>

namespace hone::bench {
namespace {

// Process-wide because a signal handler can reach nothing else. Lock-free, so using it in the handler is safe.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

std::atomic<bool> g_second_exits{true};
struct sigaction g_previous;

extern "C" void OnSigint(int) {
  // The second Ctrl-C: the user does not want to wait for the report.
  if (g_interrupted.exchange(true) && g_second_exits.load()) _exit(kExitInterrupted);
}

}  // namespace

InterruptScope::InterruptScope() {
  g_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = OnSigint;
  sigemptyset(&action.sa_mask);
  // Restart interrupted system calls: the flag is polled; nothing should fail with EINTR on its account.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &g_previous);
}

InterruptScope::~InterruptScope() { sigaction(SIGINT, &g_previous, nullptr); }

const std::atomic<bool>* InterruptScope::flag() const { return &g_interrupted; }

void InterruptScope::SetSecondInterruptExits(bool exits) { g_second_exits.store(exits); }

}  // namespace hone::bench
