// The mock's Gemini output against recorded Google traffic (tests/data/fixtures/gemini): SSE
// framed with CRLF pairs and no event names, the JSON-array stream form, whole bodies; same chunk
// sequence, same JSON key structure, usageMetadata on every chunk.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "conformance_support.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::eventShapeDiff;
using testing::framingOf;
using testing::join;
using testing::kindSequence;
using testing::makeRequest;
using testing::parseJson;
using testing::parseJsonArray;
using testing::parseSse;
using testing::readFixture;
using testing::shapeDiff;
using testing::Tolerance;

constexpr auto kGemini = Protocol::Gemini;
constexpr std::string_view kFolder = "gemini";

MockReply ask(std::string_view model, std::string_view action, std::string body,
              std::string query = {}) {
  MockProvider mock;
  std::string path = "/v1beta/models/" + std::string(model) + ":" + std::string(action);
  return mock.handle(makeRequest(kGemini, path, std::move(body), std::move(query)));
}

template <class Edit>
std::string edited(std::string const& request_json, Edit&& edit) {
  json::value v = parseJson(request_json);
  edit(v.as_object());
  return json::serialize(v);
}

void expectNoDiff(std::vector<std::string> const& diffs) {
  EXPECT_TRUE(diffs.empty()) << join(diffs);
}

/// Gemini 3 thinks by default, so recordings of it report thoughtsTokenCount even when the
/// request did not ask for thoughts; the mock reports thoughts only when they were asked for.
Tolerance const kDefaultThinking{.optional = {"usageMetadata.thoughtsTokenCount"}};

TEST(GeminiConformance, TextSse) {
  MockReply reply =
      ask("gemini-3-pro-preview", "streamGenerateContent",
          readFixture(kFolder, "pydantic-ai--sse_function_call_thought_signature.i1.request.json"),
          "alt=sse");
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_EQ(reply.headers.get("content-type"), "text/event-stream");
  std::string recorded =
      readFixture(kFolder, "pydantic-ai--sse_function_call_thought_signature.i1.response.sse");
  EXPECT_EQ(framingOf(reply.body()), framingOf(recorded))
      << testing::describe(framingOf(reply.body()));
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  EXPECT_EQ(join(kindSequence(kGemini, mine)), join(kindSequence(kGemini, theirs)));
  expectNoDiff(eventShapeDiff(kGemini, mine, theirs, {}));
  // Google's own spacing: a space after ':' and none after ','.
  EXPECT_TRUE(
      reply.chunks.front().bytes.starts_with("data: {\"candidates\": [{\"content\": {\"parts\": "))
      << reply.chunks.front().bytes;
  // usageMetadata on every chunk, the last one complete.
  for (auto const& e : mine) EXPECT_TRUE(e.json.as_object().contains("usageMetadata"));
}

TEST(GeminiConformance, FunctionCallSse) {
  MockReply reply =
      ask("gemini-3-pro-preview", "streamGenerateContent",
          readFixture(kFolder, "pydantic-ai--sse_function_call_thought_signature.i0.request.json"),
          "alt=sse");
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded =
      readFixture(kFolder, "pydantic-ai--sse_function_call_thought_signature.i0.response.sse");
  EXPECT_EQ(framingOf(reply.body()), framingOf(recorded));
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  EXPECT_EQ(join(kindSequence(kGemini, mine)), join(kindSequence(kGemini, theirs)));
  EXPECT_EQ(join(kindSequence(kGemini, mine)), "functionCall/sig | text+finish");
  expectNoDiff(eventShapeDiff(kGemini, mine, theirs, kDefaultThinking));
}

TEST(GeminiConformance, ThoughtsSse) {
  // The recording offered a "dummy" tool the model did not use; the mock would call it, so it
  // gets the request without tools.
  std::string request = edited(readFixture(kFolder, "pydantic-ai--sse_thoughts.request.json"),
                               [](json::object& o) { o.erase("tools"); });
  MockReply reply = ask("gemini-2.5-pro", "streamGenerateContent", request, "alt=sse");
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded = readFixture(kFolder, "pydantic-ai--sse_thoughts.response.sse");
  EXPECT_EQ(framingOf(reply.body()), framingOf(recorded));
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  // Gemini 2.5 put the finish reason on the last text chunk; the mock sends the Gemini 3 form
  // (an empty text part carrying it), so the last kinds differ in that one respect.
  EXPECT_EQ(join(kindSequence(kGemini, mine)), "thought | text/sig | text | text+finish");
  EXPECT_EQ(join(kindSequence(kGemini, theirs)), "thought | text/sig | text | text+finish");
  expectNoDiff(eventShapeDiff(kGemini, mine, theirs, {}));
}

