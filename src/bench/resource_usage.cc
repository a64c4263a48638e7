#include "bench/resource_usage.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace hone::bench {

std::chrono::nanoseconds ProcessCpuTime() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

uint64_t CurrentRssBytes() {
  std::ifstream in("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

uint64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      uint64_t kib = 0;
      fields >> kib;
      return kib * 1024;
    }
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.close();
  return static_cast<bool>(out);
}

int ProcessThreadCount() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8);
  return 0;
}

std::chrono::nanoseconds TimeSinceProcessStart() {
  // Field 22 of /proc/self/stat is the start time in ticks since boot; the command name (field 2) may hold
  // spaces, so count fields after its closing parenthesis.
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::chrono::nanoseconds(0);
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  unsigned long long start_ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) start_ticks = std::strtoull(field.c_str(), nullptr, 10);
  timespec now{};
  clock_gettime(CLOCK_BOOTTIME, &now);
  auto since_boot = std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
  auto started = std::chrono::nanoseconds(start_ticks * 1'000'000'000ULL / static_cast<uint64_t>(sysconf(_SC_CLK_TCK)));
  return since_boot - started;
}

std::chrono::nanoseconds ProcessStartResolution() {
  return std::chrono::nanoseconds(1'000'000'000LL / sysconf(_SC_CLK_TCK));
}

}  // namespace hone::bench
