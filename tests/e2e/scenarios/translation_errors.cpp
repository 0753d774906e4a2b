// Errors across protocols, end to end: an upstream of one protocol fails, the client of another
// gets the error in its own shape with the right status, and failover follows the rules (a rate
// limit or an overload moves on; a context overflow never does; a stream that fails before any
// content is failed over, one that fails after content ends with the client's own error event).
#include <gtest/gtest.h>

#include <regex>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/scripted_server.h"
#include "e2e/support/sse_reader.h"

namespace llmux::e2e {
namespace {

using namespace failover;
namespace json = boost::json;

class TranslatedErrors : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }

  /// A gateway whose channels are `channels`, all on the mock.
  Result<Server> gateway(std::vector<ChannelSpec> channels) {
    return startGateway(gatewayConfig(std::move(channels), accessLog()));
  }
};

ChannelSpec faulty(std::string name, Protocol protocol, std::string const& base_url,
                   std::string fault, int priority = 10) {
  ChannelSpec spec = channel(std::move(name), protocol, base_url, {"k-" + fault}, priority);
  spec.headers = {{"x-mock-fault", std::move(fault)}};
  return spec;
}

TEST_F(TranslatedErrors, ARateLimitKeepsItsRetryAfterInTheClientsShape) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = gateway({faulty("limited", Protocol::OpenAiChat, mock->baseUrl(), "429=7")});
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  auto response = callGateway(gw->port, clientCall(Protocol::Anthropic, false));
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 429);
  EXPECT_EQ(response->header("retry-after"), "7");
  auto doc = parseObject(response->body);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->at("type").as_string(), "error");
  EXPECT_EQ(doc->at("error").at("type").as_string(), "rate_limit_error");
}

TEST_F(TranslatedErrors, GeminisResourceExhaustedIsA429WithItsDelayAsRetryAfter) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = gateway({faulty("gemini-limited", Protocol::Gemini, mock->baseUrl(), "429=12")});
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  auto response = callGateway(gw->port, clientCall(Protocol::OpenAiChat, false));
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 429);
  EXPECT_EQ(response->header("retry-after"), "12") << "from Google's RetryInfo in the body";
  auto doc = parseObject(response->body);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_TRUE(doc->at("error").at("message").is_string());
}

TEST_F(TranslatedErrors, AnthropicOverloadIsA503ForOpenAiClientsAnd529ForAnthropicOnes) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = gateway({faulty("overloaded", Protocol::Anthropic, mock->baseUrl(), "529")});
  ASSERT_TRUE(gw.ok()) << gw.error().message;
  for (Protocol client : {Protocol::OpenAiChat, Protocol::OpenAiResponses, Protocol::Gemini}) {
    auto response = callGateway(gw->port, clientCall(client, false));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 503) << shortName(client);
    EXPECT_TRUE(errorMessageOf(client, 503, response->body).ok()) << response->body;
  }
  auto gw2 = gateway({faulty("overloaded", Protocol::OpenAiChat, mock->baseUrl(), "503")});
  ASSERT_TRUE(gw2.ok()) << gw2.error().message;
  auto response = callGateway(gw2->port, clientCall(Protocol::Anthropic, false));
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 529) << "Anthropic clients know overload as 529";
  EXPECT_TRUE(errorMessageOf(Protocol::Anthropic, 529, response->body).ok()) << response->body;
}

