// The engine on a tiny random-weight decoder in the real model's layout (built by models/smollm2/build_decoder.py
// --random into the build folder): continuous batching gives each request the tokens it gets alone, chunked
// prefill the tokens of a whole prompt, and the KV budget is never exceeded.
#include "generate/engine.h"

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

namespace hone::generate {
namespace {

std::string TinyDir() { return std::string(HONE_BINARY_DIR) + "/testdata/tiny_llm"; }

// The tiny decoder in the dense layout, or the same weights in the paged layout (build_decoder.py --layout paged).
EngineOptions Tiny(KvLayout layout = KvLayout::kDense) {
  EngineOptions o;
  o.model_path = TinyDir() + (layout == KvLayout::kPaged ? "_paged" : "") + "/model.onnx";
  o.tokenizer_path = TinyDir() + "/tokenizer.json";
  o.session.intra_op_threads = 1;
  o.kv_cache_bytes = 8 << 20;
  return o;
}

// Collects one request's updates; Wait returns once the last one came.
struct Collector {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int64_t> tokens;
  std::string text;
  std::optional<FinishReason> finish;
  Status error;
  int64_t prompt_tokens = 0;
  int64_t cached_tokens = 0;
  int64_t completion_tokens = 0;
  int updates_after_finish = 0;

  UpdateCallback Callback() {
    return [this](const GenerationUpdate& u) {
      std::lock_guard lock(mu);
      if (finish) ++updates_after_finish;
      if (u.new_token) tokens.push_back(u.token);
      text += u.text;
      prompt_tokens = u.prompt_tokens;
      cached_tokens = u.cached_tokens;
      completion_tokens = u.completion_tokens;
      if (u.finish) {
        finish = u.finish;
        error = u.error;
      }
      cv.notify_all();
    };
  }
  void Wait() {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return finish.has_value(); }));
  }
  void WaitTokens(size_t n) {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return tokens.size() >= n || finish; }));
  }
};

GenerationRequest Greedy(std::string prompt, int64_t max_tokens) {
  GenerationRequest r;
  r.prompt = std::move(prompt);
  r.max_tokens = max_tokens;
  r.sampling.temperature = 0;
  r.ignore_eos = true;
  return r;
}

// The tokens of `request` (ignore_eos, with max_tokens) run alone on a fresh engine. It must run to its length:
// the tests compare these tokens with others, and two empty lists (a request that failed or stopped at once) would
// compare equal.
std::vector<int64_t> Alone(const EngineOptions& options, const GenerationRequest& request) {
  auto engine = Engine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  if (!engine.ok()) return {};
  Collector c;
  auto handle = (*engine)->Submit(request, c.Callback());
  EXPECT_TRUE(handle.ok()) << handle.status().ToString();
  if (!handle.ok()) return {};
  c.Wait();
  EXPECT_TRUE(request.ignore_eos && request.max_tokens) << "Alone runs requests to their length";
  EXPECT_TRUE(c.finish == FinishReason::kLength) << c.error.ToString();
  EXPECT_EQ(c.tokens.size(), static_cast<size_t>(request.max_tokens.value_or(0)));
  EXPECT_EQ(c.completion_tokens, request.max_tokens.value_or(0));
  return c.tokens;
}

// Polls: stats are published after the step that freed the blocks, just after the last update.
void ExpectNoBlocksReserved(const Engine& engine) {
  for (int i = 0; i < 200 && engine.Stats().kv_blocks_reserved != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(engine.Stats().kv_blocks_reserved, 0);
}

// A prompt of exactly `n` token ids (BOS first).
GenerationRequest Ids(int64_t n, int64_t max_tokens) {
  GenerationRequest r = Greedy("", max_tokens);
  r.prompt_ids.push_back(1);
  for (int64_t i = 1; i < n; ++i) r.prompt_ids.push_back(100 + (i * 37) % 500);
  return r;
}

const std::vector<std::string> kPrompts = {
    "The quick brown fox",
    "Once upon a time, in a land far away, there lived a king who had three daughters and a very large garden.",
    "1 2 3 4 5 6 7 8 9 10 11 12 13",
    "Hi",
};

TEST(EngineTest, AFloat16CacheHoldsTwiceTheTokensInTheSameBytes) {
  EngineOptions f32 = Tiny(), f16 = Tiny();
  f16.kv_dtype = KvDtype::kFloat16;
  auto a = Engine::Open(f32);
  auto b = Engine::Open(f16);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*b)->Stats().kv_bytes_per_block * 2, (*a)->Stats().kv_bytes_per_block);
  EXPECT_EQ((*b)->Stats().kv_blocks_total, 2 * (*a)->Stats().kv_blocks_total);
}

