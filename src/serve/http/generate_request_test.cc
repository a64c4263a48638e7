// Parsing generation requests: the forms each API accepts, and a clear error naming the parameter otherwise.
#include "serve/http/generate_request.h"

namespace hone::serve::http {
namespace {

Result<ParsedGeneration> Parse(GenerateApi api, std::string_view body, std::string* param = nullptr) {
  std::string ignored;
  return ParseGeneration(api, body, param ? param : &ignored);
}

TEST(GenerateRequestTest, CompletionsTakeAStringAOneStringArrayOrTokenIds) {
  auto a = Parse(GenerateApi::kCompletions, R"({"model": "m", "prompt": "Hello"})");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->model, "m");
  EXPECT_EQ(a->request.prompt, "Hello");
  EXPECT_EQ(a->request.max_tokens, 16);  // OpenAI's default for completions
  EXPECT_FALSE(a->stream);
  auto b = Parse(GenerateApi::kCompletions, R"({"model": "m", "prompt": ["Hi"], "max_tokens": 5})");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->request.prompt, "Hi");
  EXPECT_EQ(b->request.max_tokens, 5);
  auto c = Parse(GenerateApi::kCompletions, R"({"model": "m", "prompt": [1, 2, 3]})");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->request.prompt_ids, (std::vector<int64_t>{1, 2, 3}));
}

TEST(GenerateRequestTest, SamplingStopAndStreamOptionsAreRead) {
  auto r = Parse(GenerateApi::kCompletions,
                 R"({"model": "m", "prompt": "x", "temperature": 0.5, "top_p": 0.9, "top_k": -1, "seed": 3,
                     "stop": ["\n", "END"], "stream": true, "stream_options": {"include_usage": true},
                     "ignore_eos": true, "n": 1, "echo": false, "logprobs": null, "presence_penalty": 0,
                     "user": "someone", "unknown_extra": 1})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->request.sampling.temperature, 0.5);
  EXPECT_DOUBLE_EQ(r->request.sampling.top_p, 0.9);
  EXPECT_EQ(r->request.sampling.top_k, 0);
  EXPECT_EQ(r->request.sampling.seed, 3u);
  EXPECT_EQ(r->request.stop, (std::vector<std::string>{"\n", "END"}));
  EXPECT_TRUE(r->stream);
  EXPECT_TRUE(r->include_usage);
  EXPECT_TRUE(r->request.ignore_eos);
}

TEST(GenerateRequestTest, ChatTakesMessagesWithTextParts) {
  auto r = Parse(GenerateApi::kChatCompletions,
                 R"({"model": "m", "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]}],
                     "max_completion_tokens": 7})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->messages.size(), 2u);
  EXPECT_EQ(r->messages[1].content, "Hi there");
  EXPECT_EQ(r->request.max_tokens, 7);
  auto no_limit = Parse(GenerateApi::kChatCompletions, R"({"model": "m", "messages": [{"role": "user", "content": "x"}]})");
  ASSERT_TRUE(no_limit.ok());
  EXPECT_FALSE(no_limit->request.max_tokens.has_value());  // the model's default
}