TEST_F(TranslatedErrors, AnOverloadFailsOverToAChannelOfAnotherProtocol) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = gateway({faulty("primary", Protocol::Anthropic, mock->baseUrl(), "529", 10),
                     channel("spare", Protocol::Gemini, mock->baseUrl(), {"k-spare"}, 0)});
  ASSERT_TRUE(gw.ok()) << gw.error().message;
  auto response = callGateway(gw->port, clientCall(Protocol::OpenAiChat, false), "tr-failover");
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto doc = parseObject(response->body);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->at("object").as_string(), "chat.completion");
  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_NE((*journal)[0].path.find("/v1/messages"), std::string::npos);
  EXPECT_NE((*journal)[1].path.find(":generateContent"), std::string::npos);
  auto line = waitForAccessLine(accessLog(), "tr-failover");
  ASSERT_TRUE(line.ok()) << line.error().message;
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].at("outcome").as_string(), "failover:status_529");
  EXPECT_EQ(attempts[1].at("upstream_protocol").as_string(), "gemini");
  EXPECT_EQ(attempts[1].at("translated").as_bool(), true);
}

class ContextOverflow : public TranslatedErrors,
                        public ::testing::WithParamInterface<std::tuple<Protocol, Protocol, bool>> {};

// Whatever the upstream's wording, the client gets a 400 in its own shape that its SDK and agent
// recognise, and the spare channel is never tried.
TEST_P(ContextOverflow, IsA400InTheClientsShapeAndNeverRetried) {
  auto [client, upstream, stream] = GetParam();
  // The window the mock's overflow message states (docs/mock-provider.md); 0: it states none.
  std::int64_t limit = upstream == Protocol::OpenAiChat ? 128000
                       : upstream == Protocol::Anthropic ? 200000
                       : upstream == Protocol::Gemini    ? 1048576
                                                         : 0;
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = gateway({faulty("small", upstream, mock->baseUrl(), "context-overflow", 10),
                     channel("spare", upstream, mock->baseUrl(), {"k-spare"}, 0)});
  ASSERT_TRUE(gw.ok()) << gw.error().message;
  auto response = callGateway(gw->port, clientCall(client, stream));
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 400) << response->body;
  auto message = errorMessageOf(client, 400, response->body);
  ASSERT_TRUE(message.ok()) << message.error().message << "\n" << response->body;
  auto doc = parseObject(response->body);
  ASSERT_TRUE(doc.ok());
  switch (client) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses:
      EXPECT_EQ(doc->at("error").at("code").as_string(), "context_length_exceeded");
      break;
    case Protocol::Anthropic:
      EXPECT_NE(message->find("prompt is too long"), std::string::npos) << *message;
      if (limit != 0) {
        // The counts the upstream stated, in the words Claude Code reads.
        std::smatch m;
        std::regex sentence(R"(prompt is too long: (\d+) tokens > (\d+) maximum)");
        ASSERT_TRUE(std::regex_match(*message, m, sentence)) << *message;
        EXPECT_GT(std::stoll(m[1]), limit);
        EXPECT_EQ(std::stoll(m[2]), limit);
      }
      break;
    case Protocol::Gemini: {
      EXPECT_EQ(doc->at("error").at("status").as_string(), "INVALID_ARGUMENT");
      EXPECT_EQ(doc->at("error").at("code").as_int64(), 400);
      // Gemini's own sentence, with the counts the upstream stated and none made up.
      std::smatch m;
      ASSERT_TRUE(std::regex_match(
          *message, m,
          std::regex(R"(The input token count(?: \((\d+)\))? exceeds the maximum number of )"
                     R"(tokens allowed(?: \((\d+)\))?\.)")))
          << *message;
      EXPECT_EQ(m[1].matched, limit != 0) << *message;
      EXPECT_EQ(m[2].matched, limit != 0) << *message;
      if (limit != 0) {
        EXPECT_GT(std::stoll(m[1]), limit);
        EXPECT_EQ(std::stoll(m[2]), limit);
      }
      break;
    }
  }
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  journal = fetchJournal(mock->port);  // the gateway has answered: nothing more will come
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->size(), 1u) << "a context overflow is never retried elsewhere";
}