TEST(EngineTest, OpensTheTinyDecoder) {
  auto engine = Engine::Open(Tiny());
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  const DecoderShape& s = (*engine)->shape();
  EXPECT_EQ(s.layers, 2);
  EXPECT_EQ(s.kv_heads, 2);
  EXPECT_EQ(s.head_size, 16);
  EXPECT_EQ(s.context_length, 256);
  EXPECT_EQ(s.bos_token_id, 1);
  EXPECT_TRUE(s.has_logits_to_keep);
  EXPECT_TRUE((*engine)->chat_template().supported());
  EngineStats stats = (*engine)->Stats();
  EXPECT_GT(stats.kv_blocks_total, 0);
  EXPECT_LE(stats.kv_blocks_total * stats.kv_bytes_per_block, 8 << 20);
}

// The behaviour tests run with each KV layout and element type: a dense decoder with float32 or float16 blocks
// (with float16 a row's tokens must not depend on whether its batch changed either: the kept present tensors are
// rounded as the blocks round), and the paged decoder, which reads and writes the float16 blocks itself.
struct Variant {
  std::string name;
  KvLayout layout;
  std::optional<KvDtype> dtype;
  std::string model_dir = "";  // another tiny model than Tiny(layout)'s
};
EngineOptions TinyAs(const Variant& v) {
  EngineOptions o = Tiny(v.layout);
  if (!v.model_dir.empty()) o.model_path = std::string(HONE_BINARY_DIR) + "/testdata/" + v.model_dir + "/model.onnx";
  o.kv_dtype = v.dtype;
  return o;
}
class EngineVariantTest : public ::testing::TestWithParam<Variant> {};
INSTANTIATE_TEST_SUITE_P(Variants, EngineVariantTest,
                         ::testing::Values(Variant{"DenseFloat32", KvLayout::kDense, KvDtype::kFloat32},
                                           Variant{"DenseFloat16", KvLayout::kDense, KvDtype::kFloat16},
                                           Variant{"Paged", KvLayout::kPaged, std::nullopt},
                                           Variant{"PagedInt8", KvLayout::kPaged, std::nullopt, "tiny_llm_hs32_int8"}),
                         [](const auto& info) { return info.param.name; });

TEST(EngineTest, OpensThePagedDecoderWithFloat16BlocksAndRefusesFloat32) {
  auto engine = Engine::Open(Tiny(KvLayout::kPaged));
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  EXPECT_EQ((*engine)->shape().layout, KvLayout::kPaged);
  EXPECT_EQ((*engine)->shape().layers, 2);
  EXPECT_EQ((*engine)->shape().kv_heads, 2);
  EXPECT_EQ((*engine)->shape().head_size, 16);
  auto dense = Engine::Open(Tiny());
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ((*engine)->Stats().kv_bytes_per_block * 2, (*dense)->Stats().kv_bytes_per_block);  // float16
  EngineOptions f32 = Tiny(KvLayout::kPaged);
  f32.kv_dtype = KvDtype::kFloat32;
  auto refused = Engine::Open(f32);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              ::testing::HasSubstr("paged layout with float16 KV blocks (its kv_cache input); float32 blocks"));
}

