#include "serve/config/llm_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

Result<LlmParameters> FromText(const std::string& params) {
  return LlmParametersFromConfig(testing::ParseOrFail("name: \"m\"\nbackend: \"hone_llm\"\n" + params),
                                 ConfigSource{"models/m/config.pbtxt", "m"});
}

std::string Param(const std::string& key, const std::string& value) {
  return "parameters { key: \"" + key + "\" value { string_value: \"" + value + "\" } }\n";
}

TEST(LlmConfigTest, DefaultsWithoutParameters) {
  auto p = FromText("");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->block_tokens, 16);
  EXPECT_TRUE(p->prefix_cache);
  EXPECT_EQ(p->tokenizer_file, "tokenizer.json");
}

TEST(LlmConfigTest, PrefixCachingCanBeTurnedOffAndTakesOnlyTrueOrFalse) {
  auto off = FromText(Param("prefix_cache", "false"));
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->prefix_cache);
  auto bad = FromText(Param("prefix_cache", "1"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("models/m/config.pbtxt: parameter 'prefix_cache': expected true or "
                                                "false, got '1'"));
}

TEST(LlmConfigTest, TheKvCacheDtypeIsFloat32Float16OrInt8) {
  EXPECT_EQ(FromText("")->kv_cache_dtype, std::nullopt);
  auto half = FromText(Param("kv_cache_dtype", "float16"));
  ASSERT_TRUE(half.ok()) << half.status().ToString();
  EXPECT_EQ(half->kv_cache_dtype, KvCacheDtype::kFloat16);
  EXPECT_EQ(FromText(Param("kv_cache_dtype", "int8"))->kv_cache_dtype, KvCacheDtype::kInt8);
  auto bad = FromText(Param("kv_cache_dtype", "fp8"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("parameter 'kv_cache_dtype': expected float32, float16 or int8, got 'fp8'"));
}

TEST(LlmConfigTest, TheKvBudgetIsInBytesOrInTokensNotBoth) {
  EXPECT_EQ(FromText("")->kv_cache_tokens, std::nullopt);
  auto tokens = FromText(Param("kv_cache_tokens", "11648"));
  ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
  EXPECT_EQ(tokens->kv_cache_tokens, 11648);
  EXPECT_FALSE(FromText(Param("kv_cache_tokens", "0")).ok());
  auto both = FromText(Param("kv_cache_tokens", "1024") + Param("kv_cache_bytes", "1048576"));
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(both.status().message(), HasSubstr("'kv_cache_bytes' and 'kv_cache_tokens' both set"));
}

TEST(LlmConfigTest, AnUnknownParameterNamesTheOnesThereAre) {
  auto bad = FromText(Param("prefix_caching", "true"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("parameter 'prefix_caching': not a parameter of backend"));
  EXPECT_THAT(bad.status().message(), HasSubstr("prefix_cache"));
  EXPECT_FALSE(FromText(Param("block_tokens", "0")).ok());
}

}  // namespace
}  // namespace hone::serve
