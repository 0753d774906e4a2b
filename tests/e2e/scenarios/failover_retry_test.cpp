// Failover before the first byte: which upstream failures move on to the next candidate (with the
// request body replayed byte for byte) and which are relayed to the client unchanged.
#include <gtest/gtest.h>

#include <cstdio>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/scripted_server.h"
#include "e2e/support/socket_io.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using Labels = std::vector<std::pair<std::string, std::string>>;

class FailoverRetry : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }
};

TEST_F(FailoverRetry, ConnectErrorMovesToTheNextChannel) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto dead = channel("dead", Protocol::OpenAiChat, loopbackUrl(freePort()), {"k-dead"}, 10);
  dead.timeouts = TimeoutsSpec{.connect_ms = 500};
  auto live = channel("live", Protocol::OpenAiChat, mock->baseUrl(), {"k-live"}, 0);
  auto gateway = startGateway(gatewayConfig({dead, live}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(Protocol::OpenAiChat, false);
  auto response = callGateway(gateway->port, call, "fo-connect-1");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;

  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u);
  EXPECT_EQ((*journal)[0].upstreamKey(), "k-live");
  EXPECT_EQ((*journal)[0].body, call.body);
  EXPECT_EQ(response->body, (*journal)[0].response_body);

  auto line = waitForAccessLine(accessLog(), "fo-connect-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 2);
  EXPECT_EQ(line->at("channel").as_string(), "live");
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].at("channel").as_string(), "dead");
  EXPECT_EQ(attempts[0].at("status").as_int64(), 0);
  EXPECT_EQ(attempts[0].at("outcome").as_string(), "failover:connect");
  EXPECT_EQ(attempts[1].at("channel").as_string(), "live");
  EXPECT_EQ(attempts[1].at("status").as_int64(), 200);
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_failovers_total", {{"reason", "connect"}}, 1), 1);
}

