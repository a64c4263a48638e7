#include "serve/http/route.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hone::serve::http {
namespace {

using ::testing::HasSubstr;

TEST(Route, HealthMetadataAndMetrics) {
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/health/live").endpoint, Endpoint::kHealthLive);
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/health/ready").endpoint, Endpoint::kHealthReady);
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2").endpoint, Endpoint::kServerMetadata);
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/").endpoint, Endpoint::kServerMetadata);
  EXPECT_EQ(MatchRoute(Method::kGet, "/metrics").endpoint, Endpoint::kMetrics);
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/health/ready?verbose=1").endpoint, Endpoint::kHealthReady);
}

TEST(Route, ModelEndpointsWithAndWithoutVersion) {
  Route r = MatchRoute(Method::kGet, "/v2/models/fashion");
  EXPECT_EQ(r.endpoint, Endpoint::kModelMetadata);
  EXPECT_EQ(r.model, "fashion");
  EXPECT_EQ(r.version, 0);
  r = MatchRoute(Method::kGet, "/v2/models/fashion/versions/3/ready");
  EXPECT_EQ(r.endpoint, Endpoint::kModelReady);
  EXPECT_EQ(r.version, 3);
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/models/m/config").endpoint, Endpoint::kModelConfig);
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/models/m/versions/1/stats").endpoint, Endpoint::kModelStats);
  r = MatchRoute(Method::kPost, "/v2/models/m/versions/2/infer");
  EXPECT_EQ(r.endpoint, Endpoint::kInfer);
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.version, 2);
  r = MatchRoute(Method::kGet, "/v2/models/stats");
  EXPECT_EQ(r.endpoint, Endpoint::kModelStats);
  EXPECT_EQ(r.model, "") << "every model's statistics, as in Triton";
}

TEST(Route, Repository) {
  EXPECT_EQ(MatchRoute(Method::kPost, "/v2/repository/index").endpoint, Endpoint::kRepositoryIndex);
  Route r = MatchRoute(Method::kPost, "/v2/repository/models/fashion/load");
  EXPECT_EQ(r.endpoint, Endpoint::kRepositoryLoad);
  EXPECT_EQ(r.model, "fashion");
  EXPECT_EQ(MatchRoute(Method::kPost, "/v2/repository/models/fashion/unload").endpoint, Endpoint::kRepositoryUnload);
}

TEST(Route, UnknownPathsAre404) {
  for (const char* path : {"/", "/v1/models/m", "/v2/health", "/v2/health/live/", "/v2/models/m/explain",
                           "/v2/models/m/versions/1/infer/x", "//v2", "/v2/repository/models/m/reload", "metrics"}) {
    Route r = MatchRoute(Method::kGet, path);
    EXPECT_EQ(r.endpoint, Endpoint::kNone) << path;
    EXPECT_EQ(r.error_status, 404) << path;
    EXPECT_THAT(r.error, HasSubstr("no endpoint")) << path;
  }
}

TEST(Route, WrongMethodIs405WithAllow) {
  Route r = MatchRoute(Method::kGet, "/v2/models/m/infer");
  EXPECT_EQ(r.error_status, 405);
  EXPECT_EQ(r.allow, "POST");
  r = MatchRoute(Method::kPost, "/v2/health/live");
  EXPECT_EQ(r.error_status, 405);
  EXPECT_EQ(r.allow, "GET");
  EXPECT_EQ(MatchRoute(Method::kOther, "/metrics").error_status, 405);
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/repository/index").error_status, 405);
}

TEST(Route, NamesArePercentDecodedThenValidated) {
  Route r = MatchRoute(Method::kGet, "/v2/models/my%20model");
  EXPECT_EQ(r.endpoint, Endpoint::kModelMetadata);
  EXPECT_EQ(r.model, "my model");
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/models/a+b").model, "a+b") << "'+' is not a space in a path";
  for (const char* path : {"/v2/models/..", "/v2/models/%2E%2E", "/v2/models/a%2Fb", "/v2/models/.hidden",
                           "/v2/models/a%00b", "/v2/models/a%0Ab/ready", "/v2/models/a%5Cb",
                           "/v2/repository/models/%2e%2e/load"}) {
    Route r2 = MatchRoute(Method::kGet, path);
    if (std::string_view(path).ends_with("/load")) r2 = MatchRoute(Method::kPost, path);
    EXPECT_EQ(r2.endpoint, Endpoint::kNone) << path;
    EXPECT_EQ(r2.error_status, 400) << path;
  }
  Route bad = MatchRoute(Method::kGet, "/v2/models/a%zzb");
  EXPECT_EQ(bad.error_status, 400);
  EXPECT_THAT(bad.error, HasSubstr("malformed percent-encoding"));
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/models/a%2").error_status, 400);
}

TEST(Route, VersionsMustBePositiveIntegers) {
  for (const char* v : {"0", "-1", "1.0", "latest", "%2e%2e", "99999999999999999999", ""}) {
    Route r = MatchRoute(Method::kGet, std::string("/v2/models/m/versions/") + v + "/ready");
    EXPECT_EQ(r.error_status, 400) << v;
  }
  EXPECT_EQ(MatchRoute(Method::kGet, "/v2/models/m/versions/007").version, 7);
}

TEST(PercentDecode, Escapes) {
  std::string out;
  EXPECT_TRUE(PercentDecode("a%41%2fz", out));
  EXPECT_EQ(out, "aA/z");
  EXPECT_FALSE(PercentDecode("%4", out));
  EXPECT_FALSE(PercentDecode("%g1", out));
  EXPECT_FALSE(PercentDecode("abc%", out));
}

}  // namespace
}  // namespace hone::serve::http

namespace hone::serve::http {
namespace {

TEST(RouteTest, GenerationEndpoints) {
  EXPECT_EQ(MatchRoute(Method::kGet, "/v1/models").endpoint, Endpoint::kOpenAiModels);
  EXPECT_EQ(MatchRoute(Method::kPost, "/v1/completions").endpoint, Endpoint::kOpenAiCompletions);
  EXPECT_EQ(MatchRoute(Method::kPost, "/v1/chat/completions").endpoint, Endpoint::kOpenAiChatCompletions);
  Route g = MatchRoute(Method::kPost, "/v2/models/smollm2/versions/2/generate_stream");
  EXPECT_EQ(g.endpoint, Endpoint::kGenerateStream);
  EXPECT_EQ(g.model, "smollm2");
  EXPECT_EQ(g.version, 2);
  EXPECT_EQ(MatchRoute(Method::kPost, "/v2/models/m/generate").endpoint, Endpoint::kGenerate);
  Route wrong = MatchRoute(Method::kGet, "/v1/completions");
  EXPECT_EQ(wrong.error_status, 405);
  EXPECT_EQ(wrong.allow, "POST");
  EXPECT_EQ(MatchRoute(Method::kPost, "/v1/embeddings").error_status, 404);
}

}  // namespace
}  // namespace hone::serve::http
