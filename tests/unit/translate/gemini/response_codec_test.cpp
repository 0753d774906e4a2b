// Complete Gemini answers ↔ the neutral Response (translate/gemini/response_codec.cpp).
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "gemini/gemini_test_support.h"
#include "translate/gemini/codec.h"
#include "validators/gemini_validator.h"

namespace llmux::translate::gemini {
namespace {

namespace json = boost::json;
using testing::callBlock;
using testing::canonicalJson;
using testing::readGeminiFixture;
using testing::textBlock;

Response decodeOk(std::string_view body) {
  auto decoded = decodeResponse(body);
  EXPECT_TRUE(decoded.ok()) << (decoded.ok() ? "" : decoded.error().message);
  return decoded.ok() ? std::move(decoded).value() : Response{};
}

std::string encodeValid(Response const& response, EncodeOptions const& options = {}) {
  std::string body = encodeResponse(response, options);
  auto problems = validators::gemini::validateResponse(body);
  std::string listed;
  for (auto const& p : problems) listed += "  " + p + "\n";
  EXPECT_TRUE(problems.empty()) << listed << body;
  return body;
}

TEST(GeminiResponseDecoder, ThoughtsAnswerAndSignature) {
  Response r = decodeOk(readGeminiFixture("pydantic-ai--thoughts_nonstream.response.json"));
  ASSERT_GE(r.content.size(), 2u);
  EXPECT_EQ(r.content.front().type, BlockType::Thinking);
  EXPECT_FALSE(r.content.front().text.empty());
  Block const& answer = r.content.back();
  EXPECT_EQ(answer.type, BlockType::Text);
  EXPECT_FALSE(answer.signature.empty()) << "the answer's thoughtSignature is kept";
  EXPECT_EQ(answer.signature_origin, Protocol::Gemini);
  EXPECT_EQ(r.stop, StopReason::EndTurn);
  ASSERT_TRUE(r.usage);
  EXPECT_EQ(r.usage->total(), r.usage->input + r.usage->output);
  EXPECT_GT(r.usage->reasoning, 0);
  EXPECT_FALSE(r.id.empty());
}

TEST(GeminiResponseDecoder, FunctionCallIsToolUse) {
  Response r = decodeOk(readGeminiFixture("vercel-ai--google-tool-call-gemini3.json"));
  ASSERT_EQ(r.content.size(), 1u);
  Block const& call = r.content[0];
  EXPECT_EQ(call.type, BlockType::ToolCall);
  EXPECT_EQ(call.name, "weather");
  EXPECT_EQ(canonicalJson(call.arguments), R"({"location":"San Francisco"})");
  EXPECT_TRUE(call.id.starts_with("call_")) << "Gemini gave no id: one is made up";
  EXPECT_EQ(call.signature.substr(0, 8), "Eqo+Cqc+");
  EXPECT_EQ(r.stop, StopReason::ToolUse) << "STOP with a functionCall is a tool call";
  ASSERT_TRUE(r.usage);
  EXPECT_EQ(r.usage->input, 29);
  EXPECT_EQ(r.usage->output, 15 + 1801) << "output includes thoughts";
  EXPECT_EQ(r.usage->reasoning, 1801);
  Response again = decodeOk(readGeminiFixture("vercel-ai--google-tool-call-gemini3.json"));
  EXPECT_EQ(again.content[0].id, call.id) << "made-up ids are stable";
}

TEST(GeminiResponseDecoder, CachedTokensAreInsideTheInput) {
  Response r = decodeOk(readGeminiFixture("pydantic-ai--cached_content_usage.i1.response.json"));
  ASSERT_TRUE(r.usage);
  EXPECT_EQ(r.usage->input, 3520);
  EXPECT_EQ(r.usage->cache_read, 3512);
  EXPECT_EQ(r.usage->output, 2 + 42);
  EXPECT_EQ(r.usage->total(), 3564) << "equals Gemini's own totalTokenCount";
}

TEST(GeminiResponseDecoder, StopReasons) {
  EXPECT_EQ(decodeOk(readGeminiFixture("pydantic-ai--finish_max_tokens.response.json")).stop,
            StopReason::MaxTokens);
  Response safety = decodeOk(readGeminiFixture("pydantic-ai--finish_safety.response.json"));
  EXPECT_EQ(safety.stop, StopReason::ContentFilter);
  EXPECT_TRUE(safety.content.empty()) << "content without parts";
  Response blocked = decodeOk(readGeminiFixture("pydantic-ai--vertex_prompt_blocked.response.json"));
  EXPECT_EQ(blocked.stop, StopReason::ContentFilter) << "a blocked prompt: 200, no candidates";
  EXPECT_TRUE(blocked.content.empty());
  EXPECT_FALSE(blocked.usage) << "only trafficType: no token counts";

  struct Row {
    std::string reason;
    StopReason stop;
  };
  for (auto const& row : std::vector<Row>{{"RECITATION", StopReason::ContentFilter},
                                          {"PROHIBITED_CONTENT", StopReason::ContentFilter},
                                          {"OTHER", StopReason::ContentFilter},
                                          {"MALFORMED_FUNCTION_CALL", StopReason::Other},
                                          {"SOMETHING_NEW", StopReason::Other}}) {
    std::string body = R"({"candidates":[{"content":{"parts":[{"text":"x"}],"role":"model"},"finishReason":")" +
                       row.reason + R"("}],"responseId":"r","modelVersion":"m"})";
    EXPECT_EQ(decodeOk(body).stop, row.stop) << row.reason;
  }
}

