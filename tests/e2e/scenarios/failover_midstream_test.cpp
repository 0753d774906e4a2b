// After the first byte reached the client there is no retry: an upstream that breaks or stalls
// mid-stream ends the client's stream with its protocol's error event; a client that leaves
// cancels its upstream request at once, and that is not an upstream failure.
#include <gtest/gtest.h>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/sse_reader.h"
#include "protocol/sse_parser.h"

namespace llmux::e2e {
namespace {

using namespace failover;
namespace json = boost::json;

std::vector<protocol::SseEvent> parseEvents(std::string_view bytes) { return sseEventsOf(bytes); }

/// The `response.id` of a Responses stream's `response.created` event, "" if none.
std::string responseIdOf(std::vector<protocol::SseEvent> const& events) {
  for (auto const& e : events) {
    if (e.event != "response.created") continue;
    auto data = parseObject(e.data);
    if (data.ok()) return std::string(data->at("response").at("id").as_string());
  }
  return {};
}

/// Checks the events the gateway appended after the relayed part of a broken stream.
void expectStreamErrorEvents(Protocol protocol, std::vector<protocol::SseEvent> const& tail,
                             std::string const& response_id) {
  switch (protocol) {
    case Protocol::OpenAiChat: {
      ASSERT_EQ(tail.size(), 1u);
      EXPECT_EQ(tail[0].event, "");
      auto data = parseObject(tail[0].data);
      ASSERT_TRUE(data.ok()) << data.error().message;
      auto const& error = data->at("error").as_object();
      EXPECT_TRUE(error.at("message").is_string());
      EXPECT_TRUE(error.at("type").is_string());
      break;
    }
    case Protocol::OpenAiResponses: {
      ASSERT_EQ(tail.size(), 2u);
      EXPECT_EQ(tail[0].event, "error");
      auto error = parseObject(tail[0].data);
      ASSERT_TRUE(error.ok()) << error.error().message;
      EXPECT_EQ(error->at("type").as_string(), "error");
      EXPECT_EQ(tail[1].event, "response.failed");
      auto failed = parseObject(tail[1].data);
      ASSERT_TRUE(failed.ok()) << failed.error().message;
      EXPECT_EQ(failed->at("type").as_string(), "response.failed");
      auto const& response = failed->at("response").as_object();
      EXPECT_EQ(response.at("status").as_string(), "failed");
      EXPECT_TRUE(response.at("error").at("message").is_string());
      EXPECT_FALSE(response_id.empty());
      EXPECT_EQ(response.at("id").as_string(), response_id)
          << "the failed response is the one created";
      break;
    }
    case Protocol::Anthropic: {
      ASSERT_EQ(tail.size(), 1u);
      EXPECT_EQ(tail[0].event, "error");
      auto data = parseObject(tail[0].data);
      ASSERT_TRUE(data.ok()) << data.error().message;
      EXPECT_EQ(data->at("type").as_string(), "error");
      EXPECT_TRUE(data->at("error").at("type").is_string());
      EXPECT_TRUE(data->at("error").at("message").is_string());
      break;
    }
    case Protocol::Gemini: {
      ASSERT_EQ(tail.size(), 1u);
      auto data = parseObject(tail[0].data);
      ASSERT_TRUE(data.ok()) << data.error().message;
      auto const& error = data->at("error").as_object();
      EXPECT_TRUE(error.at("code").is_int64());
      EXPECT_TRUE(error.at("message").is_string());
      EXPECT_TRUE(error.at("status").is_string());
      break;
    }
  }
}

enum class Break { Cut, Stall };

class MidStream : public E2eTest,
                  public ::testing::WithParamInterface<std::tuple<Protocol, Break>> {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }
};

TEST_P(MidStream, EndsWithAnErrorEventAndNoRetry) {
  auto [protocol, how] = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto flaky = channel("flaky", protocol, mock->baseUrl(), {"k-flaky"}, 10);
  flaky.headers = {{"x-mock-fault", how == Break::Cut ? "cut" : "stall=5000"}};
  flaky.timeouts = TimeoutsSpec{.idle_ms = 300};
  auto spare = channel("spare", protocol, mock->baseUrl(), {"k-spare"}, 0);
  auto gateway = startGateway(gatewayConfig({flaky, spare}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(protocol, true);
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  HeaderList headers = call.headers;
  headers.add("X-Request-Id", "fo-midstream-1");
  ASSERT_TRUE(client->sendRequest("POST", call.target, headers, call.body).ok());
  auto head = client->readHead(Millis(3000));
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers.get("transfer-encoding"), "chunked");

  std::vector<BodyPiece> pieces;
  std::string body;
  for (;;) {
    auto piece = client->readBodyPiece(Millis(3000));
    ASSERT_TRUE(piece.ok()) << "the stream did not end cleanly: " << piece.error().message
                            << "\nreceived so far:\n"
                            << client->received();
    if (!*piece) break;
    body += (*piece)->data;
    pieces.push_back(std::move(**piece));
  }
  EXPECT_TRUE(client->bodyComplete());
  ASSERT_FALSE(pieces.empty());

  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u) << "retried after the first byte";
  auto const& entry = (*journal)[0];
  EXPECT_EQ(entry.upstreamKey(), "k-flaky");
  EXPECT_EQ(entry.body, call.body);
  EXPECT_EQ(entry.outcome, how == Break::Cut ? "cut" : "client_gone");

  // What the upstream sent is relayed unchanged, then the gateway's error event(s) follow.
  ASSERT_FALSE(entry.response_body.empty());
  ASSERT_TRUE(body.starts_with(entry.response_body)) << body;
  auto relayed = parseEvents(entry.response_body);
  EXPECT_FALSE(relayed.empty()) << "the client got the first event(s)";
  auto tail = parseEvents(std::string_view(body).substr(entry.response_body.size()));
  expectStreamErrorEvents(protocol, tail, responseIdOf(relayed));
  if (protocol == Protocol::OpenAiChat) {
    EXPECT_EQ(body.find("[DONE]"), std::string::npos);
  }
  if (how == Break::Stall) {
    // The relayed events were not held back until the stall ended.
    EXPECT_GE(millisBetween(pieces.front().arrived, pieces.back().arrived), 250);
  }

  auto line = waitForAccessLine(accessLog(), "fo-midstream-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 1);
  EXPECT_EQ(line->at("channel").as_string(), "flaky");
  // Nothing was retried, and the spare channel was never asked.
  auto after = fetchJournal(mock->port);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(keysOf(*after), std::vector<std::string>{"k-flaky"});
  auto text = fetchMetrics(gateway->port);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(metricValue(*text, "llmux_failovers_total", {}), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, MidStream,
                         ::testing::Combine(::testing::ValuesIn(kAllProtocols),
                                            ::testing::Values(Break::Cut, Break::Stall)),
                         [](auto const& info) {
                           return shortName(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) == Break::Cut ? "_cut" : "_stall");
                         });

// ---------------------------------------------------------------------------------------------
// The client leaves mid-stream.

class ClientLeaves : public E2eTest,
                     public ::testing::WithParamInterface<std::tuple<Protocol, CloseMode>> {};

TEST_P(ClientLeaves, CancelsTheUpstreamAtOnceWithoutCountingAFailure) {
  auto [protocol, mode] = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // 300 ms between chunks: longer than the 100 ms allowed, so the upstream connection must be
  // closed when the client leaves, not when the next chunk fails to reach it.
  auto paced = channel("paced", protocol, mock->baseUrl(), {"k-paced"}, 10);
  paced.headers = {{"x-mock-chunk-delay", "300"}};
  auto spare = channel("spare", protocol, mock->baseUrl(), {"k-spare"}, 0);
  auto gateway = startGateway(gatewayConfig({paced, spare}, temp().path() + "/access.log"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(protocol, true);
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client->sendRequest("POST", call.target, call.headers, call.body).ok());
  auto head = client->readHead(Millis(3000));
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->status, 200);
  SseReader sse(*client);
  auto first = sse.next(Millis(3000));
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->has_value());
  double closed_at = wallNowMs();
  client->closeNow(mode);

  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u);
  auto const& entry = (*journal)[0];
  EXPECT_EQ(entry.upstreamKey(), "k-paced");
  EXPECT_EQ(entry.outcome, "client_gone");
  ASSERT_TRUE(entry.client_gone_at_ms.has_value());
  double delay = *entry.client_gone_at_ms - closed_at;
  RecordProperty("upstream_closed_after_ms", std::to_string(delay));
  EXPECT_GE(delay, 0);
  EXPECT_LE(delay, 100) << "the upstream connection was closed " << delay
                        << " ms after the client left";

