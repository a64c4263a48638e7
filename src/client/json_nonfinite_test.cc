#include "client/json_nonfinite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace hone::client {
namespace {

TEST(JsonNonFinite, QuotesEveryTritonLiteralOutsideStrings) {
  auto q = QuoteNonFiniteLiterals(R"({"data":[NaN, -NaN,Infinity,-Infinity,Inf,-Inf,1e5,-2],"s":"NaN Inf"})");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(*q, R"({"data":["\u0000nan", "\u0000nan","\u0000inf","\u0000-inf","\u0000inf","\u0000-inf",1e5,-2],)"
                R"("s":"NaN Inf"})");
}

TEST(JsonNonFinite, LeavesStringsEscapesAndValidJsonAlone) {
  EXPECT_FALSE(QuoteNonFiniteLiterals(R"({"a":[1,2.5e-3,true,false,null]})").has_value());
  EXPECT_FALSE(QuoteNonFiniteLiterals(R"({"a":"NaN","b":"say \"Inf\" \\","c":"\\"})").has_value());
  auto q = QuoteNonFiniteLiterals(R"(["x\"NaN",NaN])");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(*q, R"(["x\"NaN","\u0000nan"])");
}

TEST(JsonNonFinite, AnythingElseCapitalisedIsNotRepaired) {
  EXPECT_FALSE(QuoteNonFiniteLiterals("[NaN,None]").has_value());  // the caller reports the parse error
  EXPECT_FALSE(QuoteNonFiniteLiterals("[NaNa]").has_value());
  EXPECT_FALSE(QuoteNonFiniteLiterals("[Infinite]").has_value());
  EXPECT_FALSE(QuoteNonFiniteLiterals("[-Nope]").has_value());
}

TEST(JsonNonFinite, MarkersReadBack) {
  EXPECT_TRUE(std::isnan(*NonFiniteFromMarker(std::string("\0nan", 4))));
  EXPECT_EQ(*NonFiniteFromMarker(std::string("\0inf", 4)), INFINITY);
  EXPECT_EQ(*NonFiniteFromMarker(std::string("\0-inf", 5)), -INFINITY);
  EXPECT_FALSE(NonFiniteFromMarker("nan").has_value());
  EXPECT_FALSE(NonFiniteFromMarker("NaN").has_value());
  EXPECT_EQ(NonFiniteLiteral(std::string("\0-inf", 5)), "-Infinity");
  EXPECT_EQ(NonFiniteLiteral("inf"), "");
}

}  // namespace
}  // namespace hone::client