TEST(GeminiResponseDecoder, ZeroCompletionIsEstimated) {
  Response r = decodeOk(
      R"({"candidates":[{"content":{"parts":[{"text":"twelve chars"}],"role":"model"},"finishReason":"STOP"}],
          "usageMetadata":{"promptTokenCount":5,"totalTokenCount":5},"responseId":"r","modelVersion":"m"})");
  ASSERT_TRUE(r.usage);
  EXPECT_EQ(r.usage->output, 3);
  EXPECT_TRUE(r.usage->estimated);
}

TEST(GeminiResponseDecoder, ErrorsAndGarbage) {
  auto error = decodeResponse(readGeminiFixture("vercel-ai--google-429-retry-info.json"));
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().status(), 429);
  auto not_found = decodeResponse(readGeminiFixture("pydantic-ai--error_404_not_found.response.json"));
  ASSERT_FALSE(not_found.ok());
  EXPECT_EQ(not_found.error().status(), 404);
  auto garbage = decodeResponse("<html>bad gateway</html>");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().kind, ErrorKind::UpstreamProtocol);
}

TEST(GeminiResponseEncoder, AnswerFromAnotherProtocol) {
  Response r;
  r.id = "msg_01ABC";
  r.model = "claude-sonnet-4";
  Block thinking;
  thinking.type = BlockType::Thinking;
  thinking.text = "Let me think.";
  thinking.signature = "EqQBCkYIBxgC";
  thinking.signature_origin = Protocol::Anthropic;
  Block redacted;
  redacted.type = BlockType::RedactedThinking;
  redacted.signature = "opaque";
  r.content = {thinking, redacted, textBlock("Calling the tool."),
               callBlock("toolu_01", "lookup", "{\n  \"q\": \"x y\"\n}")};
  r.stop = StopReason::ToolUse;
  r.usage = Usage{.input = 100, .cache_read = 40, .cache_write = 10, .output = 30, .reasoning = 12};
  EncodeOptions options;
  options.model = "gemini-2.5-pro";
  std::string body = encodeValid(r, options);
  EXPECT_EQ(body,
            R"({"candidates":[{"content":{"parts":[{"text":"Let me think.","thought":true},)"
            R"({"text":"Calling the tool."},)"
            R"({"functionCall":{"name":"lookup","args":{"q":"x y"},"id":"toolu_01"}}],"role":"model"},)"
            R"("finishReason":"STOP","index":0}],)"
            R"("usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":18,"totalTokenCount":130,)"
            R"("cachedContentTokenCount":40,"thoughtsTokenCount":12},)"
            R"("modelVersion":"gemini-2.5-pro","responseId":"msg_01ABC"})")
      << "the Anthropic signature and the redacted block stay behind; usage converted back";
}

TEST(GeminiResponseEncoder, ForeignCallsGetTheDocumentedSignatureForGemini3) {
  Response r;
  r.id = "chatcmpl-1";
  r.content = {callBlock("call_1", "lookup", "{}"), callBlock("call_2", "fetch", "{}")};
  r.stop = StopReason::ToolUse;
  Block own = callBlock("call_3", "lookup", "{}");
  own.signature = "CpUBAdHtim";
  own.signature_origin = Protocol::Gemini;
  EncodeOptions options;
  options.model = "gemini-3-flash-preview";
  auto partsOf = [&](Response const& answer) {
    return json::parse(encodeValid(answer, options)).at("candidates").at(0).at("content").at("parts");
  };
  json::array parts = partsOf(r).as_array();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].at("thoughtSignature"), "skip_thought_signature_validator")
      << "without it the client's next turn, sent to Gemini 3 directly, fails";
  EXPECT_FALSE(parts[1].as_object().contains("thoughtSignature"));

  r.content = {own};
  parts = partsOf(r).as_array();
  EXPECT_EQ(parts[0].at("thoughtSignature"), "CpUBAdHtim") << "Gemini's own signature stays";
}