TEST(EngineTest, AnInt8PagedDecoderTakesInt8BlocksAndABudgetInTokensIsTheSameCapacityInEveryType) {
  const std::string dir = std::string(HONE_BINARY_DIR) + "/testdata/";
  EngineOptions int8 = Tiny();
  int8.model_path = dir + "tiny_llm_hs32_int8/model.onnx";
  int8.kv_cache_tokens = 100;  // 7 blocks of 16
  EngineOptions dense = Tiny();
  dense.model_path = dir + "tiny_llm_hs32/model.onnx";
  dense.kv_cache_tokens = 100;
  auto a = Engine::Open(int8), b = Engine::Open(dense);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*a)->Stats().kv_blocks_total, 7);
  EXPECT_EQ((*b)->Stats().kv_blocks_total, 7);
  // int8 plus a float16 scale per 32 elements: 1 + 2/32 bytes an element against float32's 4
  EXPECT_EQ((*a)->Stats().kv_bytes_per_block * 64, (*b)->Stats().kv_bytes_per_block * 17);
  for (KvDtype other : {KvDtype::kFloat16, KvDtype::kFloat32}) {
    int8.kv_dtype = other;
    auto refused = Engine::Open(int8);
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("paged layout with int8 KV blocks"));
  }
  dense.kv_dtype = KvDtype::kInt8;
  auto refused = Engine::Open(dense);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("an int8 KV cache needs the paged one"));
}

TEST_P(EngineVariantTest, APromptSharingAPrefixTakesItsBlocksFromTheCacheAndGetsTheTokensItGetsWithout) {
  EngineOptions without = TinyAs(GetParam());
  without.prefix_cache = false;
  const GenerationRequest first = Ids(70, 8);  // 4 full blocks of 16 and 6 positions
  GenerationRequest second = first;           // the same first 50 tokens (3 full blocks), then others
  second.prompt_ids.resize(50);
  for (int64_t i = 0; i < 12; ++i) second.prompt_ids.push_back(700 + i);
  const std::vector<int64_t> first_alone = Alone(without, first), second_alone = Alone(without, second);

  auto engine = Engine::Open(TinyAs(GetParam()));
  ASSERT_TRUE(engine.ok());
  auto run = [&](const GenerationRequest& r) {
    auto c = std::make_unique<Collector>();
    EXPECT_TRUE((*engine)->Submit(r, c->Callback()).ok());
    c->Wait();
    return c;
  };
  auto a = run(first);
  EXPECT_EQ(a->cached_tokens, 0);
  EXPECT_EQ(a->tokens, first_alone);
  auto b = run(second);
  EXPECT_EQ(b->cached_tokens, 48);
  EXPECT_EQ(b->prompt_tokens, 62);
  EXPECT_EQ(b->tokens, second_alone);
  auto again = run(first);
  EXPECT_EQ(again->cached_tokens, 64);  // every full block of the prompt; the last 6 positions computed
  EXPECT_EQ(again->tokens, first_alone);
  ExpectNoBlocksReserved(**engine);
  EXPECT_GE((*engine)->Stats().kv_blocks_cached, 4);
}

TEST_P(EngineVariantTest, RequestsJoiningMidFlightGetTheTokensTheyGetAlone) {
  const EngineOptions options = TinyAs(GetParam());
  std::vector<std::vector<int64_t>> alone;
  for (size_t i = 0; i < kPrompts.size(); ++i) alone.push_back(Alone(options, Greedy(kPrompts[i], 12 + 3 * i)));

  auto engine = Engine::Open(options);
  ASSERT_TRUE(engine.ok());
  std::vector<Collector> collectors(kPrompts.size());
  ASSERT_TRUE((*engine)->Submit(Greedy(kPrompts[0], 12), collectors[0].Callback()).ok());
  collectors[0].WaitTokens(3);  // the others join while the first is decoding
  for (size_t i = 1; i < kPrompts.size(); ++i) {
    ASSERT_TRUE((*engine)->Submit(Greedy(kPrompts[i], 12 + 3 * i), collectors[i].Callback()).ok());
    if (i == 2) collectors[1].WaitTokens(2);
  }
  for (size_t i = 0; i < kPrompts.size(); ++i) {
    collectors[i].Wait();
    EXPECT_EQ(*collectors[i].finish, FinishReason::kLength);
    EXPECT_EQ(collectors[i].tokens, alone[i]) << "prompt " << i;
    EXPECT_EQ(collectors[i].completion_tokens, static_cast<int64_t>(12 + 3 * i));
    EXPECT_EQ(collectors[i].updates_after_finish, 0);
  }
  ExpectNoBlocksReserved(**engine);
}

