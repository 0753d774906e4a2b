// Requests captured from real clients (Claude Code, Codex CLI, Gemini CLI) are accepted and
// answered with well-formed streams whose tool calls satisfy the clients' own tool schemas.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "conformance_support.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::join;
using testing::kindSequence;
using testing::parseJson;
using testing::parseSse;
using testing::readFixture;

struct Capture {
  MockRequest request;
  json::value body;
};

/// A captured request as the mock would receive it.
Capture load(std::string_view name) {
  json::value capture = parseJson(readFixture("clients", name));
  Capture out;
  MockRequest& r = out.request;
  r.method = capture.at("method").as_string();
  r.path = capture.at("path").as_string();
  for (auto const& q : capture.at("query").as_object()) {
    if (!r.query.empty()) r.query += "&";
    r.query += std::string(q.key()) + "=" + std::string(q.value().as_string());
  }
  for (auto const& h : capture.at("headers").as_object()) {
    if (h.key() != "content-length") r.headers.add(h.key(), h.value().as_string());
  }
  out.body = capture.at("body");
  r.body = json::serialize(out.body);
  return out;
}

/// The required property names of the tool called `name` in `tools` (schema under `schema_key`).
std::vector<std::string> requiredOf(json::array const& tools, std::string_view name,
                                    std::string_view schema_key) {
  std::vector<std::string> required;
  for (auto const& tool : tools) {
    json::value const* tool_name =
        tool.is_object() ? tool.as_object().if_contains("name") : nullptr;
    if (tool_name == nullptr || !tool_name->is_string() || tool_name->as_string() != name) continue;
    json::value const* schema = tool.as_object().if_contains(schema_key);
    if (schema == nullptr || !schema->as_object().contains("required")) continue;
    for (auto const& r : schema->at("required").as_array()) required.emplace_back(r.as_string());
  }
  return required;
}

void expectHasKeys(json::value const& args, std::vector<std::string> const& keys) {
  ASSERT_TRUE(args.is_object()) << json::serialize(args);
  for (auto const& key : keys) EXPECT_TRUE(args.as_object().contains(key)) << key;
}

TEST(MockClients, ClaudeCode) {
  Capture capture = load("claude-cli.request.json");
  MockProvider mock;
  MockReply reply = mock.handle(capture.request);
  ASSERT_EQ(reply.status, 200) << reply.body();
  auto events = parseSse(reply.body());
  // Adaptive thinking, then the preamble, then two parallel tool calls.
  EXPECT_EQ(
      join(kindSequence(Protocol::Anthropic, events)),
      "message_start | content_block_start:thinking | ping | content_block_delta:thinking_delta | "
      "content_block_delta:signature_delta | content_block_stop | content_block_start:text | "
      "content_block_delta:text_delta | content_block_stop | content_block_start:tool_use | "
      "content_block_delta:input_json_delta | content_block_stop | content_block_start:tool_use | "
      "content_block_delta:input_json_delta | content_block_stop | message_delta | message_stop");
  // Reassemble each tool input from its fragments and check it against the tool's schema.
  json::array const& tools = capture.body.at("tools").as_array();
  std::string name, input;
  int calls = 0;
  for (auto const& e : events) {
    std::string kind = testing::kindOf(Protocol::Anthropic, e);
    if (kind == "content_block_start:tool_use") {
      name = e.json.at("content_block").at("name").as_string();
      input.clear();
    } else if (kind == "content_block_delta:input_json_delta") {
      input += e.json.at("delta").at("partial_json").as_string();
    } else if (kind == "content_block_stop" && !name.empty()) {
      expectHasKeys(parseJson(input), requiredOf(tools, name, "input_schema"));
      name.clear();
      ++calls;
    }
  }
  EXPECT_EQ(calls, 2);
  // The cache_control markers Claude Code sends are reflected in the usage.
  EXPECT_GT(events.front().json.at("message").at("usage").at("cache_read_input_tokens").as_int64(),
            0);
}

TEST(MockClients, CodexCli) {
  Capture capture = load("codex-cli.request.json");
  MockProvider mock;
  MockReply reply = mock.handle(capture.request);
  ASSERT_EQ(reply.status, 200) << reply.body();
  auto events = parseSse(reply.body());
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().event, "response.completed");
  json::value const& response = events.back().json.at("response");
  json::array const& output = response.at("output").as_array();
  ASSERT_EQ(output.size(), 3u);  // reasoning, then two function calls
  EXPECT_EQ(output[0].at("type"), "reasoning");
  json::array const& tools = capture.body.at("tools").as_array();
  for (std::size_t i = 1; i < output.size(); ++i) {
    EXPECT_EQ(output[i].at("type"), "function_call");
    expectHasKeys(parseJson(output[i].at("arguments").as_string()),
                  requiredOf(tools, output[i].at("name").as_string(), "parameters"));
  }
  // Every tool is echoed, built-in ones included.
  EXPECT_EQ(response.at("tools").as_array().size(), tools.size());
}

TEST(MockClients, GeminiCli) {
  Capture capture = load("gemini-cli.request.json");
  MockProvider mock;
  MockReply reply = mock.handle(capture.request);
  ASSERT_EQ(reply.status, 200) << reply.body();
  auto events = parseSse(reply.body());
  EXPECT_EQ(join(kindSequence(Protocol::Gemini, events)),
            "thought | functionCall/sig | text+finish");
  json::array const& decls = capture.body.at("tools").at(0).at("functionDeclarations").as_array();
  int calls = 0;
  for (auto const& e : events) {
    for (auto const& part : e.json.at("candidates").at(0).at("content").at("parts").as_array()) {
      json::value const* call = part.as_object().if_contains("functionCall");
      if (call == nullptr) continue;
      ++calls;
      expectHasKeys(call->at("args"),
                    requiredOf(decls, call->at("name").as_string(), "parametersJsonSchema"));
    }
  }
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace llmux::mock
