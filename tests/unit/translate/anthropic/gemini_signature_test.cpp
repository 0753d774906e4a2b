// Gemini's thoughtSignature through an Anthropic client: every thinking block the client gets
// carries a non-empty signature (Anthropic's SDKs and Claude Code need one), wherever Gemini put
// its signature — on the thought part, on the function call or text after it, on a later chunk,
// or nowhere — and the client's next turn gives it back to Gemini on the part it came with.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "anthropic/support.h"
#include "gemini/gemini_test_support.h"
#include "translate/codec.h"
#include "validators/anthropic_validator.h"

namespace llmux::translate {
namespace {

namespace json = boost::json;

constexpr std::string_view kSig = "EpwICpkIAXLI2nx+lU6g/sWZaZHRYk=";
constexpr std::string_view kOwnSig = "CiIB0e2Kb6Syj1a961Ef+bWv4W5C8=";
constexpr std::string_view kUsage =
    R"("usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":5,"totalTokenCount":30,)"
    R"("thoughtsTokenCount":16},"modelVersion":"gemini-3-pro-preview","responseId":"r1")";

std::string thought(std::string_view text, std::string_view signature = {}) {
  std::string part = R"({"text":")" + std::string(text) + R"(","thought":true)";
  if (!signature.empty()) part += R"(,"thoughtSignature":")" + std::string(signature) + "\"";
  return part + "}";
}

std::string text(std::string_view value, std::string_view signature = {}) {
  std::string part = R"({"text":")" + std::string(value) + "\"";
  if (!signature.empty()) part += R"(,"thoughtSignature":")" + std::string(signature) + "\"";
  return part + "}";
}

std::string call(std::string_view signature = {}) {
  std::string part = R"({"functionCall":{"name":"get_weather","args":{"city":"Paris"}})";
  if (!signature.empty()) part += R"(,"thoughtSignature":")" + std::string(signature) + "\"";
  return part + "}";
}

/// A complete Gemini answer with these parts.
std::string geminiAnswer(std::string const& parts) {
  return R"({"candidates":[{"content":{"parts":[)" + parts +
         R"(],"role":"model"},"finishReason":"STOP","index":0}],)" + std::string(kUsage) + "}";
}

/// One Gemini SSE chunk with these parts (the last one of a stream says finishReason).
std::string chunk(std::string const& parts, bool last = false) {
  return R"(data: {"candidates":[{"content":{"parts":[)" + parts + R"(],"role":"model"})" +
         (last ? R"(,"finishReason":"STOP")" : "") + R"(,"index":0}],)" + std::string(kUsage) +
         "}\r\n\r\n";
}

std::string joined(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += p + "\n";
  return out;
}

/// The content an Anthropic client gets for a complete Gemini answer (checked by the validator).
json::array clientContent(std::string const& gemini_body) {
  auto response = decodeResponse(Protocol::Gemini, gemini_body);
  EXPECT_TRUE(response.ok()) << gemini_body;
  if (!response.ok()) return {};
  std::string body = encodeResponse(Protocol::Anthropic, *response, {});
  auto problems = validators::anthropic::validateResponse(body);
  EXPECT_TRUE(problems.empty()) << joined(problems) << body;
  return json::parse(body).at("content").as_array();
}

/// The Anthropic stream a client gets for a Gemini stream (checked by the validator).
std::string clientStream(std::string const& gemini_sse,
                         gemini::testing::Splitter const& split = gemini::testing::wholeBody) {
  auto events = gemini::testing::decodeGeminiStream(gemini_sse, split);
  std::string out = anthropic::testing::encodeStream(events, {});
  auto problems = validators::anthropic::validateStream(out);
  EXPECT_TRUE(problems.empty()) << joined(problems) << out;
  return out;
}

/// The content an Anthropic SDK builds from a stream.
json::array streamedContent(std::string const& anthropic_sse) {
  Response message =
      anthropic::testing::accumulate(anthropic::testing::decodeStream(anthropic_sse));
  return json::parse(encodeResponse(Protocol::Anthropic, message, {})).at("content").as_array();
}

std::vector<std::string> thinkingSignatures(json::array const& content) {
  std::vector<std::string> out;
  for (auto const& block : content) {
    if (block.at("type") == "thinking") out.emplace_back(block.at("signature").as_string());
  }
  return out;
}

std::string tagged(std::string_view rest) {
  return "llmux:gemini:" + std::string(rest);
}