std::string overflowName(::testing::TestParamInfo<std::tuple<Protocol, Protocol, bool>> const& info) {
  auto [client, upstream, stream] = info.param;
  return shortName(client) + "_from_" + shortName(upstream) + (stream ? "_stream" : "");
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, ContextOverflow,
    ::testing::Values(std::tuple{Protocol::Anthropic, Protocol::OpenAiChat, false},
                      std::tuple{Protocol::OpenAiChat, Protocol::Anthropic, true},
                      std::tuple{Protocol::Gemini, Protocol::OpenAiResponses, false},
                      std::tuple{Protocol::Gemini, Protocol::OpenAiChat, false},
                      std::tuple{Protocol::Gemini, Protocol::Anthropic, true},
                      // The Responses API reports it inside a 200 stream, before any content.
                      std::tuple{Protocol::Anthropic, Protocol::OpenAiResponses, true},
                      std::tuple{Protocol::OpenAiResponses, Protocol::Gemini, true}),
    overflowName);

// An Anthropic stream that reports `overloaded_error` right after message_start, before any
// content: the next candidate (of another protocol) serves the request and the client never sees
// the failure.
class StreamFailsBeforeContent : public TranslatedErrors,
                                 public ::testing::WithParamInterface<Protocol> {};

TEST_P(StreamFailsBeforeContent, IsFailedOver) {
  Protocol client = GetParam();
  std::string events =
      "event: message_start\n"
      "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_x\",\"type\":\"message\","
      "\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,"
      "\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
      "event: error\n"
      "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").send(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + events);
  upstream.close().start();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  ChannelSpec flaky = channel("flaky", Protocol::Anthropic, loopbackUrl(upstream.port()), {"k1"}, 10);
  ChannelSpec spare = channel("spare", Protocol::OpenAiChat, mock->baseUrl(), {"k2"}, 0);
  auto gw = gateway({flaky, spare});
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  auto response = callGateway(gw->port, clientCall(client, true), "tr-stream");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  EXPECT_EQ(response->body.find("Overloaded"), std::string::npos) << response->body;
  EXPECT_NE(response->body.find("You said"), std::string::npos) << "served by the spare";
  ASSERT_TRUE(upstream.finish(Millis(3000)).ok());
  auto line = waitForAccessLine(accessLog(), "tr-stream");
  ASSERT_TRUE(line.ok()) << line.error().message;
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 2u) << *line;
  EXPECT_EQ(attempts[0].at("outcome").as_string(), "failover:status_529");
  EXPECT_EQ(attempts[1].at("outcome").as_string(), "ok");
}

// Anthropic itself (passthrough: its bytes would go out unchanged) and a translated client.
INSTANTIATE_TEST_SUITE_P(Clients, StreamFailsBeforeContent,
                         ::testing::Values(Protocol::Anthropic, Protocol::OpenAiResponses),
                         [](auto const& info) { return shortName(info.param); });

// After content, the stream belongs to the client: a cut upstream ends it with the client's own
// protocol's error event, never a retry.
TEST_F(TranslatedErrors, AStreamCutAfterContentEndsWithTheClientsErrorEvent) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto cut = faulty("cut", Protocol::Anthropic, mock->baseUrl(), "cut", 10);
  auto gw = gateway({cut, channel("spare", Protocol::Anthropic, mock->baseUrl(), {"k2"}, 0)});
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  auto response = callGateway(gw->port, clientCall(Protocol::OpenAiChat, true));
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200);
  auto events = sseEventsOf(response->body);
  ASSERT_GE(events.size(), 2u) << response->body;
  bool content = false;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    content = content || events[i].data.find("\"content\":\"") != std::string::npos;
  }
  EXPECT_TRUE(content) << "the content before the cut reached the client";
  auto last = parseObject(events.back().data);
  ASSERT_TRUE(last.ok()) << events.back().data;
  EXPECT_TRUE(last->contains("error")) << "an OpenAI error chunk ends the stream";
  EXPECT_EQ(response->body.find("[DONE]"), std::string::npos);
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->size(), 1u) << "never retried after content";
}

}  // namespace
}  // namespace llmux::e2e
