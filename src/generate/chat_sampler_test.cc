// The ChatML renderer and the sampler.
#include "generate/chat_template.h"
#include "generate/sampler.h"

namespace hone::generate {
namespace {

constexpr char kSmolLm2Template[] =
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\n"
    "You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

TEST(ChatTemplateTest, RendersChatMLWithTheTemplatesDefaultSystemMessage) {
  ChatTemplate t = ChatTemplate::FromJinja(kSmolLm2Template);
  ASSERT_TRUE(t.supported());
  EXPECT_EQ(*t.Render({{"user", "Hi"}}),
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(*t.Render({{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello"}, {"user", "2+2?"}}),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
            "Hello<|im_end|>\n<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(t.end_of_turn(), "<|im_end|>");
  EXPECT_EQ(t.Render({}).status().code(), StatusCode::kInvalidArgument);
}

TEST(ChatTemplateTest, OtherTemplatesAreRefusedNotGuessed) {
  EXPECT_EQ(ChatTemplate::FromJinja("").Render({{"user", "Hi"}}).status().code(), StatusCode::kUnimplemented);
  auto llama = ChatTemplate::FromJinja("{{ bos_token }}[INST] {{ message['content'] }} [/INST]");
  EXPECT_FALSE(llama.supported());
  EXPECT_THAT(llama.Render({{"user", "Hi"}}).status().message(), ::testing::HasSubstr("not ChatML"));
}

TEST(SamplerTest, GreedyTakesTheLargestAndTheLowestIdOnATie) {
  Sampler s(SamplingParams{.temperature = 0});
  std::vector<float> logits = {0.1f, 3.0f, -1.0f, 3.0f};
  EXPECT_EQ(s.Next(logits), 1);
}

TEST(SamplerTest, TopKOneAndATinyTopPAreGreedy) {
  std::vector<float> logits = {0.1f, 1.0f, 5.0f, 0.3f};
  Sampler k(SamplingParams{.temperature = 1.0, .top_k = 1, .seed = 1});
  Sampler p(SamplingParams{.temperature = 1.0, .top_p = 0.01, .seed = 1});
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(k.Next(logits), 2);
    EXPECT_EQ(p.Next(logits), 2);
  }
}

TEST(SamplerTest, SamplingFollowsTheDistribution) {
  // Probabilities 0.5, 0.25, 0.25 at temperature 1.
  std::vector<float> logits = {std::log(2.0f), 0.0f, 0.0f};
  Sampler s(SamplingParams{.temperature = 1.0, .seed = 7});
  int counts[3] = {};
  for (int i = 0; i < 20000; ++i) ++counts[s.Next(logits)];
  EXPECT_NEAR(counts[0] / 20000.0, 0.5, 0.02);
  EXPECT_NEAR(counts[1] / 20000.0, 0.25, 0.02);
}

TEST(SamplerTest, ParametersOutOfRangeNameThemselves) {
  EXPECT_THAT(SamplingParams{.temperature = -1}.Validate().message(), ::testing::HasSubstr("temperature"));
  EXPECT_THAT(SamplingParams{.top_p = 1.5}.Validate().message(), ::testing::HasSubstr("top_p"));
  EXPECT_THAT(SamplingParams{.top_k = -2}.Validate().message(), ::testing::HasSubstr("top_k"));
  EXPECT_TRUE(SamplingParams{}.Validate().ok());
}

}  // namespace
}  // namespace hone::generate
