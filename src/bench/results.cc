#include "bench/results.h"

namespace hone::bench {

double PointResult::cpu_cores_used() const {
  return duration_s > 0 ? std::chrono::duration<double>(cpu_time).count() / duration_s : 0;
}

std::optional<double> PointResult::CostPer1000(double cost_per_hour) const {
  if (cost_per_hour <= 0 || throughput_sps() <= 0) return std::nullopt;
  return cost_per_hour / 3600.0 / throughput_sps() * 1000.0;
}

bool BenchReport::all_stable() const {
  for (const auto& p : points)
    if (!p.stable()) return false;
  return true;
}

uint64_t BenchReport::total_errors() const {
  uint64_t n = 0;
  for (const auto& p : points) n += p.errors_anywhere;
  return n;
}

std::string BenchReport::SessionLabel(size_t index) const {
  return index < sessions.size() ? sessions[index].options.ToString() : "server";
}

}  // namespace hone::bench
