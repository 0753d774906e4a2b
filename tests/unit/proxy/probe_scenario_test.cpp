// Health probe scenarios (proxy/probe_scenario.h): the request of each built-in scenario in each
// protocol, and the verdict on answers — real providers' answers from tests/data/fixtures, and
// the answers a broken upstream gives.
#include "proxy/probe_scenario.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <boost/json.hpp>

namespace llmux::proxy {
namespace {
namespace json = boost::json;
using config::BuiltinProbe;

ProbeScenario builtin(BuiltinProbe probe) {
  return ProbeScenario{std::string(config::builtinProbeName(probe)), probe, nullptr};
}

json::object bodyOf(ProbeCall const& call) {
  json::value parsed = json::parse(call.body);
  EXPECT_TRUE(parsed.is_object()) << call.body;
  return parsed.is_object() ? parsed.as_object() : json::object{};
}

std::string fixture(std::string const& name) {
  std::ifstream in(std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ProbeVerdict judge(BuiltinProbe probe, Protocol protocol, std::string_view body, int status = 200,
                   std::string_view content_type = "application/json") {
  return judgeProbe(builtin(probe), protocol, status, content_type, body);
}

TEST(ProbeCall, ChatInEveryProtocolGoesToItsOwnPathWithTheModel) {
  auto chat = probeCall(builtin(BuiltinProbe::Chat), Protocol::OpenAiChat, "m1");
  EXPECT_EQ(chat.target, "/v1/chat/completions");
  EXPECT_EQ(bodyOf(chat).at("model").as_string(), "m1");
  EXPECT_EQ(bodyOf(chat).at("messages").as_array().size(), 1u);
  EXPECT_FALSE(chat.stream);
  auto responses = probeCall(builtin(BuiltinProbe::Chat), Protocol::OpenAiResponses, "m1");
  EXPECT_EQ(responses.target, "/v1/responses");
  EXPECT_TRUE(bodyOf(responses).contains("input"));
  auto anthropic = probeCall(builtin(BuiltinProbe::Chat), Protocol::Anthropic, "m1");
  EXPECT_EQ(anthropic.target, "/v1/messages");
  EXPECT_EQ(anthropic.headers.get("anthropic-version"), "2023-06-01");
  EXPECT_GT(bodyOf(anthropic).at("max_tokens").as_int64(), 0);
  auto gemini = probeCall(builtin(BuiltinProbe::Chat), Protocol::Gemini, "gemini-x");
  EXPECT_EQ(gemini.target, "/v1beta/models/gemini-x:generateContent");
  EXPECT_FALSE(bodyOf(gemini).contains("model"));  // Gemini names it in the path
  EXPECT_TRUE(bodyOf(gemini).contains("contents"));
}

TEST(ProbeCall, StreamAsksForAStreamTheProtocolsWay) {
  for (Protocol protocol : {Protocol::OpenAiChat, Protocol::OpenAiResponses, Protocol::Anthropic}) {
    auto call = probeCall(builtin(BuiltinProbe::Stream), protocol, "m");
    EXPECT_TRUE(call.stream);
    EXPECT_TRUE(bodyOf(call).at("stream").as_bool()) << call.body;
  }
  auto gemini = probeCall(builtin(BuiltinProbe::Stream), Protocol::Gemini, "g");
  EXPECT_EQ(gemini.target, "/v1beta/models/g:streamGenerateContent?alt=sse");
}

TEST(ProbeCall, ToolsForceTheToolInEveryProtocol) {
  auto chat = bodyOf(probeCall(builtin(BuiltinProbe::Tools), Protocol::OpenAiChat, "m"));
  EXPECT_EQ(chat.at("tool_choice").at("function").at("name").as_string(), "get_weather");
  auto responses = bodyOf(probeCall(builtin(BuiltinProbe::Tools), Protocol::OpenAiResponses, "m"));
  EXPECT_EQ(responses.at("tool_choice").at("name").as_string(), "get_weather");
  auto anthropic = bodyOf(probeCall(builtin(BuiltinProbe::Tools), Protocol::Anthropic, "m"));
  EXPECT_EQ(anthropic.at("tool_choice").at("type").as_string(), "tool");
  EXPECT_TRUE(anthropic.at("tools").as_array()[0].as_object().contains("input_schema"));
  auto gemini = bodyOf(probeCall(builtin(BuiltinProbe::Tools), Protocol::Gemini, "g"));
  EXPECT_EQ(gemini.at("toolConfig").at("functionCallingConfig").at("mode").as_string(), "ANY");
}

TEST(ProbeCall, ThinkingAsksForVisibleReasoning) {
  EXPECT_EQ(bodyOf(probeCall(builtin(BuiltinProbe::Thinking), Protocol::OpenAiChat, "m"))
                .at("reasoning_effort").as_string(), "low");
  EXPECT_EQ(bodyOf(probeCall(builtin(BuiltinProbe::Thinking), Protocol::OpenAiResponses, "m"))
                .at("reasoning").at("summary").as_string(), "auto");
  auto anthropic = bodyOf(probeCall(builtin(BuiltinProbe::Thinking), Protocol::Anthropic, "m"));
  EXPECT_LT(anthropic.at("thinking").at("budget_tokens").as_int64(), anthropic.at("max_tokens").as_int64());
  EXPECT_TRUE(bodyOf(probeCall(builtin(BuiltinProbe::Thinking), Protocol::Gemini, "g"))
                  .at("generationConfig").at("thinkingConfig").at("includeThoughts").as_bool());
}

TEST(ProbeCall, MultiTurnCarriesAnEarlierAssistantTurn) {
  auto chat = bodyOf(probeCall(builtin(BuiltinProbe::MultiTurn), Protocol::OpenAiChat, "m"));
  auto const& messages = chat.at("messages").as_array();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[1].at("role").as_string(), "assistant");
  auto gemini = bodyOf(probeCall(builtin(BuiltinProbe::MultiTurn), Protocol::Gemini, "g"));
  EXPECT_EQ(gemini.at("contents").as_array()[1].at("role").as_string(), "model");
}

TEST(ProbeCall, MediaScenariosUseOpenAisMediaEndpoints) {
  auto image = probeCall(builtin(BuiltinProbe::Image), Protocol::Anthropic, "img");
  EXPECT_EQ(image.target, "/v1/images/generations");
  EXPECT_EQ(bodyOf(image).at("model").as_string(), "img");
  auto video = probeCall(builtin(BuiltinProbe::Video), Protocol::OpenAiChat, "sora-2");
  EXPECT_EQ(video.target, "/v1/videos");
  EXPECT_EQ(bodyOf(video).at("seconds").as_string(), "4");
  auto speech = probeCall(builtin(BuiltinProbe::Speech), Protocol::OpenAiChat, "tts-1");
  EXPECT_EQ(speech.target, "/v1/audio/speech");
  EXPECT_TRUE(bodyOf(speech).contains("voice"));
}

TEST(ProbeCall, ACustomScenarioSpeaksItsProtocolWithTheProbedModel) {
  config::CustomProbeScenario custom;
  custom.name = "mine";
  custom.protocol = Protocol::Anthropic;
  custom.body = R"({"max_tokens":16,"messages":[{"role":"user","content":"hi"}]})";
  ProbeScenario scenario{"mine", std::nullopt, &custom};
  auto call = probeCall(scenario, Protocol::OpenAiChat, "claude-x");
  EXPECT_EQ(call.target, "/v1/messages");
  EXPECT_EQ(bodyOf(call).at("model").as_string(), "claude-x");
  EXPECT_EQ(bodyOf(call).at("max_tokens").as_int64(), 16);
}

TEST(ProbeVerdict, RealProvidersAnswersPass) {
  EXPECT_TRUE(judge(BuiltinProbe::Chat, Protocol::OpenAiChat,
                    fixture("openai-chat/envoy-aigw--chat-reasoning.response.json")).pass);
  // OpenAI counts the reasoning it keeps to itself.
  EXPECT_TRUE(judge(BuiltinProbe::Thinking, Protocol::OpenAiChat,
                    fixture("openai-chat/envoy-aigw--chat-reasoning.response.json")).pass);
  EXPECT_TRUE(judge(BuiltinProbe::Stream, Protocol::OpenAiChat,
                    fixture("openai-chat/envoy-aigw--chat-streaming.response.sse")).pass);
  auto responses = fixture("openai-responses/pydantic-ai--responses_reasoning_effort.response.json");
  EXPECT_TRUE(judge(BuiltinProbe::Chat, Protocol::OpenAiResponses, responses).pass);
  EXPECT_TRUE(judge(BuiltinProbe::Thinking, Protocol::OpenAiResponses, responses).pass);
  EXPECT_TRUE(judge(BuiltinProbe::Chat, Protocol::Anthropic,
                    fixture("anthropic/vercel-ai--anthropic-text.json")).pass);
  EXPECT_TRUE(judge(BuiltinProbe::Thinking, Protocol::Anthropic,
                    fixture("anthropic/pydantic-ai--adaptive_thinking.response.json")).pass);
  EXPECT_TRUE(judge(BuiltinProbe::Thinking, Protocol::Gemini,
                    fixture("gemini/pydantic-ai--thoughts_nonstream.response.json")).pass);
  EXPECT_TRUE(judge(BuiltinProbe::Stream, Protocol::Gemini,
                    fixture("gemini/pydantic-ai--sse_text.response.sse")).pass);
}

TEST(ProbeVerdict, ToolsPassOnlyWhenTheForcedCallCameBack) {
  EXPECT_TRUE(judge(BuiltinProbe::Tools, Protocol::OpenAiChat,
                    R"({"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","type":"function",)"
                    R"("function":{"name":"get_weather","arguments":"{}"}}]}}]})").pass);
  EXPECT_TRUE(judge(BuiltinProbe::Tools, Protocol::OpenAiResponses,
                    R"({"output":[{"type":"function_call","name":"get_weather","arguments":"{}"}]})").pass);
  EXPECT_TRUE(judge(BuiltinProbe::Tools, Protocol::Anthropic,
                    R"({"content":[{"type":"tool_use","id":"t","name":"get_weather","input":{}}]})").pass);
  EXPECT_TRUE(judge(BuiltinProbe::Tools, Protocol::Gemini,
                    R"({"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{}}}]}}]})").pass);
  // A text answer instead: the relay dropped the tools.
  ProbeVerdict text = judge(BuiltinProbe::Tools, Protocol::Anthropic,
                            fixture("anthropic/vercel-ai--anthropic-text.json"));
  EXPECT_FALSE(text.pass);
  EXPECT_EQ(text.reason, "the forced tool call did not come back");
}

