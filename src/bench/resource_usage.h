// The process's own resource use, read from the kernel: CPU time, resident memory, and when the process started.
#pragma once

#include <chrono>
#include <cstdint>

namespace hone::bench {

// User + system CPU time of the whole process (all threads) so far.
std::chrono::nanoseconds ProcessCpuTime();
// Resident set size now, in bytes (/proc/self/statm).
uint64_t CurrentRssBytes();
// The peak resident set size since the process started, in bytes (VmHWM).
uint64_t PeakRssBytes();
// Threads in this process now (/proc/self/status): shows what "0 = default" thread settings turned into.
int ProcessThreadCount();
// Resets the peak RSS to the current RSS (Linux >= 4.0, /proc/self/clear_refs); false where the kernel refuses.
bool ResetPeakRss();
// How long ago the kernel started this process. The kernel keeps start times in clock ticks (usually 10 ms), so
// this is accurate to one tick; cold-start figures built on it say so.
std::chrono::nanoseconds TimeSinceProcessStart();
// The kernel's clock-tick length: the resolution of TimeSinceProcessStart.
std::chrono::nanoseconds ProcessStartResolution();

}  // namespace hone::bench