/// The Anthropic request a client sends next: its first question, `content` as the assistant
/// turn, then the tool's result (when `content` calls one) or a new question.
std::string nextTurn(json::array const& content) {
  std::string call_id;
  for (auto const& block : content) {
    if (block.at("type") == "tool_use") call_id = block.at("id").as_string();
  }
  std::string last = call_id.empty() ? R"("And tomorrow?")"
                                     : R"([{"type":"tool_result","tool_use_id":")" + call_id +
                                           R"(","content":"sunny"}])";
  return R"({"model":"claude-x","max_tokens":4096,)"
         R"("thinking":{"type":"enabled","budget_tokens":2048},)"
         R"("tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[)"
         R"({"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":)" +
         json::serialize(content) + R"(},{"role":"user","content":)" + last + "}]}";
}

/// The parts of the model turn in the Gemini request that `anthropic_request` becomes.
json::array modelParts(std::string const& anthropic_request) {
  auto request = decodeRequest(Protocol::Anthropic, anthropic_request, "", false);
  EXPECT_TRUE(request.ok()) << (request.ok() ? "" : request.error().message);
  if (!request.ok()) return {};
  auto body = encodeRequest(Protocol::Gemini, *request, "gemini-3-pro-preview");
  EXPECT_TRUE(body.ok());
  if (!body.ok()) return {};
  json::value sent = json::parse(*body);
  for (auto const& content : sent.at("contents").as_array()) {
    if (content.at("role") == "model") return content.at("parts").as_array();
  }
  ADD_FAILURE() << "no model turn in " << *body;
  return {};
}

std::string signatureOf(json::value const& part) {
  auto const* signature = part.as_object().if_contains("thoughtSignature");
  return signature ? std::string(signature->as_string()) : std::string();
}

// --- Complete answers -----------------------------------------------------------------------

TEST(GeminiSignatureToAnthropic, OnTheThoughtPartItIsTheThinkingBlocksOwn) {
  auto content = clientContent(geminiAnswer(thought("Let me see.", kOwnSig) + "," + text("Hi")));
  EXPECT_EQ(thinkingSignatures(content), std::vector<std::string>{tagged(kOwnSig)});
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].at("thought"), true);
  EXPECT_EQ(signatureOf(parts[0]), kOwnSig) << "back on the thought part";
  EXPECT_EQ(signatureOf(parts[1]), "");
}

TEST(GeminiSignatureToAnthropic, OnTheFunctionCallAfterTheThoughtsItTravelsOnTheThinkingBlock) {
  auto content =
      clientContent(geminiAnswer(thought("I need the weather.") + "," + call(kSig) + "," + call()));
  EXPECT_EQ(thinkingSignatures(content), std::vector<std::string>{tagged("next:") + kSig.data()});
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(signatureOf(parts[0]), "") << "not on the thought part";
  EXPECT_TRUE(parts[1].as_object().contains("functionCall"));
  EXPECT_EQ(signatureOf(parts[1]), kSig) << "on the call Gemini signed, verbatim";
  EXPECT_EQ(signatureOf(parts[2]), "") << "the second call was not signed";
}

TEST(GeminiSignatureToAnthropic, OnTheTextAfterTheThoughtsItGoesBackOnTheText) {
  // As recorded: fx:gemini/pydantic-ai--thoughts_nonstream (gemini-3-pro-preview).
  auto content = clientContent(geminiAnswer(thought("Plan.") + "," + text("Cross safely.", kSig)));
  EXPECT_EQ(thinkingSignatures(content), std::vector<std::string>{tagged("next:") + kSig.data()});
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(signatureOf(parts[0]), "");
  EXPECT_EQ(parts[1].at("text"), "Cross safely.");
  EXPECT_EQ(signatureOf(parts[1]), kSig);
}

TEST(GeminiSignatureToAnthropic, ThoughtsNobodySignedGetTheTagAloneAndGoBackUnsigned) {
  auto content = clientContent(geminiAnswer(thought("Hmm.") + "," + call()));
  EXPECT_EQ(thinkingSignatures(content), std::vector<std::string>{tagged("")});
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(signatureOf(parts[0]), "") << "no signature made up for the thought";
  // Gemini 3 checks the first call of a turn: Google's documented value for unsigned calls.
  EXPECT_EQ(signatureOf(parts[1]), "skip_thought_signature_validator");
}

TEST(GeminiSignatureToAnthropic, OnlyTheLastOfSeveralThoughtsCarriesTheCallsSignature) {
  auto content =
      clientContent(geminiAnswer(thought("One.") + "," + thought("Two.") + "," + call(kSig)));
  EXPECT_EQ(thinkingSignatures(content),
            (std::vector<std::string>{tagged(""), tagged("next:") + kSig.data()}));
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(signatureOf(parts[0]), "");
  EXPECT_EQ(signatureOf(parts[1]), "");
  EXPECT_EQ(signatureOf(parts[2]), kSig);
}