TEST(GeminiConformance, FunctionCallJsonArrayStream) {
  MockReply reply =
      ask("gemini-3-flash-preview", "streamGenerateContent",
          readFixture(kFolder, "llm-gemini--stream_json_array_function_call.i0.request.json"));
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_TRUE(reply.streaming);
  EXPECT_EQ(reply.headers.get("content-type"), "application/json; charset=UTF-8");
  std::string body = reply.body();
  std::string recorded =
      readFixture(kFolder, "llm-gemini--stream_json_array_function_call.i0.response.json");
  // Framing: "[{" ... "}\n,\r\n{" ... "}\n]", two-space indentation, one element per chunk.
  for (std::string_view marker : {"[{\n  \"candidates\": [", "}\n,\r\n{\n", "\n]"}) {
    EXPECT_NE(body.find(marker), std::string::npos) << marker;
    EXPECT_NE(recorded.find(marker), std::string::npos) << marker;
  }
  EXPECT_TRUE(reply.chunks.front().bytes.starts_with("[{"));
  EXPECT_TRUE(reply.chunks[1].bytes.starts_with("\n,\r\n{"));
  EXPECT_EQ(reply.chunks.back().bytes, "\n]");
  auto mine = parseJsonArray(body), theirs = parseJsonArray(recorded);
  EXPECT_EQ(join(kindSequence(kGemini, mine)), join(kindSequence(kGemini, theirs)));
  expectNoDiff(eventShapeDiff(kGemini, mine, theirs, kDefaultThinking));
  json::value const& args = mine[0]
                                .json.at("candidates")
                                .at(0)
                                .at("content")
                                .at("parts")
                                .at(0)
                                .at("functionCall")
                                .at("args");
  EXPECT_TRUE(args.at("x").is_int64());  // "integer" in the schema
  EXPECT_TRUE(args.at("y").is_int64());
}

TEST(GeminiConformance, TextJsonArrayStream) {
  MockReply reply =
      ask("gemini-3-flash-preview", "streamGenerateContent",
          readFixture(kFolder, "llm-gemini--stream_json_array_function_call.i1.request.json"));
  ASSERT_EQ(reply.status, 200) << reply.body();
  auto mine = parseJsonArray(reply.body());
  auto theirs = parseJsonArray(
      readFixture(kFolder, "llm-gemini--stream_json_array_function_call.i1.response.json"));
  EXPECT_EQ(join(kindSequence(kGemini, mine)), join(kindSequence(kGemini, theirs)));
  expectNoDiff(eventShapeDiff(kGemini, mine, theirs, {}));
}

TEST(GeminiConformance, TextBodyWithCachedContent) {
  MockReply reply = ask("gemini-2.5-flash", "generateContent",
                        readFixture(kFolder, "pydantic-ai--cached_content_usage.i1.request.json"));
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_FALSE(reply.streaming);
  json::value mine = parseJson(reply.body());
  json::value theirs =
      parseJson(readFixture(kFolder, "pydantic-ai--cached_content_usage.i1.response.json"));
  // Gemini 2.5 Flash thinks by default and newer answers carry serviceTier.
  expectNoDiff(
      shapeDiff(mine, theirs,
                {.optional = {"usageMetadata.thoughtsTokenCount", "usageMetadata.serviceTier"}}));
  json::value const& usage = mine.at("usageMetadata");
  EXPECT_GT(usage.at("cachedContentTokenCount").as_int64(), 0);
  EXPECT_LT(usage.at("cachedContentTokenCount").as_int64(),
            usage.at("promptTokenCount").as_int64());
}

TEST(GeminiConformance, FunctionCallBody) {
  std::string request =
      R"({"contents":[{"role":"user","parts":[{"text":"Weather in San Francisco?"}]}],
    "tools":[{"functionDeclarations":[{"name":"weather","description":"Get the weather",
      "parameters":{"type":"OBJECT","properties":{"location":{"type":"STRING"}},"required":["location"]}}]}]})";
  MockReply reply = ask("gemini-3-pro-preview", "generateContent", request);
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  expectNoDiff(
      shapeDiff(mine, parseJson(readFixture(kFolder, "vercel-ai--google-tool-call-gemini3.json")),
                kDefaultThinking));
}

TEST(GeminiConformance, ThoughtsBody) {
  std::string request = edited(readFixture(kFolder, "pydantic-ai--thoughts_nonstream.request.json"),
                               [](json::object& o) { o.erase("tools"); });
  MockReply reply = ask("gemini-3-pro-preview", "generateContent", request);
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  expectNoDiff(shapeDiff(
      mine, parseJson(readFixture(kFolder, "pydantic-ai--thoughts_nonstream.response.json")), {}));
  json::value const& usage = mine.at("usageMetadata");
  EXPECT_EQ(usage.at("totalTokenCount").as_int64(),
            usage.at("promptTokenCount").as_int64() + usage.at("candidatesTokenCount").as_int64() +
                usage.at("thoughtsTokenCount").as_int64());
}

TEST(GeminiConformance, ErrorBodiesHaveGoogleShape) {
  MockProvider mock;
  MockRequest request = makeRequest(kGemini, "/v1beta/models/gemini-2.5-flash:generateContent",
                                    R"({"contents":[{"parts":[{"text":"hi"}]}]})");
  request.headers.add("x-mock-fault", "429=34");
  MockReply reply = mock.handle(request);
  EXPECT_EQ(reply.status, 429);
  json::value mine = parseJson(reply.body());
  expectNoDiff(shapeDiff(mine,
                         parseJson(readFixture(kFolder, "vercel-ai--google-429-retry-info.json")),
                         {.optional = {"error.details[].violations[].quotaMetric"}}));
  EXPECT_EQ(mine.at("error").at("details").at(1).at("retryDelay"), "34s");

  reply =
      mock.handle(makeRequest(kGemini, "/v1beta/models/gemini-2.5-flash:generateContent", "{}"));
  EXPECT_EQ(reply.status, 400);
  expectNoDiff(shapeDiff(
      parseJson(reply.body()),
      parseJson(readFixture(kFolder, "pydantic-ai--error_404_not_found.response.json")), {}));
}

}  // namespace
}  // namespace llmux::mock