TEST_P(EngineVariantTest, ChunkedPrefillGivesTheTokensOfAWholePrompt) {
  EngineOptions whole = TinyAs(GetParam());
  EngineOptions chunked = TinyAs(GetParam());
  chunked.max_step_tokens = 5;  // the long prompt (~30 tokens) goes in chunks of 5
  EXPECT_EQ(Alone(chunked, Greedy(kPrompts[1], 10)), Alone(whole, Greedy(kPrompts[1], 10)));
}

// Holds the engine thread inside an update callback until the test opens it (updates run on the engine thread).
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool reached = false, open = false;

  // On the engine thread: says it got here, and waits to be let go.
  void Hold() {
    std::unique_lock lock(mu);
    reached = true;
    cv.notify_all();
    cv.wait(lock, [&] { return open; });
  }
  bool WaitReached() {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(60), [&] { return reached; });
  }
  void Open() {
    {
      std::lock_guard lock(mu);
      open = true;
    }
    cv.notify_all();
  }
};

TEST(EngineTest, CancellingFreesTheBlocksAtTheNextStep) {
  Gate gate;  // outlives the engine, whose thread may wait in it
  auto engine = Engine::Open(Tiny());
  ASSERT_TRUE(engine.ok());
  // Opened before the engine stops, whatever assertion returns early: its thread may be held in the gate.
  struct OpenOnExit {
    Gate& gate;
    ~OpenOnExit() { gate.Open(); }
  } open_on_exit{gate};
  Collector c;
  // The second token's update holds the engine until the request is cancelled, so the engine cannot run on to
  // max_tokens however late this thread gets to Cancel.
  UpdateCallback collect = c.Callback();
  auto handle = (*engine)->Submit(Ids(20, 200), [&](const GenerationUpdate& u) {
    collect(u);
    if (u.new_token && u.completion_tokens == 2) gate.Hold();
  });
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  ASSERT_TRUE(gate.WaitReached());
  EXPECT_GT((*engine)->Stats().kv_blocks_reserved, 0);
  (*handle)->Cancel();
  gate.Open();
  c.Wait();
  EXPECT_EQ(*c.finish, FinishReason::kCancelled);
  EXPECT_EQ(c.tokens.size(), 2u);  // the step after the cancel ends it: no token after the second
  EXPECT_EQ(c.updates_after_finish, 0);
  ExpectNoBlocksReserved(**engine);
}

TEST_P(EngineVariantTest, AdmissionWaitsForBlocksAndNeverExceedsTheBudget) {
  EngineOptions o = TinyAs(GetParam());
  auto probe = Engine::Open(o);
  ASSERT_TRUE(probe.ok());
  const int64_t block_bytes = (*probe)->Stats().kv_bytes_per_block;
  probe->reset();
  o.kv_cache_bytes = block_bytes * 5;  // 80 positions: one request of 30 + 40 at a time
  auto engine = Engine::Open(o);
  ASSERT_TRUE(engine.ok());
  std::vector<Collector> collectors(3);
  for (auto& c : collectors) ASSERT_TRUE((*engine)->Submit(Ids(30, 40), c.Callback()).ok());
  int64_t max_running = 0;
  int64_t max_reserved = 0;
  for (auto& c : collectors) {
    while (true) {
      EngineStats s = (*engine)->Stats();
      max_running = std::max(max_running, s.running);
      max_reserved = std::max(max_reserved, s.kv_blocks_reserved);
      std::unique_lock lock(c.mu);
      if (c.cv.wait_for(lock, std::chrono::milliseconds(2), [&] { return c.finish.has_value(); })) break;
    }
    EXPECT_EQ(*c.finish, FinishReason::kLength);
    EXPECT_EQ(c.tokens.size(), 40u);
  }
  // Sampled every 2 ms: never two at once. (Not "== 1": the paged tiny decoder can run all three requests before
  // the first sample, and a clean-clone run of scripts/test saw 0.)
  EXPECT_LE(max_running, 1);
  EXPECT_LE(max_reserved, 5);
  // A request that could never fit is refused at once instead of waiting forever.
  Collector never;
  auto refused = (*engine)->Submit(Ids(30, 60), never.Callback());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("KV cache"));
}

