#include "serve/core/batch_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/config_complete.h"
#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

const ConfigSource kSource{"models/m", "m"};

// The check on test model `name`, with the config hone completes for it (batching inferred: max_batch_size 4).
Result<BatchCheck> Check(const std::string& name) {
  auto sessions = test::OpenInstances(name);
  if (sessions.empty()) return Status::Internal("cannot open " + name);
  inference::ModelConfig config;
  HONE_RETURN_IF_ERROR(CompleteModelConfig(sessions[0]->metadata(), {.cores = 1}, kSource, &config));
  EXPECT_EQ(config.max_batch_size(), 4) << name;
  return CheckBatching(*sessions[0], config, kSource);
}

TEST(BatchCheckTest, RowByRowModelsAreSafe) {
  for (const char* name : {"affine", "two_inputs", "fashion_mnist"}) {
    auto check = Check(name);
    ASSERT_TRUE(check.ok()) << name << ": " << check.status().ToString();
    EXPECT_TRUE(check->safe) << name << ": " << check->why;
    EXPECT_THAT(check->why, HasSubstr("give the same outputs alone and as a batch of 2"));
  }
}

TEST(BatchCheckTest, AReductionOverTheWholeTensorIsNot) {
  auto check = Check("whole_norm");
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_FALSE(check->safe);
  EXPECT_THAT(check->why, HasSubstr("two random samples (dynamic dimensions 1, random values) as a batch of 2: "
                                    "output 'y' of sample"));
  EXPECT_THAT(check->why, HasSubstr("in a batch of 2 but"));
}

TEST(BatchCheckTest, AModelThatRunsNoRandomSampleIsUnverified) {
  auto check = Check("far_gather");
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_FALSE(check->safe);
  EXPECT_THAT(check->why, HasSubstr("could not be checked: random samples did not run"));
}

}  // namespace
}  // namespace hone::serve
