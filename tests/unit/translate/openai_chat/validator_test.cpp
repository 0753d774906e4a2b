// The OpenAI Chat validator accepts what OpenAI itself sends and catches each way a translated
// stream or body can break a client.

#include <gtest/gtest.h>

#include "openai_chat/chat_test_support.h"
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

std::string head(std::string_view id = "chatcmpl-1") {
  return R"({"id":")" + std::string(id) +
         R"(","object":"chat.completion.chunk","created":1,"model":"m","choices":)";
}

std::string chunk(std::string_view delta, std::string_view finish = "null",
                  std::string_view id = "chatcmpl-1") {
  return "data: " + head(id) + R"([{"index":0,"delta":)" + std::string(delta) +
         R"(,"finish_reason":)" + std::string(finish) + "}]}\n\n";
}

const std::string kRole = chunk(R"({"role":"assistant","content":""})");
const std::string kStop = chunk("{}", R"("stop")");
const std::string kDone = "data: [DONE]\n\n";

TEST(ChatValidator, AcceptsRecordedOpenAiStreams) {
  for (std::string_view name : {"pydantic-ai--chat_stream_parallel_tool_calls.i0.response.sse",
                                "pydantic-ai--chat_stream_parallel_tool_calls.i1.response.sse",
                                "envoy-aigw--chat-streaming.response.sse",
                                "envoy-aigw--chat-streaming-detailed-usage.response.sse"}) {
    EXPECT_EQ(joined(v::validateStream(readChatFixture(name))), "") << name;
  }
}

TEST(ChatValidator, AcceptsRecordedOpenAiResponses) {
  for (std::string_view name : {"envoy-aigw--chat-parallel-tools.response.json",
                                "envoy-aigw--chat-reasoning.response.json",
                                "envoy-aigw--chat-image-to-text.response.json",
                                "envoy-aigw--chat-detailed-usage.response.json",
                                "envoy-aigw--chat-unknown-model.response.json"}) {
    EXPECT_EQ(joined(v::validateResponse(readChatFixture(name))), "") << name;
  }
}

TEST(ChatValidator, AcceptsAMinimalStream) {
  EXPECT_EQ(joined(v::validateStream(kRole + chunk(R"({"content":"x"})") + kStop + kDone)), "");
}

struct BrokenStream {
  std::string_view what;
  std::string bytes;
  std::string_view expected;  ///< a piece of the problem the validator must report
};

class ChatValidatorCatches : public ::testing::TestWithParam<BrokenStream> {};

TEST_P(ChatValidatorCatches, BrokenStream) {
  auto problems = joined(v::validateStream(GetParam().bytes));
  EXPECT_NE(problems.find(GetParam().expected), std::string::npos)
      << GetParam().what << "\nreported:\n" << problems;
}

std::string tool(std::string_view fragment) { return R"({"tool_calls":[)" + std::string(fragment) + "]}"; }