// --- Streams --------------------------------------------------------------------------------

TEST(GeminiSignatureToAnthropicStream, OnTheThoughtPart) {
  std::string out =
      clientStream(chunk(thought("Let me", kOwnSig)) + chunk(text("Hi")) + chunk(text(""), true));
  EXPECT_EQ(thinkingSignatures(streamedContent(out)), std::vector<std::string>{tagged(kOwnSig)});
}

TEST(GeminiSignatureToAnthropicStream, OnALaterFunctionCallChunkBeforeTheThinkingBlockCloses) {
  // As recorded: fx:gemini/pydantic-ai--sse_function_call_thought_signature (a call in a chunk
  // of its own, signed), here after streamed thoughts.
  std::string gemini = chunk(thought("I need")) + chunk(thought(" the weather.")) +
                       chunk(call(kSig)) + chunk(text(""), true);
  std::string out = clientStream(gemini);
  std::string signature = R"("signature":")" + tagged("next:") + std::string(kSig) + "\"";
  auto at = out.find(signature);
  ASSERT_NE(at, std::string::npos) << out;
  // The signature_delta closes the thinking block, before the tool_use starts.
  EXPECT_LT(out.rfind("signature_delta", at), out.find("content_block_stop"));
  EXPECT_LT(at, out.find(R"("type":"tool_use")"));
  EXPECT_EQ(out, clientStream(gemini, gemini::testing::everyByte)) << "any split of the bytes";
  auto content = streamedContent(out);
  EXPECT_EQ(content[0].at("thinking"), "I need the weather.");
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(signatureOf(parts[0]), "");
  EXPECT_EQ(signatureOf(parts[1]), kSig);
}

TEST(GeminiSignatureToAnthropicStream, OnALaterThoughtChunk) {
  std::string out = clientStream(
      chunk(thought("Let me think")) +
      chunk(R"({"text":"","thought":true,"thoughtSignature":")" + std::string(kOwnSig) + "\"}") +
      chunk(text("Hi")) + chunk(text(""), true));
  auto content = streamedContent(out);
  EXPECT_EQ(thinkingSignatures(content), std::vector<std::string>{tagged(kOwnSig)});
  auto parts = modelParts(nextTurn(content));
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(signatureOf(parts[0]), kOwnSig);
}

TEST(GeminiSignatureToAnthropicStream, OnTheFirstTextChunkAfterTheThoughts) {
  // As recorded: fx:gemini/pydantic-ai--sse_thoughts (gemini-2.5-pro).
  std::string out = clientStream(chunk(thought("Plan.")) + chunk(text("Cross", kSig)) +
                                 chunk(text(" safely.")) + chunk(text(""), true));
  auto content = streamedContent(out);
  EXPECT_EQ(thinkingSignatures(content), std::vector<std::string>{tagged("next:") + kSig.data()});
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].at("text"), "Cross safely.");
  EXPECT_EQ(signatureOf(parts[1]), kSig);
}

TEST(GeminiSignatureToAnthropicStream, AbsentOrOnTheLastEmptyPart) {
  // No signature anywhere: the tag alone, read back as none.
  std::string none =
      clientStream(chunk(thought("Hmm.")) + chunk(text("Hi")) + chunk(text(""), true));
  EXPECT_EQ(thinkingSignatures(streamedContent(none)), std::vector<std::string>{tagged("")});
  // As recorded (fx:gemini/vercel-ai--google-reasoning): the signature on the last, empty part
  // has a thinking block of its own, as in non-translated answers.
  std::string last =
      clientStream(chunk(thought("Hmm.")) + chunk(text("Hi")) + chunk(text("", kSig), true));
  auto content = streamedContent(last);
  EXPECT_EQ(thinkingSignatures(content), (std::vector<std::string>{tagged(""), tagged(kSig)}));
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(signatureOf(parts[0]), "");
  EXPECT_EQ(parts[2].at("text"), "");
  EXPECT_EQ(signatureOf(parts[2]), kSig);
}

TEST(GeminiSignatureToAnthropicStream, AnErrorAfterTheThoughtsClosesTheWaitingBlockFirst) {
  std::vector<Event> events(5);
  events[0].type = EventType::MessageStart;
  events[1].type = EventType::BlockStart;
  events[1].block.type = BlockType::Thinking;
  events[1].block.signature_origin = Protocol::Gemini;
  events[2].type = EventType::ThinkingDelta;
  events[2].text = "Hmm.";
  events[3].type = EventType::BlockStop;
  events[4].type = EventType::Error;
  events[4].error_status = 503;
  events[4].text = "overloaded";
  std::string out = anthropic::testing::encodeStream(events, {});
  EXPECT_TRUE(validators::anthropic::validateStream(out).empty()) << out;
  auto signature = out.find(R"("signature":"llmux:gemini:")");
  ASSERT_NE(signature, std::string::npos) << out;
  EXPECT_LT(signature, out.find("event: content_block_stop"));
  EXPECT_LT(out.find("event: content_block_stop"), out.find("event: error"));
}

