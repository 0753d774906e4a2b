// Every candidate failed: the client gets the last upstream error, or 502 (connect) / 504
// (timeout) in its protocol's shape, with the number of attempts.
#include <gtest/gtest.h>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/socket_io.h"

namespace llmux::e2e {
namespace {

using namespace failover;

class Exhausted : public E2eTest, public ::testing::WithParamInterface<Protocol> {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }
};

TEST_P(Exhausted, AllFailingWithAStatusGiveTheLastUpstreamError) {
  Protocol protocol = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto a = channel("a", protocol, mock->baseUrl(), {"k-a"}, 10);
  a.headers = {{"x-mock-fault", "503"}};
  auto b = channel("b", protocol, mock->baseUrl(), {"k-b"}, 0);
  b.headers = {{"x-mock-fault", "503"}};
  auto gateway = startGateway(gatewayConfig({a, b}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(protocol, false);

  auto response = callGateway(gateway->port, call, "fo-all-503");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 503) << response->body;
  auto message = errorMessageOf(protocol, 503, response->body);
  EXPECT_TRUE(message.ok()) << message.error().message;

  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-a", "k-b"}));
  EXPECT_EQ((*journal)[0].body, call.body);
  EXPECT_EQ((*journal)[1].body, call.body);
  EXPECT_EQ(response->body, (*journal)[1].response_body) << "the last upstream's own answer";
  EXPECT_EQ(response->header("x-llmux-attempts"), "2")
      << "the number of attempts is announced on every exhausted request";

  auto line = waitForAccessLine(accessLog(), "fo-all-503");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 2);
  EXPECT_EQ(line->at("status").as_int64(), 503);
}

TEST_P(Exhausted, AllConnectErrorsGive502) {
  Protocol protocol = GetParam();
  // Two unreachable channels, the first with two keys: an unreachable channel is skipped as a
  // whole, so there are two attempts, not three.
  auto a = channel("a", protocol, loopbackUrl(freePort()), {"k-a1", "k-a2"}, 10);
  auto b = channel("b", protocol, loopbackUrl(freePort()), {"k-b"}, 0);
  auto gateway = startGateway(gatewayConfig({a, b}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto response = callGateway(gateway->port, clientCall(protocol, false), "fo-all-connect");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 502) << response->body;
  EXPECT_EQ(response->header("x-llmux-attempts"), "2");
  auto message = errorMessageOf(protocol, 502, response->body);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_NE(message->find("2 upstream attempts"), std::string::npos) << *message;
  EXPECT_EQ(response->header("x-request-id"), "fo-all-connect");

  auto line = waitForAccessLine(accessLog(), "fo-all-connect");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 2);
  EXPECT_EQ(line->at("status").as_int64(), 502);
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].at("channel").as_string(), "a");
  EXPECT_EQ(attempts[1].at("channel").as_string(), "b");
}

TEST_P(Exhausted, AllTimeoutsGive504) {
  Protocol protocol = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // A timed-out channel is skipped as a whole: its second key is not tried.
  auto a = channel("a", protocol, mock->baseUrl(), {"k-a", "k-a2"}, 10);
  auto b = channel("b", protocol, mock->baseUrl(), {"k-b"}, 0);
  for (auto* c : {&a, &b}) {
    c->headers = {{"x-mock-fault", "slow-first-byte=3000"}};
    c->timeouts = TimeoutsSpec{.first_byte_ms = 200};
  }
  auto gateway = startGateway(gatewayConfig({a, b}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  MonoTime start = MonoClock::now();
  auto response = callGateway(gateway->port, clientCall(protocol, false), "fo-all-timeout");
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 504) << response->body;
  EXPECT_GE(elapsed, 400);
  EXPECT_LT(elapsed, 2000);
  EXPECT_EQ(response->header("x-llmux-attempts"), "2");
  auto message = errorMessageOf(protocol, 504, response->body);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_NE(message->find("2 upstream attempts"), std::string::npos) << *message;
  if (protocol == Protocol::Gemini) {
    auto doc = parseObject(response->body);
    ASSERT_TRUE(doc.ok());
    EXPECT_EQ(doc->at("error").at("status").as_string(), "DEADLINE_EXCEEDED");
  }
  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-a", "k-b"}));
  EXPECT_EQ(
      waitForMetric(gateway->port, "llmux_failovers_total", {{"reason", "timeout_first_byte"}}, 1),
      1);
}

TEST_P(Exhausted, TheLastFailureDecides) {
  Protocol protocol = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // A 500 first, then nothing listening: the answer is the connect failure's 502, not the 500.
  auto a = channel("a", protocol, mock->baseUrl(), {"k-a"}, 10);
  a.headers = {{"x-mock-fault", "500"}};
  auto b = channel("b", protocol, loopbackUrl(freePort()), {"k-b"}, 0);
  auto gateway = startGateway(gatewayConfig({a, b}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto response = callGateway(gateway->port, clientCall(protocol, false), "fo-last-decides");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 502) << response->body;
  EXPECT_EQ(response->header("x-llmux-attempts"), "2");
  auto message = errorMessageOf(protocol, 502, response->body);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_NE(message->find("2 upstream attempts"), std::string::npos) << *message;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u);
  EXPECT_NE(response->body, (*journal)[0].response_body);
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_requests_total", {{"status", "502"}}, 1), 1);
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, Exhausted, ::testing::ValuesIn(kAllProtocols),
                         [](auto const& info) { return shortName(info.param); });

}  // namespace
}  // namespace llmux::e2e
