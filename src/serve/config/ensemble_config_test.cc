// Ensemble configs: a pipeline that works is planned in dependency order; one that cannot work is refused at load,
// naming the file, the step and the tensor.
#include "serve/config/ensemble_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const ConfigSource kSource{"models/ens/config.pbtxt", "ens"};

// text -> tokenize -> encode -> pool -> embedding, with the steps written out of order.
constexpr const char* kPipeline = R"pb(
  platform: "ensemble"
  max_batch_size: 8
  input [ { name: "text" data_type: TYPE_STRING dims: [ 1 ] } ]
  output [ { name: "embedding" data_type: TYPE_FP32 dims: [ 384 ] } ]
  ensemble_scheduling {
    step [
      { model_name: "pool"
        input_map { key: "token_embeddings" value: "hidden" }
        input_map { key: "attention_mask" value: "mask" }
        output_map { key: "embedding" value: "embedding" } },
      { model_name: "encode" model_version: -1
        input_map { key: "input_ids" value: "ids" }
        input_map { key: "attention_mask" value: "mask" }
        output_map { key: "last_hidden_state" value: "hidden" } },
      { model_name: "tokenize"
        input_map { key: "text" value: "text" }
        output_map { key: "input_ids" value: "ids" }
        output_map { key: "attention_mask" value: "mask" } }
    ]
  }
)pb";

Result<EnsemblePlan> Plan(const std::string& text) { return PlanEnsemble(testing::ParseOrFail(text), kSource); }

void ExpectRefused(const std::string& text, const std::string& expect) {
  auto plan = Plan(text);
  ASSERT_FALSE(plan.ok()) << text;
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(plan.status().message(), StartsWith("models/ens/config.pbtxt: "));
  EXPECT_THAT(plan.status().message(), HasSubstr(expect));
  // ValidateModelConfig, which the repository runs on every config it reads, refuses it the same way.
  EXPECT_THAT(ValidateModelConfig(testing::ParseOrFail(text), kSource).message(), HasSubstr(expect));
}

// kPipeline with `from` replaced by `to` (which must occur).
std::string Edited(const std::string& from, const std::string& to) {
  std::string text = kPipeline;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(EnsembleConfigTest, PlansStepsAfterWhatTheyRead) {
  auto plan = Plan(kPipeline);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->steps.size(), 3u);
  EXPECT_EQ(plan->steps[0].model_name, "tokenize");
  EXPECT_EQ(plan->steps[1].model_name, "encode");
  EXPECT_EQ(plan->steps[2].model_name, "pool");
  EXPECT_TRUE(plan->steps[0].after.empty());
  EXPECT_EQ(plan->steps[1].after, (std::vector<size_t>{0}));
  EXPECT_EQ(plan->steps[2].after, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(plan->steps[1].model_version, 0) << "-1 means the latest";
  EXPECT_EQ(plan->steps[2].inputs,
            (std::vector<std::pair<std::string, std::string>>{{"attention_mask", "mask"}, {"token_embeddings", "hidden"}}));
  EXPECT_TRUE(ValidateModelConfig(testing::ParseOrFail(kPipeline), kSource).ok());
}

TEST(EnsembleConfigTest, MissingStepsOrMaps) {
  ExpectRefused("platform: \"ensemble\" input [ { name: \"t\" data_type: TYPE_STRING dims: [ 1 ] } ]",
                "expected ensemble_scheduling with at least one step");
  ExpectRefused(Edited("{ model_name: \"encode\"", "{ model_name: \"\""), "model_name: expected a model");
  ExpectRefused(Edited("output_map { key: \"last_hidden_state\" value: \"hidden\" }", ""),
                "step[1] (model 'encode'): output_map: expected at least one output");
}

TEST(EnsembleConfigTest, AMapToAnUnknownTensor) {
  ExpectRefused(Edited("value: \"hidden\" }\n        input_map", "value: \"hiden\" }\n        input_map"),
                "step[0] (model 'pool'): input_map 'token_embeddings' <- 'hiden': no ensemble input or step output "
                "is called 'hiden'");
}

TEST(EnsembleConfigTest, AnOutputNobodyWritesAndAnInputNobodyReads) {
  ExpectRefused(Edited("output [ { name: \"embedding\"", "output [ { name: \"vector\""),
                "output 'vector': no step's output_map writes it");
  ExpectRefused(Edited("input [ { name: \"text\" data_type: TYPE_STRING dims: [ 1 ] } ]",
                       "input [ { name: \"text\" data_type: TYPE_STRING dims: [ 1 ] },"
                       " { name: \"lang\" data_type: TYPE_STRING dims: [ 1 ] } ]"),
                "input 'lang': no step reads it");
}

TEST(EnsembleConfigTest, TwoWritersOfOneTensor) {
  ExpectRefused(Edited("output_map { key: \"last_hidden_state\" value: \"hidden\" }",
                       "output_map { key: \"last_hidden_state\" value: \"mask\" }"),
                "already writes it");
  ExpectRefused(Edited("output_map { key: \"input_ids\" value: \"ids\" }",
                       "output_map { key: \"input_ids\" value: \"text\" }"),
                "the ensemble's input of that name already writes it");
}

TEST(EnsembleConfigTest, ACycle) {
  // encode reads what pool writes, pool reads what encode writes.
  ExpectRefused(Edited("input_map { key: \"input_ids\" value: \"ids\" }",
                       "input_map { key: \"input_ids\" value: \"embedding\" }"),
                "the steps form a cycle");
  ExpectRefused(Edited("input_map { key: \"input_ids\" value: \"ids\" }",
                       "input_map { key: \"input_ids\" value: \"hidden\" }"),
                "the step reads its own output");
}

TEST(EnsembleConfigTest, WhatAnEnsembleCannotHave) {
  ExpectRefused(Edited("{ model_name: \"pool\"", "{ model_name: \"ens\""), "an ensemble cannot run itself");
  ExpectRefused(std::string(kPipeline) + "model_warmup [ { name: \"w\" batch_size: 1 } ]", "model_warmup");
  ExpectRefused(std::string(kPipeline) + "parameters { key: \"a\" value { string_value: \"1\" } }", "parameters");
  ExpectRefused(Edited("dims: [ 384 ]", "dims: [ ]"), "output 'embedding': an ensemble output needs data_type and dims");
  ExpectRefused(Edited("{ model_name: \"tokenize\"", "{ model_name: \"tokenize\" model_namespace: \"x\""),
                "hone has one namespace");
}

}  // namespace
}  // namespace hone::serve
