// The order in which candidates are tried: priority first, weighted rotation among equals, and
// rotation of a channel's keys.
#include <gtest/gtest.h>

#include <map>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;

class FailoverOrder : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }

  /// Sends `count` requests one after the other on one keep-alive connection; all must be 200.
  void sendMany(std::uint16_t port, ClientCall const& call, int count) {
    auto client = HttpClient::connect(port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    for (int i = 0; i < count; ++i) {
      auto response = client->request(call.method, call.target, call.headers, call.body);
      ASSERT_TRUE(response.ok()) << "request " << i << ": " << response.error().message;
      ASSERT_EQ(response->status(), 200) << "request " << i << ": " << response->body;
    }
  }
};

TEST_F(FailoverOrder, HigherPriorityIsTriedFirst) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // Configuration order is not priority order.
  auto low = channel("low", Protocol::OpenAiResponses, mock->baseUrl(), {"k-low"}, -5);
  auto high = channel("high", Protocol::OpenAiResponses, mock->baseUrl(), {"k-high"}, 20);
  auto middle = channel("middle", Protocol::OpenAiResponses, mock->baseUrl(), {"k-middle"}, 7);
  auto gateway = startGateway(gatewayConfig({low, high, middle}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiResponses, false);

  // Healthy: only the highest priority is used, every time.
  sendMany(gateway->port, call, 3);
  auto journal = waitForJournal(mock->port, 3);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-high", "k-high", "k-high"}));
}

TEST_F(FailoverOrder, FailoverFollowsDescendingPriority) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto low = channel("low", Protocol::Anthropic, mock->baseUrl(), {"k-low"}, -5);
  auto high = channel("high", Protocol::Anthropic, mock->baseUrl(), {"k-high"}, 20);
  high.headers = {{"x-mock-fault", "500"}};
  auto middle = channel("middle", Protocol::Anthropic, mock->baseUrl(), {"k-middle"}, 7);
  middle.headers = {{"x-mock-fault", "529"}};
  auto gateway = startGateway(gatewayConfig({low, high, middle}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::Anthropic, false);

  auto response = callGateway(gateway->port, call, "fo-priority-1");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200);
  auto journal = waitForJournal(mock->port, 3);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-high", "k-middle", "k-low"}));
  ASSERT_EQ(journal->size(), 3u);
  EXPECT_EQ((*journal)[0].status, 500);
  EXPECT_EQ((*journal)[1].status, 529);
  EXPECT_EQ(response->body, (*journal)[2].response_body);
  auto line = waitForAccessLine(accessLog(), "fo-priority-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 3);
  EXPECT_EQ(line->at("channel").as_string(), "low");
  EXPECT_EQ(line->at("key_label").as_string(), "low#0");
}

TEST_F(FailoverOrder, EqualPrioritiesShareFirstAttemptsByWeight) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto heavy = channel("heavy", Protocol::OpenAiChat, mock->baseUrl(), {"k-heavy"}, 0);
  heavy.weight = 2;
  auto light = channel("light", Protocol::OpenAiChat, mock->baseUrl(), {"k-light"}, 0);
  light.weight = 1;
  auto backup = channel("backup", Protocol::OpenAiChat, mock->baseUrl(), {"k-backup"}, -1);
  backup.weight = 50;  // a lower priority never leads, whatever its weight
  auto gateway = startGateway(gatewayConfig({heavy, light, backup}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  sendMany(gateway->port, clientCall(Protocol::OpenAiChat, false), 30);
  auto journal = waitForJournal(mock->port, 30);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::map<std::string, int> leaders;
  for (auto const& key : keysOf(*journal)) ++leaders[key];
  EXPECT_EQ(leaders, (std::map<std::string, int>{{"k-heavy", 20}, {"k-light", 10}}));
  // Spread out, not in blocks: every window of three requests has exactly one light leader.
  auto keys = keysOf(*journal);
  ASSERT_EQ(keys.size(), 30u);
  for (std::size_t i = 0; i + 3 <= keys.size(); i += 3) {
    int light_count = 0;
    for (std::size_t j = i; j < i + 3; ++j) light_count += keys[j] == "k-light";
    EXPECT_EQ(light_count, 1) << "requests " << i << ".." << i + 2;
  }
}

TEST_F(FailoverOrder, WeightedRotationSpreadsFailoverToo) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // One channel always fails, the other is fine. Whoever leads, the other is tried next, so every
  // request succeeds and the failing channel is tried exactly once per request it leads.
  auto sick = channel("sick", Protocol::Gemini, mock->baseUrl(), {"k-sick"}, 0);
  sick.headers = {{"x-mock-fault", "503"}};
  sick.weight = 1;
  auto fine = channel("fine", Protocol::Gemini, mock->baseUrl(), {"k-fine"}, 0);
  fine.weight = 3;
  auto gateway = startGateway(gatewayConfig({sick, fine}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  sendMany(gateway->port, clientCall(Protocol::Gemini, false), 8);
  auto journal = waitForJournal(mock->port, 10);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::map<std::string, int> tries;
  for (auto const& e : *journal) ++tries[e.upstreamKey()];
  // 8 requests, weight 1:3 → "sick" leads 2 of them (and fails over to "fine").
  EXPECT_EQ(tries, (std::map<std::string, int>{{"k-fine", 8}, {"k-sick", 2}}));
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_failovers_total", {{"reason", "status_503"}}, 2),
            2);
}

TEST_F(FailoverOrder, AChannelsKeysRotate) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto pool = channel("pool", Protocol::Anthropic, mock->baseUrl(), {"k-a", "k-b", "k-c"}, 0);
  auto gateway = startGateway(gatewayConfig({pool}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  sendMany(gateway->port, clientCall(Protocol::Anthropic, false), 9);
  auto journal = waitForJournal(mock->port, 9);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  auto keys = keysOf(*journal);
  ASSERT_EQ(keys.size(), 9u);
  // A strict rotation: the first three requests use three different keys, then it repeats.
  std::map<std::string, int> uses;
  for (auto const& key : keys) ++uses[key];
  EXPECT_EQ(uses, (std::map<std::string, int>{{"k-a", 3}, {"k-b", 3}, {"k-c", 3}}));
  for (std::size_t i = 3; i < keys.size(); ++i) EXPECT_EQ(keys[i], keys[i - 3]) << "request " << i;
}

TEST_F(FailoverOrder, ChannelKeysAreTriedInTurnOnFailure) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // The key's status fault comes from its name: the first two keys are rate limited.
  auto pool = channel("pool", Protocol::OpenAiChat, mock->baseUrl(),
                      {"k-ratelimited-1", "k-ratelimited-2", "k-ok-3"}, 0);
  auto gateway = startGateway(gatewayConfig({pool}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);

  auto response = callGateway(gateway->port, call, "fo-keys-1");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200);
  auto journal = waitForJournal(mock->port, 3);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal),
            (std::vector<std::string>{"k-ratelimited-1", "k-ratelimited-2", "k-ok-3"}));
  for (auto const& e : *journal) EXPECT_EQ(e.body, call.body);
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_failovers_total", {{"reason", "status_429"}}, 2),
            2);
}

}  // namespace
}  // namespace llmux::e2e
