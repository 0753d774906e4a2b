// Resilience end to end, the failure breaker (docs/resilience.md): five 500s open it, the admin
// API shows and resets it, half-open probes, connect failures against rate limits, `breaker: off`,
// and the 503 when every breaker refuses. Each channel has its own mock.
#include <gtest/gtest.h>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/resilience_fixture.h"
#include "e2e/scenarios/resilience_support.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace resilience;
using namespace resilience_scenarios;
using routing_scenarios::adminCall;
using routing_scenarios::kAdminToken;
using Labels = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------------------------
// 4. The failure breaker: five 500s open it, the primary is then skipped without a call, the
// admin API shows and resets it; with `breaker: off` the primary is tried every time.

TEST_F(Resilience, FiveServerErrorsOpenTheFailureBreakerAndTheAdminResetsIt) {
  auto primary_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(primary_mock.ok()) << primary_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto primary = channel("primary", Protocol::OpenAiChat, primary_mock->baseUrl(), primaryKeys(), 10);
  primary.headers = {{"x-mock-fault", "500"}};
  primary.breaker = BreakerSpec{.failure_threshold = 5, .open_ms = 30'000};
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t port = gateway->port;
  auto call = clientCall(Protocol::OpenAiChat, false);

  for (int i = 1; i <= 6; ++i) expectServed(port, call, "fb-" + std::to_string(i));
  EXPECT_EQ(journalSize(fallback_mock->port, 6), 6u);
  EXPECT_EQ(journalSize(primary_mock->port, 5), 5u)
      << "the primary's five 500s did not open the breaker, or the open breaker let one through";
  auto line = waitForAccessLine(accessLog(), "fb-6");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 1);
  EXPECT_EQ(line->at("channel").as_string(), "fallback");

  auto b = breakerOf(breakers(port), "primary", kModel);
  ASSERT_TRUE(b.has_value()) << "no breaker listed for primary / m-fail";
  EXPECT_EQ(stateOf(*b, "failure"), "open") << boost::json::serialize(*b);
  EXPECT_EQ(b->at("failure").at("opens").as_int64(), 1);
  EXPECT_EQ(b->at("failure").at("consecutive_failures").as_int64(), 5);
  EXPECT_FALSE(b->at("failure").at("opened_at").is_null());
  EXPECT_EQ(stateOf(*b, "storm"), "closed");
  auto metrics = fetchMetrics(port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  Labels failure_pair = {{"channel", "primary"}, {"model", kModel}, {"breaker", "failure"}};
  EXPECT_EQ(metricValue(*metrics, "llmux_breaker_state", failure_pair), 1);
  Labels to_open = failure_pair;
  to_open.emplace_back("to", "open");
  EXPECT_EQ(metricValue(*metrics, "llmux_breaker_transitions_total", to_open), 1);
  EXPECT_GE(metricValue(*metrics, "llmux_breaker_skips_total",
                        {{"channel", "primary"}, {"reason", "breaker_open"}})
                .value_or(0),
            1);

  auto reset =
      callGateway(port, adminCall("DELETE", std::string("/admin/breakers/primary/") + kModel));
  ASSERT_TRUE(reset.ok()) << reset.error().message;
  EXPECT_EQ(reset->status(), 204) << reset->body;
  b = breakerOf(breakers(port), "primary", kModel);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(stateOf(*b, "failure"), "closed") << boost::json::serialize(*b);
  EXPECT_EQ(waitForMetric(port, "llmux_breaker_state", failure_pair, 0), 0);
  expectServed(port, call, "fb-7");
  EXPECT_GE(journalSize(primary_mock->port, 6), 6u) << "the reset breaker still skips the primary";
  auto unknown = callGateway(port, adminCall("DELETE", "/admin/breakers/nobody/m-fail"));
  ASSERT_TRUE(unknown.ok()) << unknown.error().message;
  EXPECT_EQ(unknown->status(), 404) << unknown->body;
}

TEST_F(Resilience, HalfOpenLetsOneProbeThroughAFailedProbeReopensAndA429ProbeIsNeutral) {
  auto primary_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(primary_mock.ok()) << primary_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto primary = channel("primary", Protocol::OpenAiChat, primary_mock->baseUrl(), primaryKeys(), 10);
  // Requests 1-6 to the primary fail with a 500, the 7th gets a 429, the rest succeed.
  primary.headers = {{"x-mock-fault",
                      "fail-nth=1, fail-nth=2, fail-nth=3, fail-nth=4, fail-nth=5, fail-nth=6, "
                      "fail-nth=7:429=0"}};
  constexpr int kOpenMs = 600;
  primary.breaker = BreakerSpec{.failure_threshold = 5, .open_ms = kOpenMs};
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t port = gateway->port;
  auto call = clientCall(Protocol::OpenAiChat, false);
  auto primaryJournal = [&](std::size_t count) {
    auto journal = waitForJournal(primary_mock->port, count);
    EXPECT_TRUE(journal.ok()) << journal.error().message;
    return journal.ok() ? *journal : std::vector<JournalEntry>{};
  };
  auto statuses = [](std::vector<JournalEntry> const& journal) {
    std::vector<int> out;
    for (auto const& e : journal) out.push_back(e.status);
    return out;
  };

  for (int i = 1; i <= 6; ++i) expectServed(port, call, "hp-" + std::to_string(i));
  MonoTime opened = MonoClock::now();
  ASSERT_EQ(primaryJournal(5).size(), 5u) << "five 500s, then open: the primary is skipped";

  // After open_ms one probe: it fails, so the breaker opens again with a fresh timer.
  std::this_thread::sleep_until(opened + Millis(kOpenMs + 150));
  expectServed(port, call, "hp-probe-500");
  MonoTime reopened = MonoClock::now();
  expectServed(port, call, "hp-skip");
  EXPECT_EQ(statuses(primaryJournal(6)), (std::vector<int>{500, 500, 500, 500, 500, 500}))
      << "one probe, then skipped again";
  auto b = breakerOf(breakers(port), "primary", kModel);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(stateOf(*b, "failure"), "open") << boost::json::serialize(*b);
  EXPECT_EQ(b->at("failure").at("opens").as_int64(), 2);

  // The next probe gets a 429: back to open without a fresh timer, so the pair is probed again
  // at once (by the same request's next candidate or the next request), succeeds and closes.
  std::this_thread::sleep_until(reopened + Millis(kOpenMs + 150));
  expectServed(port, call, "hp-probe-429");
  expectServed(port, call, "hp-after-429");
  expectServed(port, call, "hp-closed");
  auto journal = primaryJournal(9);
  ASSERT_GE(journal.size(), 9u) << "the primary was not probed again at once after the 429";
  std::vector<int> seen = statuses(journal);
  EXPECT_EQ(std::vector<int>(seen.begin(), seen.begin() + 7),
            (std::vector<int>{500, 500, 500, 500, 500, 500, 429}));
  EXPECT_EQ(std::count(seen.begin() + 7, seen.end(), 200),
            static_cast<std::ptrdiff_t>(seen.size() - 7))
      << "after the 429 probe every primary request succeeds";
  EXPECT_LT(journal[7].started_at_ms - journal[6].started_at_ms, kOpenMs)
      << "the 429 probe refreshed the open timer";
  b = breakerOf(breakers(port), "primary", kModel);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(stateOf(*b, "failure"), "closed") << boost::json::serialize(*b);
  auto metrics = fetchMetrics(port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_GE(metricValue(*metrics, "llmux_breaker_transitions_total",
                        {{"channel", "primary"}, {"breaker", "failure"}, {"to", "half_open"}})
                .value_or(0),
            2);
}

TEST_F(Resilience, ConnectFailuresOpenTheFailureBreakerRateLimitsDoNot) {
  auto limited_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(limited_mock.ok()) << limited_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  // "dead" refuses connections; "limited" answers 429 (retry-after 0: no key pause) every time.
  auto dead = channel("dead", Protocol::OpenAiChat, loopbackUrl(freePort()), primaryKeys(), 20);
  dead.timeouts = TimeoutsSpec{.connect_ms = 500};
  auto limited = channel("limited", Protocol::OpenAiChat, limited_mock->baseUrl(), {"k-l"}, 10);
  limited.headers = {{"x-mock-fault", "429=0"}};
  // No storm breaker here: six 429s must not open the failure breaker on their own.
  limited.breaker = BreakerSpec{.storm = StormSpec{.off = true}};
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({dead, limited, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);

  for (int i = 1; i <= 7; ++i) expectServed(gateway->port, call, "cf-" + std::to_string(i));
  EXPECT_EQ(journalSize(limited_mock->port, 7), 7u) << "429s opened a breaker";
  EXPECT_EQ(journalSize(fallback_mock->port, 7), 7u);
  auto last = waitForAccessLine(accessLog(), "cf-7");
  ASSERT_TRUE(last.ok()) << last.error().message;
  EXPECT_EQ(last->at("attempts").as_int64(), 2) << "the dead channel was still tried";
  EXPECT_EQ(last->at("attempt_list").as_array()[0].at("channel").as_string(), "limited");
  auto list = breakers(gateway->port);
  auto dead_breaker = breakerOf(list, "dead", kModel);
  ASSERT_TRUE(dead_breaker.has_value());
  EXPECT_EQ(stateOf(*dead_breaker, "failure"), "open") << boost::json::serialize(*dead_breaker);
  EXPECT_EQ(dead_breaker->at("failure").at("consecutive_failures").as_int64(), 5);
  auto limited_breaker = breakerOf(list, "limited", kModel);
  if (limited_breaker) {
    EXPECT_EQ(stateOf(*limited_breaker, "failure"), "closed");
    EXPECT_EQ(limited_breaker->at("failure").at("consecutive_failures").as_int64(), 0);
  }
}

TEST_F(Resilience, BreakerOffTriesThePrimaryEveryTime) {
  auto primary_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(primary_mock.ok()) << primary_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto primary = channel("primary", Protocol::OpenAiChat, primary_mock->baseUrl(), primaryKeys(), 10);
  primary.headers = {{"x-mock-fault", "500"}};
  primary.breaker = BreakerSpec{.off = true};
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);

  // A 500 moves to the channel's next key: each request tries all six (a breaker would have
  // stopped at the fifth), then the fallback; the next request does the same again.
  for (int i = 1; i <= 2; ++i) expectServed(gateway->port, call, "off-" + std::to_string(i));
  EXPECT_EQ(journalSize(primary_mock->port, 12), 12u);
  auto line = waitForAccessLine(accessLog(), "off-2");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 7);
  auto b = breakerOf(breakers(gateway->port), "primary", kModel);
  if (b) {
    EXPECT_NE(stateOf(*b, "failure"), "open") << boost::json::serialize(*b);
  }
  auto metrics = fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_EQ(metricValue(*metrics, "llmux_breaker_transitions_total", {{"channel", "primary"}})
                .value_or(0),
            0);
}

// ---------------------------------------------------------------------------------------------
// 5. Every candidate's breaker open: a 503 with retry-after in the client's own shape.

TEST_F(Resilience, EveryBreakerOpenAnswers503WithRetryAfterInEachProtocol) {
  auto mock_a = startMockProvider();
  auto mock_b = startMockProvider();
  ASSERT_TRUE(mock_a.ok()) << mock_a.error().message;
  ASSERT_TRUE(mock_b.ok()) << mock_b.error().message;
  constexpr int kOpenMs = 20'000;
  auto a = channel("primary", Protocol::OpenAiChat, mock_a->baseUrl(), {"k-a"}, 10);
  a.headers = {{"x-mock-fault", "503"}};
  a.breaker = BreakerSpec{.failure_threshold = 1, .open_ms = kOpenMs};
  auto b = channel("fallback", Protocol::OpenAiChat, mock_b->baseUrl(), {"k-b"}, 0);
  b.headers = {{"x-mock-fault", "503"}};
  b.breaker = BreakerSpec{.failure_threshold = 1, .open_ms = kOpenMs};
  auto gateway = startGateway(config({a, b}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  // One request fails on both (the last candidate's own 503 is relayed) and opens both breakers.
  auto opener = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false), "all-0");
  ASSERT_TRUE(opener.ok()) << opener.error().message;
  EXPECT_EQ(opener->status(), 503) << opener->body;
  ASSERT_EQ(journalSize(mock_a->port, 1), 1u);
  ASSERT_EQ(journalSize(mock_b->port, 1), 1u);

  for (Protocol protocol : kAllProtocols) {
    for (bool stream : {false, true}) {
      SCOPED_TRACE(shortName(protocol) + (stream ? " stream" : ""));
      auto response = callGateway(gateway->port, clientCall(protocol, stream));
      ASSERT_TRUE(response.ok()) << response.error().message;
      EXPECT_EQ(response->status(), 503) << response->body;
      auto seconds = retryAfterSeconds(*response);
      ASSERT_TRUE(seconds.has_value()) << "retry-after: '" << response->header("retry-after") << "'";
      EXPECT_GE(*seconds, 1);
      EXPECT_LE(*seconds, kOpenMs / 1000);
      auto message = errorMessageOf(protocol, 503, response->body);
      ASSERT_TRUE(message.ok()) << message.error().message;
      EXPECT_NE(message->find("circuit breaker"), std::string::npos) << *message;
    }
  }
  // None of them reached an upstream.
  auto after_a = fetchJournal(mock_a->port);
  auto after_b = fetchJournal(mock_b->port);
  ASSERT_TRUE(after_a.ok() && after_b.ok());
  EXPECT_EQ(after_a->size(), 1u);
  EXPECT_EQ(after_b->size(), 1u);
}

}  // namespace
}  // namespace llmux::e2e
