// tcp_rtt: the floor under any server's latency on this machine. One client thread and one echo thread exchange
// fixed-size messages over a loopback TCP connection (TCP_NODELAY both ways), one in flight, and the client times
// each round trip. Nothing else runs: no protocol, no parsing, no model. A server's overhead at concurrency 1 can
// only approach this figure, so scripts/compare-serve prints it beside its own.
//
//   tcp_rtt [--request-bytes N] [--response-bytes M] [--round-trips K] [--busy-poll] [--cpus any|apart|same]
//
// Blocking reads by default, the way perf_analyzer, tritonclient and hone serve's front end wait: every message
// wakes a sleeping thread. --busy-poll makes both threads spin on non-blocking reads instead, which shows what the
// wake-ups cost (and would cost a core each to avoid).
// --cpus pins the two threads: `apart` on two different CPUs (as a client and a server on their own cores, where
// every message wakes a thread on the other CPU: in a virtual machine whose idle vCPUs halt, each such wake-up can
// take tens of microseconds), `same` both on one CPU (a wake-up without an inter-processor interrupt); `any`, the
// default, leaves placement to the scheduler, which on such a machine makes the p50 jump between the two.
// Prints one JSON line: {"request_bytes":N,"response_bytes":M,"round_trips":K,"busy_poll":false,"cpus":"any",
// "p50_us":..,"p90_us":..,"p99_us":..}
// Exit codes: 0 ok, 1 a socket call failed, 2 bad usage.
#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Args {
  size_t request_bytes = 3200;  // about a one-image binary KServe request of the bundled model
  size_t response_bytes = 300;  // about its response
  int round_trips = 20000;
  bool busy_poll = false;
  std::string cpus = "any";  // any | apart | same
};

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "tcp_rtt: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "tcp_rtt: %s\nusage: tcp_rtt [--request-bytes N] [--response-bytes M] [--round-trips K] "
               "[--busy-poll] [--cpus any|apart|same]\n",
               why.c_str());
  std::exit(2);
}

long PositiveNumber(const char* flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v <= 0 || v > (1L << 30))
    Usage(std::string(flag) + ": '" + text + "' is not a positive number");
  return v;
}

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--busy-poll") {
      a.busy_poll = true;
      continue;
    }
    if (i + 1 >= argc) Usage(flag + " needs a value, or is not a flag");
    if (flag == "--cpus") {
      a.cpus = argv[++i];
      if (a.cpus != "any" && a.cpus != "apart" && a.cpus != "same")
        Usage("--cpus: '" + a.cpus + "' is not any, apart or same");
      continue;
    }
    const long v = PositiveNumber(argv[i], argv[i + 1]);
    ++i;
    if (flag == "--request-bytes") a.request_bytes = static_cast<size_t>(v);
    else if (flag == "--response-bytes") a.response_bytes = static_cast<size_t>(v);
    else if (flag == "--round-trips") a.round_trips = static_cast<int>(v);
    else Usage("unknown flag " + flag);
  }
  return a;
}

// Reads exactly n bytes; false when the peer closed. Spins on MSG_DONTWAIT reads when busy_poll.
bool ReadExactly(int fd, char* buffer, size_t n, bool busy_poll) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = recv(fd, buffer + got, n - got, busy_poll ? MSG_DONTWAIT : 0);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r == 0) {
      return false;
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      Fail("recv");
    }
  }
  return true;
}

void WriteAll(int fd, const char* buffer, size_t n) {
  size_t sent = 0;
  while (sent < n) {
    const ssize_t w = send(fd, buffer + sent, n - sent, MSG_NOSIGNAL);
    if (w < 0 && errno != EINTR) Fail("send");
    if (w > 0) sent += static_cast<size_t>(w);
  }
}

// Pins the calling thread to the `index`-th CPU it may run on (wrapping around); a no-op for --cpus any.
void PinTo(const std::string& cpus, int index) {
  if (cpus == "any") return;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) Fail("sched_getaffinity");
  std::vector<int> ids;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) ids.push_back(c);
  if (cpus == "apart" && ids.size() < 2) {
    errno = EINVAL;
    Fail("--cpus apart needs two CPUs");
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(ids[static_cast<size_t>(cpus == "same" ? 0 : index) % ids.size()], &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) Fail("pthread_setaffinity_np");
}

void NoDelay(int fd) {
  const int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) Fail("setsockopt TCP_NODELAY");
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = Parse(argc, argv);

  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) Fail("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) Fail("bind");
  if (listen(listener, 1) != 0) Fail("listen");
  if (getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) Fail("getsockname");

  std::thread echo([&] {
    PinTo(args.cpus, 1);
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) Fail("accept");
    NoDelay(fd);
    std::vector<char> request(args.request_bytes), response(args.response_bytes, 'r');
    while (ReadExactly(fd, request.data(), request.size(), args.busy_poll))
      WriteAll(fd, response.data(), response.size());
    close(fd);
  });

  PinTo(args.cpus, 0);
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  if (client < 0) Fail("socket");
  if (connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) Fail("connect");
  NoDelay(client);
  std::vector<char> request(args.request_bytes, 'q'), response(args.response_bytes);
  // A tenth of the round trips (at least 100) warm the connection and the caches first, untimed.
  const int warmup = std::max(100, args.round_trips / 10);
  std::vector<double> us;
  us.reserve(static_cast<size_t>(args.round_trips));
  for (int i = 0; i < warmup + args.round_trips; ++i) {
    const auto start = std::chrono::steady_clock::now();
    WriteAll(client, request.data(), request.size());
    if (!ReadExactly(client, response.data(), response.size(), args.busy_poll)) {
      errno = ECONNRESET;
      Fail("the echo thread closed the connection");
    }
    if (i >= warmup)
      us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  shutdown(client, SHUT_WR);
  echo.join();
  close(client);
  close(listener);

  std::sort(us.begin(), us.end());
  const auto at = [&](double q) { return us[std::min(us.size() - 1, static_cast<size_t>(q * us.size()))]; };
  std::printf(
      "{\"request_bytes\":%zu,\"response_bytes\":%zu,\"round_trips\":%d,\"busy_poll\":%s,\"cpus\":\"%s\","
      "\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f}\n",
      args.request_bytes, args.response_bytes, args.round_trips, args.busy_poll ? "true" : "false", args.cpus.c_str(),
      at(0.50),
      at(0.90), at(0.99));
  return 0;
}