TEST(GenerateRequestTest, TheGenerateExtensionTakesParametersNestedOrAtTheTop) {
  auto r = Parse(GenerateApi::kKServeGenerate,
                 R"({"text_input": "Hi", "parameters": {"max_tokens": 9, "temperature": 0}, "top_p": 0.5})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->request.prompt, "Hi");
  EXPECT_EQ(r->request.max_tokens, 9);
  EXPECT_DOUBLE_EQ(r->request.sampling.temperature, 0);
  EXPECT_DOUBLE_EQ(r->request.sampling.top_p, 0.5);
}

TEST(GenerateRequestTest, ErrorsNameTheParameter) {
  struct Case {
    GenerateApi api;
    const char* body;
    const char* param;
    const char* says;
  };
  const Case cases[] = {
      {GenerateApi::kCompletions, R"({"prompt": "x"})", "model", "'model'"},
      {GenerateApi::kCompletions, R"({"model": "m"})", "prompt", "'prompt' is required"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": ["a", "b"]})", "prompt", "one prompt"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": {"a": 1}})", "prompt", "must be a string"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "max_tokens": 0})", "max_tokens", ">= 1"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "max_tokens": "5"})", "max_tokens", "integer"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "temperature": -0.1})", "temperature", "temperature"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "top_p": 0})", "top_p", "top_p"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "n": 3})", "n", "one choice"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "echo": true})", "echo", "not supported"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "logprobs": 2})", "logprobs", "not supported"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "frequency_penalty": 1})", "frequency_penalty", "0 only"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "stop": ["a","b","c","d","e"]})", "stop", "at most 4"},
      {GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "stream": "yes"})", "stream", "true or false"},
      {GenerateApi::kChatCompletions, R"({"model": "m", "messages": []})", "messages", "non-empty"},
      {GenerateApi::kChatCompletions, R"({"model": "m", "messages": [{"content": "x"}]})", "messages[0].role", "role"},
      {GenerateApi::kChatCompletions, R"({"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]})",
       "messages[0].content", "text parts only"},
      {GenerateApi::kKServeGenerate, R"({"parameters": {}})", "text_input", "'text_input'"},
      {GenerateApi::kKServeGenerate, R"({"text_input": "x", "parameters": 3})", "parameters", "object"},
  };
  for (const Case& c : cases) {
    std::string param;
    auto r = Parse(c.api, c.body, &param);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << c.body;
    EXPECT_EQ(param, c.param) << c.body;
    EXPECT_THAT(r.status().message(), ::testing::HasSubstr(c.says)) << c.body;
  }
  for (const char* body : {"", "{", "[1, 2]", "\"text\"", "{\"model\": \"m\", \"prompt\": \"x\"} trailing"})
    EXPECT_EQ(Parse(GenerateApi::kCompletions, body).status().code(), StatusCode::kInvalidArgument) << body;
}

}  // namespace
}  // namespace hone::serve::http

namespace hone::serve::http {
namespace {

TEST(GenerateRequestTest, ResponseFormatKeepsTheSchemaAsWrittenPropertiesInOrder) {
  auto r = Parse(GenerateApi::kChatCompletions,
                 R"({"model": "m", "messages": [{"role": "user", "content": "x"}],
                     "response_format": {"type": "json_schema", "json_schema": {"name": "p", "strict": true,
                       "schema": {"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}}}}}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->request.format, generate::OutputFormat::kJsonSchema);
  EXPECT_EQ(r->request.json_schema,
            R"({"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}}})");
  auto o = Parse(GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "response_format": {"type": "json_object"}})");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->request.format, generate::OutputFormat::kJsonObject);
  auto t = Parse(GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "response_format": {"type": "text"}})");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->request.format, generate::OutputFormat::kText);
  auto k = Parse(GenerateApi::kKServeGenerate, R"({"text_input": "x", "parameters": {"response_format": {"type": "json_object"}}})");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->request.format, generate::OutputFormat::kJsonObject);
}

TEST(GenerateRequestTest, AMalformedResponseFormatNamesWhatIsWrong) {
  std::string param;
  auto a = Parse(GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "response_format": {"type": "yaml"}})", &param);
  EXPECT_EQ(a.status().message(), "'response_format.type' must be \"text\", \"json_object\" or \"json_schema\", got \"yaml\"");
  EXPECT_EQ(param, "response_format");
  auto b = Parse(GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "response_format": {"type": "json_schema"}})", &param);
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(param, "response_format.json_schema");
  auto c = Parse(GenerateApi::kCompletions,
                 R"({"model": "m", "prompt": "x", "response_format": {"type": "json_schema", "json_schema": {"name": "n"}}})", &param);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(param, "response_format.json_schema.schema");
  auto d = Parse(GenerateApi::kCompletions, R"({"model": "m", "prompt": "x", "response_format": "json"})", &param);
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(param, "response_format");
}

}  // namespace
}  // namespace hone::serve::http