INSTANTIATE_TEST_SUITE_P(
    All, ChatValidatorCatches,
    ::testing::Values(
        BrokenStream{"no [DONE]", kRole + kStop, "does not end with data: [DONE]"},
        BrokenStream{"no finish", kRole + kDone, "[DONE] before any finish_reason"},
        BrokenStream{"no role", chunk(R"({"content":"x"})") + kStop + kDone, "role 'assistant'"},
        BrokenStream{"event lines", "event: message\n" + kRole + kStop + kDone, "unexpected line"},
        BrokenStream{"crlf", kRole + kStop + "data: [DONE]\r\n\r\n", "carriage return"},
        BrokenStream{"unterminated frame", kRole + kStop + "data: [DONE]\n", "blank line"},
        BrokenStream{"bad json", kRole + "data: {\"id\":\n\n" + kStop + kDone, "not a JSON object"},
        BrokenStream{"id changes", kRole + chunk("{}", R"("stop")", "chatcmpl-2") + kDone, "id changed"},
        BrokenStream{"data after done", kRole + kStop + kDone + kStop, "after the end"},
        BrokenStream{"content after finish", kRole + kStop + chunk(R"({"content":"x"})") + kDone,
                     "after finish_reason"},
        BrokenStream{"unknown finish", kRole + chunk("{}", R"("max_tokens")") + kDone, "unknown finish_reason"},
        BrokenStream{"tool index gap",
                     kRole + chunk(tool(R"({"index":1,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}})")) +
                         chunk("{}", R"("tool_calls")") + kDone,
                     "skips or repeats"},
        BrokenStream{"tool without id",
                     kRole + chunk(tool(R"({"index":0,"type":"function","function":{"name":"f","arguments":"{}"}})")) +
                         chunk("{}", R"("tool_calls")") + kDone,
                     "needs an id"},
        BrokenStream{"tool without name",
                     kRole + chunk(tool(R"({"index":0,"id":"c","type":"function","function":{"arguments":"{}"}})")) +
                         chunk("{}", R"("tool_calls")") + kDone,
                     "needs function.name"},
        BrokenStream{"name repeated",
                     kRole + chunk(tool(R"({"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{"}})")) +
                         chunk(tool(R"({"index":0,"function":{"name":"f","arguments":"}"}})")) +
                         chunk("{}", R"("tool_calls")") + kDone,
                     "repeated on a later fragment"},
        BrokenStream{"arguments not json",
                     kRole + chunk(tool(R"({"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":"}})")) +
                         chunk("{}", R"("tool_calls")") + kDone,
                     "do not reassemble"},
        BrokenStream{"stop with tool calls",
                     kRole + chunk(tool(R"({"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}})")) +
                         kStop + kDone,
                     "calls tools"},
        BrokenStream{"usage total wrong",
                     kRole + kStop + "data: " + head() +
                         R"([],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":4}})" + "\n\n" + kDone,
                     "total_tokens is not"},
        BrokenStream{"usage before finish",
                     kRole + "data: " + head() +
                         R"([],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}})" + "\n\n" + kStop + kDone,
                     "before finish_reason"},
        BrokenStream{"usage on a choice chunk",
                     kRole + "data: " + head() +
                         R"([{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}})" +
                         "\n\n" + kDone,
                     "usage on a chunk that has choices"},
        BrokenStream{"cached above prompt",
                     kRole + kStop + "data: " + head() +
                         R"([],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":5}}})" +
                         "\n\n" + kDone,
                     "cached_tokens"},
        BrokenStream{"done after error",
                     kRole + R"(data: {"error":{"message":"x","type":"server_error"}})" + "\n\n" + kDone,
                     "after the end"},
        BrokenStream{"error without message",
                     kRole + R"(data: {"error":{"type":"server_error"}})" + "\n\n",
                     "error.message"}));

TEST(ChatValidator, CatchesBrokenResponses) {
  struct Case {
    std::string body;
    std::string_view expected;
  };
  std::string ok_head = R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",)";
  std::vector<Case> cases = {
      {"[]", "not a JSON object"},
      {ok_head + R"("choices":[]})", "one choice"},
      {ok_head + R"("choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":null}]})",
       "finish_reason"},
      {ok_head + R"("choices":[{"index":0,"message":{"role":"user","content":"x"},"finish_reason":"stop"}]})",
       "role must be assistant"},
      {ok_head + R"("choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]})",
       "null without tool calls"},
      {ok_head + R"("choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"[1"}}]},"finish_reason":"tool_calls"}]})",
       "JSON object"},
      {ok_head + R"("choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}]})",
       "calls tools"},
      {ok_head + R"("choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":3}})",
       "total_tokens"},
      {R"({"error":{"message":"x"}})", "error.type"},
  };
  for (auto const& c : cases) {
    auto problems = joined(v::validateResponse(c.body));
    EXPECT_NE(problems.find(c.expected), std::string::npos) << c.body << "\nreported:\n" << problems;
  }
}

}  // namespace
}  // namespace llmux::translate::openai_chat
