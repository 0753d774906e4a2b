// Byte-exact passthrough in every protocol, streamed and not: the upstream receives the client's
// body unchanged except the model value when model_map renames it (spliced in place), and the
// client receives exactly the bytes the upstream wrote.
#include <gtest/gtest.h>

#include "e2e/support/e2e_test.h"
#include "passthrough_support.h"

namespace llmux::e2e {
namespace {

using namespace passthrough;

constexpr std::string_view kModelSlot = "@MODEL@";
constexpr std::string_view kStreamSlot = "@STREAM@";

/// A request body written the way no serializer would: odd whitespace (tabs, CRLF, spaces around
/// colons), the model key after other keys, unicode escapes and raw UTF-8, a nested "model" key,
/// an escaped copy of the model key inside a string, and fields the gateway does not know.
/// `@MODEL@` marks the top-level model value (Gemini has none), `@STREAM@` the stream flag.
std::string oddBody(Protocol protocol) {
  switch (protocol) {
    case Protocol::OpenAiChat:
      return "{\r\n  \"messages\" : [ {\"role\": \"user\", \"content\": \"caf\\u00e9 "
             "\\ud83d\\ude00 "
             "d\xc3\xa9j\xc3\xa0 vu \xe2\x9c\x93 say \\\"model\\\":\\\"fast\\\" \\\\ done\"} ],\n"
             "  \"x_unknown\": {\"nested\": [1, 2.50, -0.0e+3, true, null, {}], \"model\": "
             "\"fast\"},\n\t\"model\"  :   \"@MODEL@\" ,\n  \"stream\":@STREAM@,"
             "\"temperature\": 0.70\n}";
    case Protocol::OpenAiResponses:
      return "{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":"
             "\"h\\u00e9llo \\u2713 \xe6\x97\xa5\xe6\x9c\xac\"}]}],\n \"metadata\" : {\"model\":"
             "\"smart\"},\"store\":false,\t\"model\":\"@MODEL@\",\"stream\": @STREAM@ ,"
             "\"x_trace\":[1E2,\"\\/path\\/\"]}";
    case Protocol::Anthropic:
      return "{ \"max_tokens\" : 64 ,\"system\":\"Be brief.\\n\",\"messages\":[{\"role\":\"user\","
             "\"content\":\"Bonjour \\u00e0 tous \\ud83c\\udf0d \xf0\x9f\x8c\x8d\"}],\r\n"
             "\"metadata\":{\"user_id\":\"u-1\"}, \"model\":\"@MODEL@\"  ,  \"stream\":@STREAM@ }";
    case Protocol::Gemini:
      return "{\"contents\": [ {\"role\":\"user\", \"parts\":[{\"text\":\"Hallo \\u00fc\\u00df "
             "\xc3\xa4\"}]} ],\n \"generationConfig\":{\"temperature\":0.5,\"candidateCount\":1},"
             "\t\"x_unknown\": {\"model\": \"flash\"} }";
  }
  return {};
}

std::string fill(std::string text, std::string_view slot, std::string_view value) {
  auto pos = text.find(slot);
  if (pos != std::string::npos) text.replace(pos, slot.size(), value);
  return text;
}

/// Sends one request in `protocol` for `model` and checks both directions byte for byte.
void expectBytePassthrough(std::uint16_t gateway_port, std::uint16_t mock_port, Protocol protocol,
                           std::string_view model, std::string_view upstream_model, bool stream) {
  SCOPED_TRACE(std::string(protocolName(protocol)) + (stream ? " streamed" : " not streamed") +
               ", model " + std::string(model));
  ASSERT_TRUE(clearJournal(mock_port).ok());
  std::string shape = fill(oddBody(protocol), kStreamSlot, stream ? "true" : "false");
  std::string sent = fill(shape, kModelSlot, model);
  std::string expected_upstream = fill(shape, kModelSlot, upstream_model);

  auto response = call(gateway_port, "POST", generationTarget(protocol, model, stream),
                       clientHeaders(protocol), sent);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;

  auto journal = waitForJournal(mock_port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u);
  JournalEntry const& entry = journal->front();
  EXPECT_EQ(entry.method, "POST");
  EXPECT_EQ(entry.path, upstreamPath(protocol, upstream_model, stream));
  EXPECT_EQ(entry.query, protocol == Protocol::Gemini && stream ? "alt=sse" : "");
  EXPECT_EQ(entry.body, expected_upstream);
  EXPECT_EQ(entry.headers.get("content-length"), std::to_string(expected_upstream.size()));
  EXPECT_EQ(entry.status, 200);
  EXPECT_EQ(entry.outcome, "complete");

  // The client gets exactly what the upstream wrote.
  ASSERT_FALSE(entry.response_body.empty());
  EXPECT_EQ(response->body, entry.response_body);
  EXPECT_EQ(response->body.size(), entry.response_body.size());

  if (!stream) {
    EXPECT_NE(response->header("content-type").find("application/json"), std::string_view::npos);
    EXPECT_TRUE(parseJson(response->body).has_value());
    return;
  }
  EXPECT_NE(response->header("content-type").find("text/event-stream"), std::string_view::npos);
  auto events = sseEvents(response->body);
  EXPECT_GE(events.size(), 3u);
  // Each protocol's framing arrived intact.
  switch (protocol) {
    case Protocol::OpenAiChat:
      EXPECT_TRUE(response->body.ends_with("data: [DONE]\n\n"));
      EXPECT_EQ(response->body.find("\r\n"), std::string::npos);
      break;
    case Protocol::OpenAiResponses:
      EXPECT_TRUE(response->body.starts_with("event: response.created\ndata: {"));
      EXPECT_NE(response->body.find("event: response.completed\n"), std::string::npos);
      break;
    case Protocol::Anthropic:
      EXPECT_TRUE(response->body.starts_with("event: message_start\ndata: {"));
      EXPECT_NE(response->body.find("\n\nevent: message_stop\ndata: {\"type\":\"message_stop\""),
                std::string::npos);
      EXPECT_TRUE(response->body.ends_with("}\n\n"));
      // The padding spaces Anthropic writes before some closing braces are relayed as they are.
      EXPECT_NE(response->body.find("       }\n\n"), std::string::npos);
      EXPECT_NE(response->body.find("{\"type\": \"ping\"}"), std::string::npos);
      break;
    case Protocol::Gemini:
      EXPECT_TRUE(response->body.starts_with("data: {"));
      EXPECT_TRUE(response->body.ends_with("\r\n\r\n"));
      EXPECT_EQ(response->body.find("}\n\n"), std::string::npos);
      break;
  }
}

void expectAllFour(std::uint16_t gateway_port, std::uint16_t mock_port, Protocol protocol) {
  Lane const& l = lane(protocol);
  for (bool stream : {false, true}) {
    expectBytePassthrough(gateway_port, mock_port, protocol, l.model, l.model, stream);
    expectBytePassthrough(gateway_port, mock_port, protocol, l.alias, l.alias_target, stream);
  }
}

TEST_F(E2eTest, ChatBodiesPassByteForByteBothWays) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  expectAllFour(gateway->port, mock->port, Protocol::OpenAiChat);
}

TEST_F(E2eTest, ResponsesBodiesPassByteForByteBothWays) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  expectAllFour(gateway->port, mock->port, Protocol::OpenAiResponses);
}

