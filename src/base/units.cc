#include "base/units.h"

#include <fmt/format.h>

#include <array>

namespace hone {

std::string FormatBytes(double bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const char* sign = bytes < 0 ? "-" : "";
  double value = bytes < 0 ? -bytes : bytes;
  if (value < 1024) return fmt::format("{}{:.0f} B", sign, value);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{}{:.1f} {}", sign, value, kUnits[unit]);
}

std::string FormatCount(int64_t count) {
  static constexpr std::array<const char*, 4> kUnits = {"", "K", "M", "B"};
  if (count < 1000 && count > -1000) return std::to_string(count);
  double value = static_cast<double>(count);
  size_t unit = 0;
  while ((value >= 1000 || value <= -1000) && unit + 1 < kUnits.size()) {
    value /= 1000;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string FormatDuration(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.3g} ms", ns / 1e6);
  return fmt::format("{:.3g} s", ns / 1e9);
}

}  // namespace hone