TEST(ProbeVerdict, BrokenAnswersFailWithAReason) {
  ProbeVerdict status = judge(BuiltinProbe::Chat, Protocol::OpenAiChat, R"({"error":{}})", 403);
  EXPECT_FALSE(status.pass);
  EXPECT_EQ(status.reason, "status 403");
  EXPECT_EQ(judge(BuiltinProbe::Chat, Protocol::OpenAiChat, "<html>").reason, "the answer is not a JSON object");
  EXPECT_EQ(judge(BuiltinProbe::Chat, Protocol::Gemini, R"({"candidates":[]})").reason, "no text in the answer");
  // A reasoning model that spent its whole budget thinking: a 200 with no text.
  EXPECT_EQ(judge(BuiltinProbe::Chat, Protocol::OpenAiChat,
                  fixture("openai-chat/envoy-aigw--chat-detailed-usage.response.json")).reason,
            "no text in the answer");
  // A thinking model asked to think that shows none.
  EXPECT_EQ(judge(BuiltinProbe::Thinking, Protocol::Anthropic, fixture("anthropic/vercel-ai--anthropic-text.json")).reason,
            "no reasoning content in the answer");
  // A stream of nothing but its preamble.
  EXPECT_EQ(judge(BuiltinProbe::Stream, Protocol::OpenAiChat,
                  "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: [DONE]\n\n")
                .reason,
            "the stream carried no content");
  EXPECT_EQ(judge(BuiltinProbe::Stream, Protocol::Anthropic, R"({"content":[]})").reason,
            "no server-sent events in the answer");
  EXPECT_EQ(judge(BuiltinProbe::Image, Protocol::OpenAiChat, R"({"data":[]})").reason, "no image in the answer's data");
  EXPECT_TRUE(judge(BuiltinProbe::Image, Protocol::OpenAiChat, R"({"data":[{"b64_json":"iVBOR"}]})").pass);
  EXPECT_EQ(judge(BuiltinProbe::Video, Protocol::OpenAiChat, R"({"object":"video"})").reason,
            "no video job id in the answer");
  EXPECT_TRUE(judge(BuiltinProbe::Video, Protocol::OpenAiChat, R"({"id":"video_1","status":"queued"})").pass);
  EXPECT_TRUE(judge(BuiltinProbe::Speech, Protocol::OpenAiChat, "ID3\x04", 200, "audio/mpeg").pass);
  EXPECT_EQ(judge(BuiltinProbe::Speech, Protocol::OpenAiChat, R"({"ok":1})", 200, "application/json").reason,
            "a JSON answer, not audio");
  EXPECT_EQ(judge(BuiltinProbe::Speech, Protocol::OpenAiChat, "", 200, "audio/mpeg").reason,
            "no audio bytes in the answer");
}

