#include "base/nearest_name.h"

#include <algorithm>

namespace hone {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment: three rows of the dynamic-programming table are enough.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::string NearestName(std::string_view typed, const std::vector<std::string>& known) {
  // A name cut short at a word boundary ("--output" for "--output-name", "max_batch" for "max_batch_size") is what the user meant when exactly one name extends it.
  std::string extended;
  int extensions = 0;
  for (const std::string& name : known)
    if (name.size() > typed.size() && name.compare(0, typed.size(), typed) == 0 &&
        (name[typed.size()] == '-' || name[typed.size()] == '_')) {
      extended = name;
      ++extensions;
    }
  if (extensions == 1) return extended;
  std::string best;
  size_t best_distance = 0;
  for (const std::string& name : known) {
    const size_t d = EditDistance(typed, name);
    const size_t allowed = std::clamp<size_t>(std::max(typed.size(), name.size()) / 3, 1, 3);
    if (d > allowed || d == 0) continue;
    if (best.empty() || d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace hone
