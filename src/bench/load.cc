#include "bench/load.h"

#include <fmt/format.h>

namespace hone::bench {

std::string_view LoadModeName(LoadMode mode) {
  switch (mode) {
    case LoadMode::kClosedLoop: return "closed-loop";
    case LoadMode::kOpenLoop: return "open-loop";
    case LoadMode::kOffline: return "offline";
  }
  return "closed-loop";
}

std::string Load::Label() const {
  switch (mode) {
    case LoadMode::kClosedLoop: return fmt::format("concurrency {}", concurrency);
    case LoadMode::kOpenLoop: return fmt::format("rate {:g}/s", rate);
    case LoadMode::kOffline: return fmt::format("offline, {} outstanding", concurrency);
  }
  return "";
}

}  // namespace hone::bench