TEST(GeminiResponseEncoder, StopReasonTable) {
  struct Row {
    StopReason stop;
    std::string finish;
  };
  for (auto const& row : std::vector<Row>{{StopReason::EndTurn, "STOP"},
                                          {StopReason::StopSequence, "STOP"},
                                          {StopReason::ToolUse, "STOP"},
                                          {StopReason::PauseTurn, "STOP"},
                                          {StopReason::MaxTokens, "MAX_TOKENS"},
                                          {StopReason::ContextWindow, "MAX_TOKENS"},
                                          {StopReason::ContentFilter, "SAFETY"},
                                          {StopReason::Other, "OTHER"}}) {
    Response r;
    r.content = {textBlock("x")};
    r.stop = row.stop;
    EncodeOptions options;
    options.id = "fallback-id";
    options.model = "m";
    std::string body = encodeValid(r, options);
    json::value v = json::parse(body);
    EXPECT_EQ(v.at("candidates").at(0).at("finishReason").as_string(), row.finish);
    EXPECT_EQ(v.at("responseId").as_string(), "fallback-id") << "no upstream id: the given one";
  }
}

TEST(GeminiResponseEncoder, EmptyAndFilteredAnswers) {
  Response filtered;
  filtered.stop = StopReason::ContentFilter;
  std::string body = encodeValid(filtered);
  EXPECT_NE(body.find(R"("content":{},"finishReason":"SAFETY")"), std::string::npos)
      << "like Gemini's own filtered answer: content without parts\n" << body;
  EXPECT_NE(body.find(R"("promptTokenCount":0)"), std::string::npos)
      << "usage is always there, zero when the upstream gave none";
  Response empty;
  std::string empty_body = encodeValid(empty);
  EXPECT_NE(empty_body.find(R"("parts":[{"text":""}])"), std::string::npos) << empty_body;
}

TEST(GeminiResponseCodec, GeminiAnswersSurviveTheRoundTrip) {
  for (std::string name : {"pydantic-ai--thoughts_nonstream.response.json",
                           "vercel-ai--google-tool-call-gemini3.json",
                           "pydantic-ai--cached_content_usage.i1.response.json",
                           "pydantic-ai--finish_max_tokens.response.json",
                           "pydantic-ai--finish_safety.response.json"}) {
    SCOPED_TRACE(name);
    std::string original = readGeminiFixture(name);
    Response decoded = decodeOk(original);
    std::string encoded = encodeValid(decoded);
    auto before = validators::gemini::summarizeResponse(original);
    auto after = validators::gemini::summarizeResponse(encoded);
    EXPECT_EQ(after.text, before.text);
    EXPECT_EQ(after.thoughts, before.thoughts);
    EXPECT_EQ(after.signatures, before.signatures);
    EXPECT_EQ(after.finish_reason, before.finish_reason);
    EXPECT_EQ(after.id, before.id);
    EXPECT_EQ(after.model, before.model);
    ASSERT_EQ(after.tool_calls.size(), before.tool_calls.size());
    for (std::size_t i = 0; i < after.tool_calls.size(); ++i) {
      EXPECT_EQ(after.tool_calls[i].name, before.tool_calls[i].name);
      EXPECT_EQ(canonicalJson(after.tool_calls[i].arguments),
                canonicalJson(before.tool_calls[i].arguments));
      EXPECT_EQ(after.tool_calls[i].signature, before.tool_calls[i].signature);
    }
    EXPECT_EQ(after.prompt_tokens, before.prompt_tokens);
    EXPECT_EQ(after.candidates_tokens, before.candidates_tokens);
    EXPECT_EQ(after.thoughts_tokens, before.thoughts_tokens);
    EXPECT_EQ(after.cached_tokens, before.cached_tokens);
    EXPECT_EQ(after.total_tokens, before.total_tokens);
  }
}

}  // namespace
}  // namespace llmux::translate::gemini
