// "Did you mean ...?" for a mistyped name: the closest of the known names by edit distance, when it is close
// enough to be what the user meant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hone {

// Levenshtein distance (insertions, deletions, substitutions; a swap of neighbours counts as one).
size_t EditDistance(std::string_view a, std::string_view b);

// The known name nearest to `typed`, or "" when none is within a third of the longer name's length (at least 1,
// at most 3 edits): "bnech" -> "bench", "--concurency" -> "--concurrency", "xyz" -> "". A name that is the
// start of exactly one known name up to a '-' or '_' is that name: "--output" -> "--output-name".
std::string NearestName(std::string_view typed, const std::vector<std::string>& known);

}  // namespace hone
