// Units and small formatting helpers shared by the text, JSON and CSV reports.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "bench/report.h"

namespace hone::bench {

std::string FormatDuration(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.3g} ms", ns / 1e6);
  return fmt::format("{:.3g} s", ns / 1e9);
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  bool negative = bytes < 0;
  if (negative) bytes = -bytes;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{}{:.{}f} {}", negative ? "-" : "", bytes, u == 0 ? 0 : 1, units[u]);
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::NotFound("cannot write '" + path + "': " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) return Status::Internal("writing '" + path + "' failed");
  return Status::Ok();
}

}  // namespace hone::bench