TEST_F(FailoverRetry, TimeoutBeforeTheFirstByteMovesToTheNextChannel) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto slow = channel("slow", Protocol::Anthropic, mock->baseUrl(), {"k-slow"}, 10);
  slow.headers = {{"x-mock-fault", "slow-first-byte=3000"}};
  slow.timeouts = TimeoutsSpec{.first_byte_ms = 300};
  auto live = channel("live", Protocol::Anthropic, mock->baseUrl(), {"k-live"}, 0);
  auto gateway = startGateway(gatewayConfig({slow, live}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(Protocol::Anthropic, false);
  MonoTime start = MonoClock::now();
  auto response = callGateway(gateway->port, call, "fo-timeout-1");
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  EXPECT_GE(elapsed, 300);
  EXPECT_LT(elapsed, 2000) << "the slow channel's answer was awaited";

  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-slow", "k-live"}));
  EXPECT_EQ((*journal)[0].outcome, "client_gone");
  EXPECT_EQ((*journal)[0].body, call.body);
  EXPECT_EQ((*journal)[1].body, call.body);
  EXPECT_EQ(response->body, (*journal)[1].response_body);

  auto line = waitForAccessLine(accessLog(), "fo-timeout-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 2);
  EXPECT_EQ(line->at("attempt_list").as_array()[0].at("outcome").as_string(),
            "failover:timeout_first_byte");
  EXPECT_EQ(
      waitForMetric(gateway->port, "llmux_failovers_total", {{"reason", "timeout_first_byte"}}, 1),
      1);
}

// ---------------------------------------------------------------------------------------------
// Retryable statuses: 408, 429, 500, 502, 503, 504, 529 → the next candidate, same body.

class RetryableStatus : public FailoverRetry,
                        public ::testing::WithParamInterface<std::tuple<int, Protocol>> {};

TEST_P(RetryableStatus, MovesToTheNextCandidateReplayingTheBody) {
  auto [status, protocol] = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto flaky = channel("flaky", protocol, mock->baseUrl(), {"k-flaky"}, 10);
  flaky.headers = {{"x-mock-fault", std::to_string(status)}};
  auto live = channel("live", protocol, mock->baseUrl(), {"k-live"}, 0);
  auto gateway = startGateway(gatewayConfig({flaky, live}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(protocol, false);
  auto response = callGateway(gateway->port, call, "fo-status-1");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;

  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  auto const& first = (*journal)[0];
  auto const& second = (*journal)[1];
  EXPECT_EQ(first.upstreamKey(), "k-flaky");
  EXPECT_EQ(first.status, status);
  EXPECT_EQ(second.upstreamKey(), "k-live");
  EXPECT_EQ(second.status, 200);
  // The same bytes both times, and the client's bytes exactly.
  EXPECT_EQ(first.body, call.body);
  EXPECT_EQ(second.body, call.body);
  EXPECT_EQ(first.path, second.path);
  EXPECT_EQ(first.query, second.query);
  EXPECT_EQ(response->body, second.response_body);

  auto line = waitForAccessLine(accessLog(), "fo-status-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 2);
  EXPECT_EQ(line->at("status").as_int64(), 200);
  auto reason = "status_" + std::to_string(status);
  EXPECT_EQ(line->at("attempt_list").as_array()[0].at("outcome").as_string(), "failover:" + reason);
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_failovers_total", {{"reason", reason}}, 1), 1);
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, RetryableStatus,
                         ::testing::Combine(::testing::Values(408, 429, 500, 502, 503, 504, 529),
                                            ::testing::ValuesIn(kAllProtocols)),
                         [](auto const& info) {
                           return std::to_string(std::get<0>(info.param)) + "_" +
                                  shortName(std::get<1>(info.param));
                         });

// ---------------------------------------------------------------------------------------------
// The replayed body: each candidate gets the client's bytes with only its own model name spliced
// in, and a chunked client body is replayed whole.

class ReplayPerCandidate : public FailoverRetry, public ::testing::WithParamInterface<Protocol> {};

TEST_P(ReplayPerCandidate, EachCandidateGetsItsOwnModelNameInTheSameBytes) {
  Protocol protocol = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto a = channel("a", protocol, mock->baseUrl(), {"k-a"}, 10);
  a.models = {};
  a.model_map = {{kModel, "upstream-model-a"}};
  a.headers = {{"x-mock-fault", "503"}};
  auto b = channel("b", protocol, mock->baseUrl(), {"k-b"}, 0);
  b.models = {};
  b.model_map = {{kModel, "up-b"}};
  auto gateway = startGateway(gatewayConfig({a, b}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(protocol, true);
  auto response = callGateway(gateway->port, call);
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-a", "k-b"}));
  auto spliced = [&](std::string const& model) {
    if (protocol == Protocol::Gemini) return call.body;  // the model is in the path
    std::string body = call.body;
    std::string quoted = std::string("\"") + kModel + "\"";
    auto pos = body.find(quoted);
    return body.replace(pos, quoted.size(), "\"" + model + "\"");
  };
  EXPECT_EQ((*journal)[0].body, spliced("upstream-model-a"));
  EXPECT_EQ((*journal)[1].body, spliced("up-b"));
  if (protocol == Protocol::Gemini) {
    EXPECT_EQ((*journal)[0].path, "/v1beta/models/upstream-model-a:streamGenerateContent");
    EXPECT_EQ((*journal)[1].path, "/v1beta/models/up-b:streamGenerateContent");
  }
  EXPECT_EQ(response->body, (*journal)[1].response_body);
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, ReplayPerCandidate, ::testing::ValuesIn(kAllProtocols),
                         [](auto const& info) { return shortName(info.param); });

TEST_F(FailoverRetry, ChunkedClientBodyIsReplayedWhole) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto a = channel("a", Protocol::OpenAiChat, mock->baseUrl(), {"k-a"}, 10);
  a.headers = {{"x-mock-fault", "502"}};
  auto b = channel("b", Protocol::OpenAiChat, mock->baseUrl(), {"k-b"}, 0);
  auto gateway = startGateway(gatewayConfig({a, b}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(Protocol::OpenAiChat, false);
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  HeaderList headers = call.headers;
  headers.add("Transfer-Encoding", "chunked");
  ASSERT_TRUE(client->sendRequest("POST", call.target, headers, {}).ok());
  // Three chunks with pauses, so the gateway reads the body in several pieces.
  std::size_t third = call.body.size() / 3;
  std::vector<std::string> parts = {call.body.substr(0, third), call.body.substr(third, third),
                                    call.body.substr(2 * third)};
  for (auto const& part : parts) {
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", part.size());
    ASSERT_TRUE(client->sendRaw(std::string(size) + part + "\r\n").ok());
    std::this_thread::sleep_for(Millis(20));
  }
  ASSERT_TRUE(client->sendRaw("0\r\n\r\n").ok());
  auto response = client->readResponse();
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;

  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  EXPECT_EQ((*journal)[0].status, 502);
  EXPECT_EQ((*journal)[0].body, call.body);
  EXPECT_EQ((*journal)[1].body, call.body);
  EXPECT_EQ(response->body, (*journal)[1].response_body);
}

// ---------------------------------------------------------------------------------------------
// 400, 404, 413, 422: the client's own problem; relayed unchanged, never retried.

class NonRetryableStatus : public FailoverRetry,
                           public ::testing::WithParamInterface<std::tuple<int, Protocol>> {};

TEST_P(NonRetryableStatus, IsRelayedUnchangedWithoutRetry) {
  auto [status, protocol] = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto picky = channel("picky", protocol, mock->baseUrl(), {"k-picky"}, 10);
  picky.headers = {{"x-mock-fault", std::to_string(status)}};
  auto other = channel("other", protocol, mock->baseUrl(), {"k-other"}, 0);
  auto gateway = startGateway(gatewayConfig({picky, other}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(protocol, false);
  auto response = callGateway(gateway->port, call, "fo-client-error-1");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), status) << response->body;
  EXPECT_FALSE(response->head.headers.has("x-llmux-attempts"));

  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_GE(journal->size(), 1u);
  EXPECT_EQ((*journal)[0].upstreamKey(), "k-picky");
  EXPECT_EQ((*journal)[0].status, status);
  EXPECT_EQ((*journal)[0].body, call.body);
  EXPECT_EQ(response->body, (*journal)[0].response_body) << "the upstream's error body, unchanged";
  auto message = errorMessageOf(protocol, status, response->body);
  EXPECT_TRUE(message.ok()) << message.error().message;

  auto line = waitForAccessLine(accessLog(), "fo-client-error-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 1);
  EXPECT_EQ(line->at("status").as_int64(), status);
  auto text = fetchMetrics(gateway->port);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(metricValue(*text, "llmux_failovers_total", {}), std::nullopt) << *text;
  // Nothing else reached the upstreams, even later.
  auto after = fetchJournal(mock->port);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(keysOf(*after), std::vector<std::string>{"k-picky"});
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, NonRetryableStatus,
                         ::testing::Combine(::testing::Values(400, 404, 413, 422),
                                            ::testing::ValuesIn(kAllProtocols)),
                         [](auto const& info) {
                           return std::to_string(std::get<0>(info.param)) + "_" +
                                  shortName(std::get<1>(info.param));
                         });

// ---------------------------------------------------------------------------------------------
// The commit point is the first body byte: a 200 head alone can still be failed over.

enum class AfterHead { Close, Stall };

class HeadWithoutBody : public FailoverRetry, public ::testing::WithParamInterface<AfterHead> {};

TEST_P(HeadWithoutBody, IsStillFailedOver) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto call = clientCall(Protocol::OpenAiChat, true);

  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
  if (GetParam() == AfterHead::Stall) upstream.pause(Millis(3000));
  upstream.close();
  upstream.start();

  auto broken =
      channel("broken", Protocol::OpenAiChat, loopbackUrl(upstream.port()), {"k-broken"}, 10);
  broken.timeouts = TimeoutsSpec{.idle_ms = 300};
  auto live = channel("live", Protocol::OpenAiChat, mock->baseUrl(), {"k-live"}, 0);
  auto gateway = startGateway(gatewayConfig({broken, live}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  MonoTime start = MonoClock::now();
  auto response = callGateway(gateway->port, call, "fo-head-only-1");
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200);
  EXPECT_LT(elapsed, 2500) << "the stalled upstream was awaited";

  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u);
  EXPECT_EQ((*journal)[0].upstreamKey(), "k-live");
  EXPECT_EQ((*journal)[0].body, call.body);
  EXPECT_EQ(response->body, (*journal)[0].response_body)
      << "the client got the second upstream's stream only";
  EXPECT_TRUE(upstream.received(0).ends_with("\r\n\r\n" + call.body));
  if (GetParam() == AfterHead::Close) {
    EXPECT_TRUE(upstream.finish(Millis(2000)).ok());
  }

  auto line = waitForAccessLine(accessLog(), "fo-head-only-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 2);
  auto const& first = line->at("attempt_list").as_array()[0];
  EXPECT_EQ(first.at("channel").as_string(), "broken");
  EXPECT_EQ(first.at("status").as_int64(), 200);
  EXPECT_TRUE(first.at("outcome").as_string().starts_with("failover:")) << first;
  if (GetParam() == AfterHead::Stall) {
    EXPECT_EQ(first.at("outcome").as_string(), "failover:timeout_first_byte");
  }
}

INSTANTIATE_TEST_SUITE_P(CloseOrStall, HeadWithoutBody,
                         ::testing::Values(AfterHead::Close, AfterHead::Stall),
                         [](auto const& info) {
                           return info.param == AfterHead::Close ? "Close" : "Stall";
                         });

}  // namespace
}  // namespace llmux::e2e