// --- Other upstreams never see it -----------------------------------------------------------

TEST(GeminiSignatureToAnthropic, IsDroppedForEveryOtherUpstream) {
  auto content = clientContent(geminiAnswer(thought("I need the weather.") + "," + call(kSig)));
  auto request = decodeRequest(Protocol::Anthropic, nextTurn(content), "", false);
  ASSERT_TRUE(request.ok()) << request.error().message;
  for (Protocol target : {Protocol::Anthropic, Protocol::OpenAiChat, Protocol::OpenAiResponses}) {
    auto body = encodeRequest(target, *request, "model-x");
    ASSERT_TRUE(body.ok()) << protocolName(target);
    EXPECT_EQ(body->find(kSig), std::string::npos) << protocolName(target) << ": " << *body;
    EXPECT_EQ(body->find("llmux:"), std::string::npos) << protocolName(target) << ": " << *body;
  }
}

TEST(GeminiSignatureToAnthropic, TheAnthropicDecoderPutsANextPartSignatureOnTheNextBlock) {
  std::string signature = tagged("next:") + std::string(kSig);
  auto request = decodeRequest(
      Protocol::Anthropic,
      R"({"model":"m","max_tokens":9,"messages":[{"role":"user","content":"q"},)"
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":")" +
          signature +
          R"("},{"type":"text","text":"b"}]},)"
          R"({"role":"user","content":"q2"},)"
          R"({"role":"assistant","content":[{"type":"thinking","thinking":"c","signature":")" +
          signature + R"("}]},{"role":"user","content":"q3"}]})",
      "", false);
  ASSERT_TRUE(request.ok()) << request.error().message;
  auto const& first = request->messages[1].blocks;
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].signature, "");
  EXPECT_EQ(first[0].signature_origin, Protocol::Gemini);
  EXPECT_EQ(first[1].signature, kSig);
  EXPECT_EQ(first[1].signature_origin, Protocol::Gemini);
  // Nothing after it: the signature stays where the client put it.
  auto const& second = request->messages[3].blocks;
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].signature, kSig);
  EXPECT_EQ(second[0].signature_origin, Protocol::Gemini);
}

// --- Reasoning no provider signs --------------------------------------------------------------

TEST(UnsignedThinkingToAnthropic, ChatReasoningGetsTheTagAloneAndNeverReachesAnotherUpstream) {
  std::string chat =
      R"({"id":"c1","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[)"
      R"({"index":0,"message":{"role":"assistant","reasoning_content":"Think.","content":"Hi"},)"
      R"("finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}})";
  auto response = decodeResponse(Protocol::OpenAiChat, chat);
  ASSERT_TRUE(response.ok());
  std::string body = encodeResponse(Protocol::Anthropic, *response, {});
  EXPECT_TRUE(validators::anthropic::validateResponse(body).empty()) << body;
  auto content = json::parse(body).at("content").as_array();
  EXPECT_EQ(thinkingSignatures(content), std::vector<std::string>{"llmux:openai-chat:"});

  std::string sse =
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Think."},"finish_reason":null}]})"
      "\n\n"
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]})"
      "\n\ndata: [DONE]\n\n";
  auto decoder = makeStreamDecoder(Protocol::OpenAiChat);
  std::vector<Event> events;
  decoder->feed(sse, events);
  decoder->finish(events);
  std::string out = anthropic::testing::encodeStream(events, {});
  EXPECT_TRUE(validators::anthropic::validateStream(out).empty()) << out;
  EXPECT_NE(out.find(R"("signature":"llmux:openai-chat:")"), std::string::npos) << out;

  auto request = decodeRequest(Protocol::Anthropic, nextTurn(content), "", false);
  ASSERT_TRUE(request.ok());
  auto anthropic = encodeRequest(Protocol::Anthropic, *request, "claude-x");
  ASSERT_TRUE(anthropic.ok());
  EXPECT_EQ(anthropic->find("llmux:"), std::string::npos) << *anthropic;
  auto parts = modelParts(nextTurn(content));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(signatureOf(parts[0]), "") << "no signature for Gemini either";
}

}  // namespace
}  // namespace llmux::translate