TEST(ProbeVerdict, ACustomScenarioPassesByItsOwnRule) {
  config::CustomProbeScenario custom;
  custom.name = "mine";
  custom.pointer = "/content/0/type";
  custom.equals = "text";
  custom.contains = "Hello";
  ProbeScenario scenario{"mine", std::nullopt, &custom};
  std::string answer = fixture("anthropic/vercel-ai--anthropic-text.json");
  EXPECT_TRUE(judgeProbe(scenario, Protocol::Anthropic, 200, "application/json", answer).pass);
  EXPECT_EQ(judgeProbe(scenario, Protocol::Anthropic, 500, "application/json", answer).reason, "status 500");
  custom.equals = "tool_use";
  EXPECT_EQ(judgeProbe(scenario, Protocol::Anthropic, 200, "", answer).reason,
            "the value at /content/0/type is not the expected one");
  custom.equals.reset();
  custom.pointer = "/choices/0";
  EXPECT_EQ(judgeProbe(scenario, Protocol::Anthropic, 200, "", answer).reason, "nothing at /choices/0 in the answer");
  custom.pointer.clear();
  custom.contains = "Goodbye";
  EXPECT_EQ(judgeProbe(scenario, Protocol::Anthropic, 200, "", answer).reason,
            "the answer does not contain the expected text");
  // An expected error status: a 418 is the pass.
  custom.contains.clear();
  custom.status_min = custom.status_max = 418;
  EXPECT_TRUE(judgeProbe(scenario, Protocol::Anthropic, 418, "", "{}").pass);
}

TEST(ProbeScenarioNames, BuiltInFirstThenCustom) {
  config::ProbeSettings settings;
  settings.custom.push_back({.name = "mine"});
  EXPECT_EQ(ProbeScenario::named("thinking", settings)->builtin, BuiltinProbe::Thinking);
  EXPECT_EQ(ProbeScenario::named("mine", settings)->custom, &settings.custom[0]);
  EXPECT_FALSE(ProbeScenario::named("nope", settings));
}

}  // namespace
}  // namespace llmux::proxy
