#include <gtest/gtest.h>

#include "openai_chat/chat_test_support.h"
#include "translate/openai_chat/codec.h"
#include "validators/openai_chat_validator.h"

namespace llmux::translate::openai_chat {
namespace {

namespace v = validators::openai_chat;
using testing::readChatFixture;

std::string joined(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += p + "\n";
  return out;
}

TEST(ChatResponseDecoder, ToolCallResponse) {
  auto r = decodeResponse(readChatFixture("envoy-aigw--chat-parallel-tools.response.json"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->id, "chatcmpl-C4GmNWjg23NFd2DxEgJ1aMbICfhdA");
  EXPECT_EQ(r->model, "gpt-5-nano-2025-08-07");
  ASSERT_EQ(r->content.size(), 1u);
  EXPECT_EQ(r->content[0].type, BlockType::ToolCall);
  EXPECT_EQ(r->content[0].id, "call_Xc4Aiih37EUJvqjoZlu4Vdoi");
  EXPECT_EQ(r->content[0].name, "get_current_weather");
  EXPECT_EQ(r->content[0].arguments, R"({"location":"San Francisco, CA"})");
  EXPECT_EQ(r->stop, StopReason::ToolUse);
  ASSERT_TRUE(r->usage);
  EXPECT_EQ(r->usage->input, 162);
  EXPECT_EQ(r->usage->output, 219);
  EXPECT_EQ(r->usage->reasoning, 192);
  EXPECT_EQ(r->usage->total(), 381);
  EXPECT_FALSE(r->usage->estimated);
}

TEST(ChatResponseDecoder, TextResponseAndLengthStop) {
  auto r = decodeResponse(readChatFixture("envoy-aigw--chat-reasoning.response.json"));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->content.size(), 1u);
  EXPECT_TRUE(r->content[0].text.starts_with("Ball costs 5 cents."));
  EXPECT_EQ(r->stop, StopReason::EndTurn);

  auto cut = decodeResponse(readChatFixture("envoy-aigw--chat-detailed-usage.response.json"));
  ASSERT_TRUE(cut.ok());
  EXPECT_TRUE(cut->content.empty()) << "an empty content string is no block";
  EXPECT_EQ(cut->stop, StopReason::MaxTokens);
  EXPECT_EQ(cut->usage->output, 100);
  EXPECT_FALSE(cut->usage->estimated) << "no content: nothing to re-estimate";
}

TEST(ChatResponseDecoder, ReasoningContentRefusalAndCacheCounts) {
  auto r = decodeResponse(R"({"id":"x","model":"deepseek-reasoner","choices":[{"index":0,
      "message":{"role":"assistant","content":"Hi","reasoning_content":"thinking..."},
      "finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25,
      "prompt_cache_hit_tokens":16,"completion_tokens_details":{"reasoning_tokens":3}}})");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->content.size(), 2u);
  EXPECT_EQ(r->content[0].type, BlockType::Thinking);
  EXPECT_EQ(r->content[0].text, "thinking...");
  EXPECT_TRUE(r->content[0].signature.empty()) << "Chat reasoning is never signed";
  EXPECT_EQ(r->content[0].signature_origin, Protocol::OpenAiChat) << "but it says where it is from";
  EXPECT_EQ(r->content[1].text, "Hi");
  EXPECT_EQ(r->usage->cache_read, 16);

  auto refused = decodeResponse(R"({"id":"x","choices":[{"index":0,"message":{"role":"assistant",
      "content":null,"refusal":"I can't."},"finish_reason":"stop"}]})");
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->content.at(0).text, "I can't.");
  EXPECT_EQ(refused->stop, StopReason::ContentFilter);
}

TEST(ChatResponseDecoder, ExclusiveCountsAreMadeCanonical) {
  // A relay reporting prompt_tokens without its cache reads, completion without reasoning.
  auto r = decodeResponse(R"({"id":"x","choices":[{"index":0,"message":{"role":"assistant",
      "content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,
      "prompt_tokens_details":{"cached_tokens":50},"completion_tokens_details":{"reasoning_tokens":8}}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->usage->input, 60);
  EXPECT_EQ(r->usage->output, 10);
}

TEST(ChatResponseDecoder, ZeroCompletionWithContentIsEstimated) {
  auto r = decodeResponse(R"({"id":"x","choices":[{"index":0,"message":{"role":"assistant",
      "content":"0123456789abcdef"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,
      "completion_tokens":0,"total_tokens":10}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->usage->output, 4);
  EXPECT_TRUE(r->usage->estimated);
}

