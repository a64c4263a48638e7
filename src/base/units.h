// Numbers with their units, the same way in every report hone prints.
#pragma once

#include <cstdint>
#include <string>

namespace hone {

// "512 B", "1.6 KiB", "421.6 MiB", "-2.0 GiB" (binary units, one decimal above bytes).
std::string FormatBytes(double bytes);
// "842", "421.6 K", "7.2 M", "1.3 B" (decimal: thousands, millions, billions).
std::string FormatCount(int64_t count);
// "845 ns", "88.3 us", "1.23 ms", "2.5 s" (three significant digits from milliseconds up).
std::string FormatDuration(double ns);

}  // namespace hone