TEST(EngineTest, APromptOverTheContextIsRefusedNamingIt) {
  auto engine = Engine::Open(Tiny());
  ASSERT_TRUE(engine.ok());
  std::string long_prompt;
  for (int i = 0; i < 300; ++i) long_prompt += "word ";
  Collector c;
  auto r = (*engine)->Submit(Greedy(long_prompt, 4), c.Callback());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("maximum context length is 256"));
  auto too_many = (*engine)->Submit(Greedy("Hi", 1000), c.Callback());
  ASSERT_FALSE(too_many.ok());
  GenerationRequest bad = Greedy("Hi", 4);
  bad.sampling.top_p = 0;
  EXPECT_THAT((*engine)->Submit(bad, c.Callback()).status().message(), ::testing::HasSubstr("top_p"));
}

TEST(EngineTest, WithoutMaxTokensItStopsAtTheContextsEnd) {
  auto engine = Engine::Open(Tiny());
  ASSERT_TRUE(engine.ok());
  GenerationRequest r = Greedy(kPrompts[0], 4);
  r.max_tokens.reset();
  Collector c;
  ASSERT_TRUE((*engine)->Submit(r, c.Callback()).ok());
  c.Wait();
  EXPECT_EQ(*c.finish, FinishReason::kLength);
  EXPECT_EQ(c.prompt_tokens + c.completion_tokens, 256);
}

TEST(EngineTest, ASeedMakesSamplingReproducible) {
  const EngineOptions options = Tiny();
  GenerationRequest r = Greedy(kPrompts[0], 16);
  r.sampling.temperature = 1.0;
  r.sampling.top_p = 0.95;
  r.sampling.seed = 42;
  auto first = Alone(options, r);
  EXPECT_EQ(Alone(options, r), first);
  r.sampling.seed = 43;
  EXPECT_NE(Alone(options, r), first);
}

TEST(EngineTest, AJsonSchemaRequestEndsWithJsonThatFitsWhateverTheModelSays) {
  auto engine = Engine::Open(Tiny());
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  // The random model's logits are noise: the output is JSON because of the constraint. ignore_eos does not keep a
  // constrained request going past its grammar's end.
  GenerationRequest r = Greedy("Answer in JSON:", 200);
  r.format = OutputFormat::kJsonSchema;
  r.json_schema = R"({"type": "object", "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer"}},
                      "required": ["ok", "n"], "additionalProperties": false})";
  for (int i = 0; i < 3; ++i) {
    r.prompt += " again";
    Collector c;
    auto submitted = (*engine)->Submit(r, c.Callback());
    ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
    c.Wait();
    EXPECT_TRUE(c.finish == FinishReason::kStop) << c.text;
    const nlohmann::json doc = nlohmann::json::parse(c.text, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << c.text;
    EXPECT_TRUE(doc["ok"].is_boolean() && doc["n"].is_number_integer() && doc.size() == 2) << c.text;
  }
  r.json_schema = R"({"type": "string", "pattern": "a+"})";
  auto refused = (*engine)->Submit(r, [](const GenerationUpdate&) {});
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("'pattern' is not supported"), std::string::npos);
  ExpectNoBlocksReserved(**engine);
}

TEST(EngineTest, StopEndsWhatIsLeftWithAnError) {
  auto engine = Engine::Open(Tiny());
  ASSERT_TRUE(engine.ok());
  Collector c;
  ASSERT_TRUE((*engine)->Submit(Ids(20, 200), c.Callback()).ok());
  c.WaitTokens(1);
  (*engine)->Stop(Clock::now());
  c.Wait();
  EXPECT_EQ(*c.finish, FinishReason::kError);
  EXPECT_EQ(c.error.code(), StatusCode::kUnavailable);
  Collector late;
  EXPECT_EQ((*engine)->Submit(Greedy("Hi", 2), late.Callback()).status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace hone::generate
