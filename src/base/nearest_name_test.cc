#include "base/nearest_name.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(EditDistanceTest, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("bench", "bench"), 0u);
  EXPECT_EQ(EditDistance("bench", ""), 5u);
  EXPECT_EQ(EditDistance("bnech", "bench"), 1u);  // neighbours swapped
  EXPECT_EQ(EditDistance("serv", "serve"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(NearestNameTest, SuggestsOnlyWhatIsClose) {
  const std::vector<std::string> commands = {"info", "bench", "compare", "evaluate", "serve", "quantize", "prune", "convert"};
  EXPECT_EQ(NearestName("bnech", commands), "bench");
  EXPECT_EQ(NearestName("quantise", commands), "quantize");
  EXPECT_EQ(NearestName("evalute", commands), "evaluate");
  EXPECT_EQ(NearestName("xyz", commands), "");
  EXPECT_EQ(NearestName("bench", commands), "");  // not a typo
  EXPECT_EQ(NearestName("--concurency", {"--concurrency", "--rate"}), "--concurrency");
  EXPECT_EQ(NearestName("x", {}), "");
  EXPECT_EQ(NearestName("--output", {"--output-name", "--json"}), "--output-name");
  EXPECT_EQ(NearestName("--log", {"--log-info", "--log-error"}), "");  // which one is not clear
}

}  // namespace
}  // namespace hone
