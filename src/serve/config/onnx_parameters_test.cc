#include "serve/config/onnx_parameters.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/batch_timing.h"
#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

Result<runtime::SessionOptions> FromText(const std::string& text) {
  return SessionOptionsFromConfig(testing::ParseOrFail(text));
}

std::string Param(const std::string& key, const std::string& value) {
  return "parameters { key: \"" + key + "\" value { string_value: \"" + value + "\" } }\n";
}

TEST(ConfigParametersTest, DefaultsWithoutParameters) {
  auto o = FromText("");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->ToString(), ServedSessionDefaults().ToString());
  // A served session does not spin (the server's threads want the cores); ONNX Runtime's default would.
  EXPECT_FALSE(o->allow_spinning);
  EXPECT_FALSE(runtime::SessionOptions().allow_spinning == o->allow_spinning);
}

TEST(ConfigParametersTest, SpinningCanBeTurnedOnForTheWholeRunOrOnlyWithinRuns) {
  auto o = FromText(Param("session.intra_op.allow_spinning", "1"));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_NE(o->ToString().find("spin=on"), std::string::npos);
  o = FromText(Param("session.intra_op.allow_spinning", "1") + Param("session.force_spinning_stop", "1"));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_TRUE(o->stop_spinning_after_run);
  EXPECT_NE(o->ToString().find("spin=in-run"), std::string::npos);
  EXPECT_FALSE(FromText(Param("session.force_spinning_stop", "maybe")).ok());
}

TEST(ConfigParametersTest, BatchTimingIsTheSchedulersAndChecked) {
  EXPECT_TRUE(FromText(Param("hone.batch_timing", "triton")).ok());  // not a session option, but not unknown
  EXPECT_EQ(*BatchTimingFromConfig(testing::ParseOrFail(Param("hone.batch_timing", "triton"))), BatchTiming::kTriton);
  Result<BatchTiming> bad = BatchTimingFromConfig(testing::ParseOrFail(Param("hone.batch_timing", "fixed")));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'hone.batch_timing'"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("work_conserving"), std::string::npos);
  EXPECT_EQ(*BatchTimingFromConfig(inference::ModelConfig()), BatchTiming::kWorkConserving);
}

TEST(ConfigParametersTest, EverySupportedKey) {
  auto o = FromText(Param("intra_op_thread_count", "3") + Param("inter_op_thread_count", "2") +
                    Param("execution_mode", "1") + Param("enable_mem_arena", "false") +
                    Param("session.intra_op.allow_spinning", "0") + "optimization { graph { level: -1 } }");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->intra_op_threads, 3);
  EXPECT_EQ(o->inter_op_threads, 2);
  EXPECT_EQ(o->execution_mode, runtime::ExecutionMode::kParallel);
  EXPECT_FALSE(o->cpu_arena);
  EXPECT_FALSE(o->allow_spinning);
  EXPECT_EQ(o->graph_optimization, runtime::GraphOptimization::kBasic);
}

TEST(ConfigParametersTest, BooleanSpellingsAsTriton) {
  for (const char* yes : {"1", "true", "TRUE", "on", "On"}) {
    auto o = FromText(Param("enable_mem_arena", yes));
    ASSERT_TRUE(o.ok()) << yes;
    EXPECT_TRUE(o->cpu_arena) << yes;
  }
  for (const char* no : {"0", "false", "off"}) {
    auto o = FromText(Param("enable_mem_arena", no));
    ASSERT_TRUE(o.ok()) << no;
    EXPECT_FALSE(o->cpu_arena) << no;
  }
  auto bad = FromText(Param("enable_mem_arena", "yes please"));
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("parameter 'enable_mem_arena': expected a boolean"));
}

TEST(ConfigParametersTest, GraphLevelsAsTritonsOnnxRuntimeBackend) {
  const std::pair<int, runtime::GraphOptimization> levels[] = {{0, runtime::GraphOptimization::kAll},
                                                               {-1, runtime::GraphOptimization::kBasic},
                                                               {1, runtime::GraphOptimization::kExtended},
                                                               {2, runtime::GraphOptimization::kDisable}};
  for (auto [level, expect] : levels) {
    auto o = FromText("optimization { graph { level: " + std::to_string(level) + " } }");
    ASSERT_TRUE(o.ok()) << level;
    EXPECT_EQ(o->graph_optimization, expect) << level;
    EXPECT_EQ(GraphLevelFromOptimization(expect), level);
  }
  auto bad = FromText("optimization { graph { level: -2 } }");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("optimization.graph.level: expected 0 (all), -1 (basic), 1 "
                                                "(extended) or 2 (disabled), got -2"));
}

TEST(ConfigParametersTest, BadValuesNameTheParameter) {
  for (const char* bad : {"-1", "two", "1.5", "", " 2", "99999999999", "1025"}) {
    auto o = FromText(Param("intra_op_thread_count", bad));
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(o.status().message(), HasSubstr("parameter 'intra_op_thread_count': expected an integer in [0, 1024]"));
  }
  auto o = FromText(Param("inter_op_thread_count", "x"));
  EXPECT_THAT(o.status().message(), HasSubstr("parameter 'inter_op_thread_count'"));
  o = FromText(Param("execution_mode", "parallel"));
  EXPECT_THAT(o.status().message(), HasSubstr("got 'parallel'"));
}

TEST(ConfigParametersTest, UnknownAndTritonOnlyKeys) {
  auto o = FromText(Param("num_threads", "4"));
  EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(o.status().message(), HasSubstr("parameter 'num_threads': unknown (supported: intra_op_thread_count"));
  for (const char* key : {"enable_mem_pattern", "share_session_between_instances", "gpu_mem_limit",
                          "memory.enable_memory_arena_shrinkage"}) {
    o = FromText(Param(key, "1"));
    EXPECT_EQ(o.status().code(), StatusCode::kUnimplemented) << key;
    EXPECT_THAT(o.status().message(), HasSubstr(std::string("parameter '") + key + "'"));
  }
}

}  // namespace
}  // namespace hone::serve
