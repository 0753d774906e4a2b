// Encoded requests are sent to the mock provider, which validates a Responses request as OpenAI
// does: a 400 from it is an encoder bug. Its answers also feed the stream decoder.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "mock/mock_provider.h"
#include "openai_responses/support.h"
#include "translate/openai_responses/codec.h"
#include "validators/openai_responses_validator.h"

namespace llmux::translate::openai_responses {
namespace {

mock::MockReply post(std::string body) {
  mock::MockProvider provider;
  mock::MockRequest request;
  request.method = "POST";
  request.path = "/v1/responses";
  request.body = std::move(body);
  request.headers.add("content-type", "application/json");
  request.headers.add("authorization", "Bearer sk-test");
  return provider.handle(request);
}

Request toolTurn(bool stream) {
  Request r;
  r.model = "gpt-5";
  r.stream = stream;
  r.system = {Block{.type = BlockType::Text, .text = "Use the tools."}};
  r.tools.push_back(ToolSpec{
      .name = "get_weather",
      .description = "Weather of a city",
      .parameters =
          R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})"});
  r.messages.push_back(
      Message{.role = Role::User, .blocks = {Block{.type = BlockType::Text, .text = "Paris?"}}});
  r.messages.push_back(Message{.role = Role::Assistant,
                               .blocks = {Block{.type = BlockType::Thinking,
                                                .text = "call it",
                                                .signature = "sig",
                                                .signature_origin = Protocol::Anthropic},
                                          Block{.type = BlockType::ToolCall,
                                                .id = "toolu_01",
                                                .name = "get_weather",
                                                .arguments = R"({"city":"Paris"})"}}});
  Block result{.type = BlockType::ToolResult, .id = "toolu_01", .name = "get_weather"};
  result.content = {Block{.type = BlockType::Text, .text = "18C"}};
  r.messages.push_back(Message{.role = Role::User, .blocks = {result}});
  r.reasoning = Reasoning{.budget_tokens = 2048, .include_thoughts = true};
  r.max_output_tokens = 4000;
  r.stop = {"STOP"};
  r.top_k = 5;
  return r;
}

TEST(ResponsesMockAcceptance, EncodedRequestsAreAccepted) {
  for (bool stream : {false, true}) {
    auto body = encodeRequest(toolTurn(stream), "gpt-5");
    ASSERT_TRUE(body.ok());
    mock::MockReply reply = post(*body);
    EXPECT_EQ(reply.status, 200) << *body << "\n" << reply.body();
    if (stream) {
      EXPECT_EQ(testing::joined(validators::openai_responses::validateStream(reply.body())), "");
    } else {
      EXPECT_EQ(testing::joined(validators::openai_responses::validateResponse(reply.body())), "");
    }
  }
}

TEST(ResponsesMockAcceptance, RecordedRequestsDecodedAndReencodedAreAccepted) {
  for (std::string name :
       {"pydantic-ai--responses_function_call_roundtrip.i0.request.json",
        "pydantic-ai--responses_function_call_roundtrip.i1.request.json",
        "pydantic-ai--responses_reasoning_effort.request.json",
        "pydantic-ai--responses_stream_function_call.i0.request.json",
        "pydantic-ai--responses_stream_function_call.i1.request.json",
        "pydantic-ai--responses_stream_reasoning_then_function_call.request.json"}) {
    auto decoded = decodeRequest(testing::readFixture("openai-responses", name));
    ASSERT_TRUE(decoded.ok()) << name << ": " << decoded.error().message;
    auto body = encodeRequest(*decoded, decoded->model);
    ASSERT_TRUE(body.ok()) << name;
    mock::MockReply reply = post(*body);
    EXPECT_EQ(reply.status, 200) << name << "\n" << *body << "\n" << reply.body();
  }
  auto capture = boost::json::parse(testing::readFixture("clients", "codex-cli.request.json"));
  auto codex = decodeRequest(boost::json::serialize(capture.at("body")));
  ASSERT_TRUE(codex.ok());
  auto body = encodeRequest(*codex, "gpt-5-codex");
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(post(*body).status, 200);
}

TEST(ResponsesMockAcceptance, TheMockRejectsWhatOpenAiRejects) {
  // The acceptance above means something: the same mock refuses a broken request.
  mock::MockReply reply = post(
      R"({"model":"gpt-5","input":[{"type":"function_call_output","call_id":"nope","output":"x"}]})");
  EXPECT_EQ(reply.status, 400);
  reply = post(R"({"model":"gpt-5","input":"x","temperature":-1})");
  EXPECT_EQ(reply.status, 400);
}

TEST(ResponsesMockAcceptance, MockStreamsDecodeAndReencodeValidly) {
  for (bool tools : {false, true}) {
    Request r = toolTurn(true);
    if (!tools) {
      r.messages.resize(1);
      r.tools.clear();
    }
    auto body = encodeRequest(r, "gpt-5");
    ASSERT_TRUE(body.ok());
    mock::MockReply reply = post(*body);
    ASSERT_EQ(reply.status, 200);
    std::vector<Event> events = testing::decodeStream(reply.body());
    testing::Assembled a = testing::assemble(events);
    EXPECT_TRUE(a.problems.empty()) << testing::describe(events);
    EXPECT_TRUE(a.stopped) << testing::describe(events);
    EXPECT_TRUE(a.response.usage.has_value());
    std::string again = testing::encodeStream(events, EncodeOptions{.model = "gpt-5"});
    auto problems = validators::openai_responses::validateStream(again);
    EXPECT_TRUE(problems.empty()) << testing::joined(problems) << again;
  }
}

}  // namespace
}  // namespace llmux::translate::openai_responses