TEST_F(E2eTest, AnthropicBodiesPassByteForByteBothWays) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  expectAllFour(gateway->port, mock->port, Protocol::Anthropic);
}

TEST_F(E2eTest, GeminiBodiesPassByteForByteAndTheModelIsRenamedInThePath) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  expectAllFour(gateway->port, mock->port, Protocol::Gemini);
}

// A model name written with JSON escapes is the same name: it is matched against model_map and
// the whole value, escapes included, is replaced by the upstream name.
TEST_F(E2eTest, ModelWrittenWithEscapesIsRenamedAsAWhole) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& chat = lane(Protocol::OpenAiChat);  // alias "fast"

  std::string before = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}], \"model\" : ";
  std::string after = " , \"n\":1}";
  auto response = call(gateway->port, "POST", "/v1/chat/completions",
                       clientHeaders(Protocol::OpenAiChat), before + "\"f\\u0061st\"" + after);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->front().body, before + "\"" + chat.alias_target + "\"" + after);
  EXPECT_EQ(response->body, journal->front().response_body);
}

// Gemini model ids may come percent-encoded and with a redundant "models/" prefix; the upstream
// gets the mapped id in its path and the body untouched.
TEST_F(E2eTest, GeminiModelPathVariantsReachTheMappedModel) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& gem = lane(Protocol::Gemini);
  std::string body = minimalBody(Protocol::Gemini, "", false, "Ping");

  for (std::string target : {"/v1beta/models/models%2Fflash:generateContent",
                             "/v1beta/models/fl%61sh:generateContent"}) {
    SCOPED_TRACE(target);
    ASSERT_TRUE(clearJournal(mock->port).ok());
    auto response = call(gateway->port, "POST", target, clientHeaders(Protocol::Gemini), body);
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    auto journal = waitForJournal(mock->port, 1);
    ASSERT_TRUE(journal.ok()) << journal.error().message;
    EXPECT_EQ(journal->front().path, "/v1beta/models/" + gem.alias_target + ":generateContent");
    EXPECT_EQ(journal->front().body, body);
    EXPECT_EQ(response->body, journal->front().response_body);
  }
}

}  // namespace
}  // namespace llmux::e2e