TEST(ChatResponseDecoder, ErrorsAndMalformedBodies) {
  auto error = decodeResponse(readChatFixture("pydantic-ai--openrouter_429.response.json"));
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().status(), 429);
  EXPECT_EQ(error.error().message, "Provider returned error");

  auto unsupported = decodeResponse(readChatFixture("vercel-ai--reasoning-model-legacy-parameter-error.json"));
  ASSERT_FALSE(unsupported.ok());
  EXPECT_NE(unsupported.error().message.find("max_completion_tokens"), std::string::npos);

  for (std::string_view bad : {"not json", "[]", R"({"id":"x"})", R"({"choices":[1]})"}) {
    auto r = decodeResponse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::UpstreamProtocol) << bad;
  }
}

TEST(ChatResponseEncoder, FullResponse) {
  Response r;
  r.id = "msg_01ABC";
  r.model = "claude-sonnet-4-5";
  r.content.push_back(Block{.type = BlockType::Thinking, .text = "First, think."});
  r.content.back().signature = "EqQBCkYI...";
  r.content.back().signature_origin = Protocol::Anthropic;
  r.content.push_back(Block{.type = BlockType::RedactedThinking, .signature = "opaque"});
  r.content.push_back(Block{.type = BlockType::Text, .text = "I'll check."});
  r.content.push_back(Block{.type = BlockType::ToolCall, .id = "toolu_01", .name = "get_weather",
                            .arguments = R"({"city":"Paris"})"});
  r.content.push_back(Block{.type = BlockType::ToolCall, .name = "get_time", .arguments = ""});
  r.stop = StopReason::ToolUse;
  r.usage = Usage{.input = 1000, .cache_read = 800, .cache_write = 100, .output = 50, .reasoning = 20};
  std::string body = encodeResponse(r, EncodeOptions{.model = "my-alias", .created = 42});
  EXPECT_EQ(joined(v::validateResponse(body)), "") << body;
  auto s = v::summarizeResponse(body);
  EXPECT_EQ(s.id, "chatcmpl-msg_01ABC");
  EXPECT_EQ(s.model, "my-alias");
  EXPECT_EQ(s.content, "I'll check.");
  EXPECT_EQ(s.reasoning_content, "First, think.");
  ASSERT_EQ(s.tool_calls.size(), 2u);
  EXPECT_EQ(s.tool_calls[0].id, "toolu_01");
  EXPECT_EQ(s.tool_calls[0].arguments, R"({"city":"Paris"})");
  EXPECT_TRUE(s.tool_calls[1].id.starts_with("call_")) << "a missing id is made up";
  EXPECT_EQ(s.tool_calls[1].arguments, "{}");
  EXPECT_EQ(s.finish_reason, "tool_calls");
  EXPECT_EQ(s.prompt_tokens, 1000);
  EXPECT_EQ(s.cached_tokens, 800);
  EXPECT_EQ(s.completion_tokens, 50);
  EXPECT_EQ(s.reasoning_tokens, 20);
  EXPECT_EQ(s.total_tokens, 1050) << "cache is a subset of input, never added again";
  EXPECT_EQ(body.find("EqQBCkYI"), std::string::npos) << "signatures never reach a Chat client";
  EXPECT_EQ(body.find("opaque"), std::string::npos);
  EXPECT_NE(body.find(R"("cache_write_tokens":100)"), std::string::npos);
}

TEST(ChatResponseEncoder, OnlyToolCallsHaveNullContentAndIdsAreStable) {
  Response r;
  r.content.push_back(Block{.type = BlockType::ToolCall, .name = "f", .arguments = "{}"});
  r.stop = StopReason::EndTurn;  // Gemini says STOP even when it calls a function
  std::string a = encodeResponse(r, EncodeOptions{.id = "req1"});
  std::string b = encodeResponse(r, EncodeOptions{.id = "req1"});
  EXPECT_EQ(joined(v::validateResponse(a)), "") << a;
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find(R"("content":null)"), std::string::npos);
  EXPECT_EQ(v::summarizeResponse(a).finish_reason, "tool_calls");
  EXPECT_EQ(v::summarizeResponse(a).id, "chatcmpl-req1");
}

TEST(ChatResponseEncoder, EmptyAnswerIsValid) {
  Response r;
  r.id = "chatcmpl-x";
  r.stop = StopReason::MaxTokens;
  std::string body = encodeResponse(r, EncodeOptions{});
  EXPECT_EQ(joined(v::validateResponse(body)), "") << body;
  EXPECT_EQ(v::summarizeResponse(body).finish_reason, "length");
  EXPECT_EQ(body.find("usage"), std::string::npos) << "no usage known: none invented";
}

}  // namespace
}  // namespace llmux::translate::openai_chat