  // The gateway keeps serving.
  auto next = callGateway(gateway->port, clientCall(protocol, false));
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(next->status(), 200);
  auto after = waitForJournal(mock->port, 2);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(keysOf(*after), (std::vector<std::string>{"k-paced", "k-paced"}))
      << "a client leaving is not a reason to try another channel";

  EXPECT_EQ(waitForMetric(gateway->port, "llmux_upstream_attempts_total",
                          {{"channel", "paced"}, {"outcome", "cancelled"}}, 1),
            1);
  auto text = fetchMetrics(gateway->port);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(metricValue(*text, "llmux_failovers_total", {}), std::nullopt) << *text;
  EXPECT_EQ(metricValue(*text, "llmux_upstream_attempts_total", {{"channel", "spare"}}),
            std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(
    Protocols, ClientLeaves,
    ::testing::Values(std::make_tuple(Protocol::OpenAiChat, CloseMode::Graceful),
                      std::make_tuple(Protocol::OpenAiResponses, CloseMode::Reset),
                      std::make_tuple(Protocol::Anthropic, CloseMode::Graceful),
                      std::make_tuple(Protocol::Gemini, CloseMode::Reset)),
    [](auto const& info) {
      return shortName(std::get<0>(info.param)) +
             (std::get<1>(info.param) == CloseMode::Graceful ? "_close" : "_reset");
    });

}  // namespace
}  // namespace llmux::e2e
