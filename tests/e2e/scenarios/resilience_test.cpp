// Resilience end to end (docs/resilience.md): the 429-storm breaker under a steady 25 % of 429s,
// the first-token timeout with keep-alives flowing, the retry deadline, a 429 judged on its head,
// 400/413 and content-policy refusals never retried. The failure breaker is in
// resilience_breakers_test.cpp, gateway-key limits in resilience_key_limits_test.cpp. Each
// channel has its own mock, so a journal is one channel's.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/resilience_fixture.h"
#include "e2e/scenarios/resilience_support.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/scripted_server.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace resilience;
using namespace resilience_scenarios;
using routing_scenarios::adminCall;
using routing_scenarios::kAdminToken;
using Labels = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------------------------
// The storm breaker's replay (resilience_support) catches what it must, before it is trusted.

/// A journal entry for a request that started at `start` ms and took `took` ms.
JournalEntry answered(double start, int status, double took = 2) {
  JournalEntry e;
  e.seq = static_cast<std::uint64_t>(start);
  e.started_at_ms = start;
  e.finished_at_ms = start + took;
  e.status = status;
  return e;
}

/// 21 answers 10 ms apart, every 4th a 429 (5 of 21 = 24 %): the rule opens on the 21st.
std::vector<JournalEntry> stormOpening(double from) {
  std::vector<JournalEntry> out;
  for (int i = 1; i <= 21; ++i) out.push_back(answered(from + 10 * i, i % 4 == 0 ? 429 : 200));
  return out;
}

TEST(StormReplay, OpensOnTheTwentyFirstAnswerAndAllowsOneProbeAfterOpenMs) {
  auto journal = stormOpening(0);  // opens at 212 ms
  journal.push_back(answered(3300, 429));  // the probe: a 429, open again at 3302
  journal.push_back(answered(6400, 200));  // the next probe closes it
  journal.push_back(answered(6500, 200));  // closed: anything goes
  StormReplay replay = replayStormRule(journal, StormRule{});
  EXPECT_TRUE(replay.violations.empty()) << replay.violations.front();
  EXPECT_EQ(replay.opens, 2u);
  EXPECT_EQ(replay.probes, 2u);
}

TEST(StormReplay, FlagsRequestsWhileOpenAndASecondRequestDuringTheProbe) {
  auto journal = stormOpening(0);
  journal.push_back(answered(300, 200));        // 88 ms after the opening: still on its way
  journal.push_back(answered(1500, 200));       // well inside the open period
  journal.push_back(answered(3300, 200, 100));  // the probe, out until 3400
  journal.push_back(answered(3350, 200));       // a second request while it is out
  StormReplay replay = replayStormRule(journal, StormRule{});
  ASSERT_EQ(replay.violations.size(), 2u);
  EXPECT_NE(replay.violations[0].find("while open"), std::string::npos) << replay.violations[0];
  EXPECT_NE(replay.violations[1].find("probe"), std::string::npos) << replay.violations[1];
  EXPECT_EQ(replay.skipped_in_flight, 1u);  // the one at 300 ms, within the slack of 212 ms
  // Without 429s nothing opens, however many answers.
  std::vector<JournalEntry> healthy;
  for (int i = 0; i < 100; ++i) healthy.push_back(answered(10 * i, 200));
  EXPECT_EQ(replayStormRule(healthy, StormRule{}).opens, 0u);
}

// ---------------------------------------------------------------------------------------------
// 1. A steady 25 % of 429s on the primary: the storm breaker opens, the fallback serves, and
// while open the primary sees one probe per 3 s and nothing else.

TEST_F(Resilience, StormOfRateLimitsOpensTheStormBreakerAndTheFallbackServesEveryone) {
  auto primary_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(primary_mock.ok()) << primary_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto primary = channel("primary", Protocol::OpenAiChat, primary_mock->baseUrl(), {"k-p"}, 10);
  // retry-after: 0 so no key pause hides the primary: the storm breaker alone must act.
  primary.headers = {{"x-mock-fault", "fail-every=4:429=0"}};
  primary.breaker = BreakerSpec{.storm = StormSpec{.window_ms = 10'000, .ratio = 0.15,
                                                   .min_samples = 20, .open_ms = 3'000}};
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t port = gateway->port;

  // The admin view, sampled while the load runs.
  std::atomic<bool> done{false}, seen_open{false};
  std::thread watcher([&] {
    while (!done) {
      auto list = breakers(port);
      if (auto b = breakerOf(list, "primary", kModel); b && stateOf(*b, "storm") == "open") {
        seen_open = true;
      }
      std::this_thread::sleep_for(Millis(100));
    }
  });

  // 400 requests at 40 per second on 8 connections: ten seconds, three storm periods. Clients
  // of three protocols (passthrough and translated), streamed or not, in a cycle of five so that
  // every 4th request's 429 falls on each kind in turn.
  constexpr std::size_t kRequests = 400;
  constexpr std::pair<Protocol, bool> kMix[] = {
      {Protocol::OpenAiChat, false}, {Protocol::OpenAiChat, true}, {Protocol::Anthropic, false},
      {Protocol::Anthropic, true},   {Protocol::OpenAiResponses, true}};
  std::vector<std::string> failures(kRequests);
  std::size_t served = runPaced(kRequests, 8, Millis(25), [&](std::size_t i) {
    auto [protocol, stream] = kMix[i % std::size(kMix)];
    auto response = callGateway(port, clientCall(protocol, stream));
    if (!response) {
      failures[i] = response.error().message;
      return false;
    }
    if (response->status() != 200) failures[i] = response->body;
    return response->status() == 200;
  });
  done = true;
  watcher.join();

  EXPECT_GE(served * 1000, kRequests * 999) << "served " << served << " of " << kRequests;
  for (std::size_t i = 0; i < kRequests; ++i) {
    if (!failures[i].empty()) ADD_FAILURE() << "request " << i << ": " << failures[i];
  }
  EXPECT_TRUE(seen_open) << "GET /admin/breakers never showed the storm breaker open";
  auto metrics = fetchMetrics(port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_GE(metricValue(*metrics, "llmux_storm_opens_total", {{"channel", "primary"}}).value_or(0),
            1);
  EXPECT_GE(metricValue(*metrics, "llmux_breaker_transitions_total",
                        {{"channel", "primary"}, {"breaker", "storm"}, {"to", "open"}})
                .value_or(0),
            1);
  EXPECT_GE(metricValue(*metrics, "llmux_breaker_skips_total",
                        {{"channel", "primary"}, {"reason", "storm_open"}})
                .value_or(0),
            1);
  // The failure breaker ignores 429s.
  EXPECT_EQ(metricValue(*metrics, "llmux_breaker_transitions_total",
                        {{"channel", "primary"}, {"breaker", "failure"}, {"to", "open"}})
                .value_or(0),
            0);

  auto journal = fetchJournal(primary_mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  StormReplay replay = replayStormRule(*journal, StormRule{});
  for (auto const& violation : replay.violations) ADD_FAILURE() << violation;
  if (!replay.violations.empty()) ADD_FAILURE() << "the primary's journal:\n" << timeline(*journal);
  EXPECT_GE(replay.opens, 2u) << "10 s of load should see the breaker open more than once";
  EXPECT_GE(replay.probes, 2u);
  // Each period lets through about 21 answers to open it, a probe, and what was already on its
  // way; far below the 400 an unguarded primary would see.
  EXPECT_LE(journal->size(), (replay.opens + 1) * (21 + 8 + 1)) << journal->size();
}

// ---------------------------------------------------------------------------------------------
// 2. A stream whose first token never comes (keep-alives flowing meanwhile) is cut at
// first_token_ms and the fallback serves the request — passthrough and translated.

struct StallCase {
  Protocol client;
  Protocol upstream;
};

class FirstTokenTimeout : public Resilience, public ::testing::WithParamInterface<StallCase> {};

TEST_P(FirstTokenTimeout, CutsTheStalledStreamAndTheFallbackServes) {
  auto [client, upstream] = GetParam();
  auto primary_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(primary_mock.ok()) << primary_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto primary = channel("primary", upstream, primary_mock->baseUrl(), {"k-p"}, 10);
  primary.headers = {{"x-mock-fault", "slow-first-token=3000, keep-alive=100"}};
  primary.timeouts = TimeoutsSpec{.first_token_ms = 300};
  auto fallback = channel("fallback", upstream, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(client, true);
  MonoTime start = MonoClock::now();
  auto response = callGateway(gateway->port, call, "ft-1");
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  EXPECT_GE(elapsed, 300);
  EXPECT_LT(elapsed, 2000) << "the stalled first token was awaited";

  auto first = waitForJournal(primary_mock->port, 1);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->size(), 1u);
  JournalEntry const& cut = first->front();
  EXPECT_EQ(cut.outcome, "client_gone") << "the primary's connection was not closed";
  ASSERT_TRUE(cut.client_gone_at_ms.has_value());
  double gone_after = *cut.client_gone_at_ms - cut.started_at_ms;
  EXPECT_GE(gone_after, 250) << "cut before first_token_ms";
  EXPECT_LT(gone_after, 1500) << "not cut at first_token_ms";
  // Keep-alives were flowing and did not count as the first token.
  std::string_view keep_alive = upstream == Protocol::Anthropic ? "event: ping" : ": keep-alive";
  EXPECT_GE(countOf(cut.response_body, keep_alive), 2u) << cut.response_body;

  auto second = waitForJournal(fallback_mock->port, 1);
  ASSERT_TRUE(second.ok()) << second.error().message;
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ(second->front().body, cut.body) << "the same upstream request, replayed";
  if (client == upstream) {
    EXPECT_EQ(response->body, second->front().response_body)
        << "the client got the fallback's stream only";
  } else if (client == Protocol::Anthropic) {
    EXPECT_EQ(countOf(response->body, "event: message_start"), 1u) << response->body;
    EXPECT_EQ(countOf(response->body, "event: message_stop"), 1u) << response->body;
  } else {
    EXPECT_EQ(countOf(response->body, "\"role\":\"assistant\""), 1u) << response->body;
    EXPECT_EQ(countOf(response->body, "data: [DONE]"), 1u) << response->body;
  }

  auto line = waitForAccessLine(accessLog(), "ft-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 2);
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].at("channel").as_string(), "primary");
  EXPECT_EQ(attempts[0].at("outcome").as_string(), "failover:timeout_first_token");
  EXPECT_EQ(attempts[1].at("channel").as_string(), "fallback");
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_failovers_total",
                          {{"reason", "timeout_first_token"}}, 1),
            1);
}

INSTANTIATE_TEST_SUITE_P(
    PassthroughAndTranslated, FirstTokenTimeout,
    ::testing::Values(StallCase{Protocol::Anthropic, Protocol::Anthropic},
                      StallCase{Protocol::OpenAiChat, Protocol::OpenAiChat},
                      StallCase{Protocol::OpenAiChat, Protocol::Anthropic},
                      StallCase{Protocol::Anthropic, Protocol::OpenAiChat}),
    [](auto const& info) {
      return shortName(info.param.client) + "_via_" + shortName(info.param.upstream);
    });

// ---------------------------------------------------------------------------------------------
// 2b. A stream that asks the model to think gets the longer first-token clock of its effort
// (timeouts.first_token_reasoning_ms): a model thinking silently past first_token_ms is served,
// not cut and counted as a failure. The same request without reasoning is cut.

/// `call` (a streamed clientCall) asking for reasoning in its protocol's words.
ClientCall withReasoning(Protocol protocol, ClientCall call) {
  std::string const messages = R"("messages":[{"role":"user","content":"Think first."}])";
  switch (protocol) {
    case Protocol::OpenAiChat:
      call.body = std::string(R"({"model":")") + kModel +
                  R"(","stream":true,"reasoning_effort":"high",)" + messages + "}";
      break;
    case Protocol::OpenAiResponses:
      call.body = std::string(R"({"model":")") + kModel +
                  R"(","stream":true,"reasoning":{"effort":"low"},"input":"Think first."})";
      break;
    case Protocol::Anthropic:
      call.body =
          std::string(R"({"model":")") + kModel +
          R"(","stream":true,"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},)" +
          messages + "}";
      break;
    case Protocol::Gemini:
      call.body =
          R"({"contents":[{"role":"user","parts":[{"text":"Think first."}]}],)"
          R"("generationConfig":{"thinkingConfig":{"thinkingBudget":1024,"includeThoughts":true}}})";
      break;
  }
  return call;
}

class ReasoningFirstToken : public Resilience, public ::testing::WithParamInterface<StallCase> {};

TEST_P(ReasoningFirstToken, ASilentlyThinkingStreamIsServedAPlainOneIsCut) {
  auto [protocol, upstream] = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // The head at once, the first content (thinking included) after 800 ms.
  auto thinker = channel("thinker", upstream, mock->baseUrl(), {"k-t"}, 0);
  thinker.headers = {{"x-mock-fault", "slow-first-token=800"}};
  thinker.timeouts = TimeoutsSpec{
      .first_token_ms = 300,
      .first_token_reasoning_ms = ReasoningTimeoutsSpec{.low = 1500, .medium = 1500, .high = 1500}};
  auto gateway = startGateway(config({thinker}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto thinking = withReasoning(protocol, clientCall(protocol, true));
  MonoTime start = MonoClock::now();
  auto served = callGateway(gateway->port, thinking, "rft-think");
  ASSERT_TRUE(served.ok()) << served.error().message;
  EXPECT_EQ(served->status(), 200) << served->body;
  EXPECT_GE(millisBetween(start, MonoClock::now()), 800);
  auto line = waitForAccessLine(accessLog(), "rft-think");
  ASSERT_TRUE(line.ok()) << line.error().message;
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 1u) << boost::json::serialize(*line);
  EXPECT_EQ(attempts[0].at("outcome").as_string(), "ok");
  EXPECT_GE(attempts[0].at("first_token_ms").to_number<double>(), 790) << "its first content";

  auto plain = callGateway(gateway->port, clientCall(protocol, true), "rft-plain");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->status(), 504) << plain->body;
  line = waitForAccessLine(accessLog(), "rft-plain");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempt_list").as_array()[0].at("outcome").as_string(),
            "failed:timeout_first_token");
}

// The mock sends a Responses reasoning item (its encrypted content) at once, so a Responses
// client's ask is tried on an upstream that thinks silently: Anthropic, translated.
INSTANTIATE_TEST_SUITE_P(EachProtocolsAsk, ReasoningFirstToken,
                         ::testing::Values(StallCase{Protocol::OpenAiChat, Protocol::OpenAiChat},
                                           StallCase{Protocol::Anthropic, Protocol::Anthropic},
                                           StallCase{Protocol::Gemini, Protocol::Gemini},
                                           StallCase{Protocol::OpenAiResponses,
                                                     Protocol::Anthropic}),
                         [](auto const& info) {
                           return shortName(info.param.client) + "_via_" +
                                  shortName(info.param.upstream);
                         });

// ---------------------------------------------------------------------------------------------
// 2c. No attempt outlives the request's retry deadline before its answer starts: an upstream that
// never answers is cut at retry.deadline_ms (not at its first_byte_ms of two minutes), the
// request ends with 504, and no candidate starts after it.

class RetryDeadline : public Resilience, public ::testing::WithParamInterface<bool> {};

TEST_P(RetryDeadline, BoundsTheWaitForAnAnswerAndEndsTheRequest) {
  bool stream = GetParam();
  auto silent_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(silent_mock.ok()) << silent_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto silent = channel("silent", Protocol::OpenAiChat, silent_mock->baseUrl(), {"k-s"}, 10);
  silent.headers = {{"x-mock-fault", "slow-first-byte=5000"}};
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  GatewayConfig c = config({silent, fallback});
  c.extra_yaml += "retry:\n  deadline_ms: 500\n";
  auto gateway = startGateway(c);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  MonoTime start = MonoClock::now();
  auto response =
      callGateway(gateway->port, clientCall(Protocol::OpenAiChat, stream), "deadline-1");
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 504) << response->body;
  EXPECT_GE(elapsed, 450);
  EXPECT_LT(elapsed, 1500) << "the attempt waited past the retry deadline";
  auto message = errorMessageOf(Protocol::OpenAiChat, 504, response->body);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_NE(message->find("retry deadline"), std::string::npos) << *message;

  auto line = waitForAccessLine(accessLog(), "deadline-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 1u) << "an attempt started after the deadline";
  EXPECT_EQ(attempts[0].at("outcome").as_string(), "failed:deadline");
  auto journal = fetchJournal(fallback_mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_TRUE(journal->empty());
  // Cut by the request's budget, not by its own clocks: not a failure of the upstream.
  auto b = breakerOf(breakers(gateway->port), "silent", kModel);
  if (b) {
    EXPECT_EQ(stateOf(*b, "failure"), "closed") << boost::json::serialize(*b);
  }
}

INSTANTIATE_TEST_SUITE_P(WholeAndStreamed, RetryDeadline, ::testing::Bool(),
                         [](auto const& info) { return info.param ? "stream" : "whole"; });

TEST_F(Resilience, FirstTokenTimeoutsCountForTheFailureBreaker) {
  auto primary_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(primary_mock.ok()) << primary_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto primary = channel("primary", Protocol::OpenAiChat, primary_mock->baseUrl(), primaryKeys(), 10);
  primary.headers = {{"x-mock-fault", "slow-first-token=3000, keep-alive=100"}};
  primary.timeouts = TimeoutsSpec{.first_token_ms = 200};
  primary.breaker = BreakerSpec{.failure_threshold = 5, .open_ms = 30'000};
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(Protocol::OpenAiChat, true);
  for (int i = 1; i <= 6; ++i) expectServed(gateway->port, call, "ftb-" + std::to_string(i));
  EXPECT_EQ(journalSize(primary_mock->port, 5), 5u) << "not open after five first-token timeouts";
  EXPECT_EQ(journalSize(fallback_mock->port, 6), 6u);
  auto b = breakerOf(breakers(gateway->port), "primary", kModel);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(stateOf(*b, "failure"), "open") << boost::json::serialize(*b);
}

TEST_F(Resilience, A429IsDecidedOnItsHeadWithoutWaitingForTheBody) {
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);
  // The head of a 429 and the start of its body; the rest would come 3 s later.
  ScriptedServer upstream;
  upstream.stepTimeout(Millis(2500));
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(
      "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nretry-after: 0\r\n"
      "Content-Length: 120\r\n\r\n{\"error\":{\"message\":\"Rate limit");
  upstream.expectClose();
  upstream.start();
  auto primary =
      channel("primary", Protocol::OpenAiChat, loopbackUrl(upstream.port()), {"k-p"}, 10);
  primary.timeouts = TimeoutsSpec{.idle_ms = 3000};
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  MonoTime start = MonoClock::now();
  auto response = callGateway(gateway->port, call, "head-429");
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  EXPECT_LT(elapsed, 1000) << "the 429's body was awaited";
  EXPECT_TRUE(upstream.finish(Millis(3000)).ok()) << "the 429's connection was not closed";
  EXPECT_EQ(journalSize(fallback_mock->port, 1), 1u);
  auto line = waitForAccessLine(accessLog(), "head-429");
  ASSERT_TRUE(line.ok()) << line.error().message;
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].at("status").as_int64(), 429);
  EXPECT_EQ(attempts[0].at("outcome").as_string(), "failover:status_429");
}

// ---------------------------------------------------------------------------------------------
// 3. A 400 or a 413 is the client's: relayed in its shape, never retried, never a breaker
// failure (six in a row leave the breaker closed).

class ClientErrorNotRetried : public Resilience,
                              public ::testing::WithParamInterface<std::tuple<int, Protocol>> {};

TEST_P(ClientErrorNotRetried, IsRelayedAndTheFallbackNeverCalled) {
  auto [status, protocol] = GetParam();
  auto primary_mock = startMockProvider();
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(primary_mock.ok()) << primary_mock.error().message;
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto primary = channel("primary", protocol, primary_mock->baseUrl(), {"k-p"}, 10);
  primary.headers = {{"x-mock-fault", std::to_string(status)}};
  auto fallback = channel("fallback", protocol, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(protocol, false);
  for (int i = 1; i <= 6; ++i) {
    std::string id = "ce-" + std::to_string(i);
    auto response = callGateway(gateway->port, call, id);
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), status) << response->body;
    auto message = errorMessageOf(protocol, status, response->body);
    EXPECT_TRUE(message.ok()) << message.error().message;
  }
  EXPECT_EQ(journalSize(primary_mock->port, 6), 6u) << "the primary was skipped: a breaker opened";
  auto untouched = fetchJournal(fallback_mock->port);
  ASSERT_TRUE(untouched.ok()) << untouched.error().message;
  EXPECT_TRUE(untouched->empty()) << "the fallback got " << untouched->size() << " requests";
  auto line = waitForAccessLine(accessLog(), "ce-6");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 1);
  auto b = breakerOf(breakers(gateway->port), "primary", kModel);
  if (b) {
    EXPECT_EQ(stateOf(*b, "failure"), "closed") << boost::json::serialize(*b);
    EXPECT_EQ(b->at("failure").at("consecutive_failures").as_int64(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, ClientErrorNotRetried,
                         ::testing::Combine(::testing::Values(400, 413),
                                            ::testing::ValuesIn(kAllProtocols)),
                         [](auto const& info) {
                           return std::to_string(std::get<0>(info.param)) + "_" +
                                  shortName(std::get<1>(info.param));
                         });

TEST_F(Resilience, BodylessPayloadTooLargeIsNotFailedOver) {
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);
  // A 413 with no body at all, as a fronting proxy sends it.
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send("HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n");
  upstream.close();
  upstream.start();
  auto primary =
      channel("primary", Protocol::OpenAiChat, loopbackUrl(upstream.port()), {"k-p"}, 10);
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto response = callGateway(gateway->port, call, "ce-bodyless");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 413) << response->body;
  // No body came: the client still gets its protocol's error document for the status.
  auto message = errorMessageOf(Protocol::OpenAiChat, 413, response->body);
  ASSERT_TRUE(message.ok()) << message.error().message << ": " << response->body;
  EXPECT_NE(message->find("413"), std::string::npos) << *message;
  EXPECT_TRUE(upstream.finish(Millis(2000)).ok());
  auto untouched = fetchJournal(fallback_mock->port);
  ASSERT_TRUE(untouched.ok()) << untouched.error().message;
  EXPECT_TRUE(untouched->empty()) << "a body-less 413 was failed over";
  auto line = waitForAccessLine(accessLog(), "ce-bodyless");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 1);
}

TEST_F(Resilience, AContentPolicyRefusalGoesBackToTheClientAndIsCountedApart) {
  auto fallback_mock = startMockProvider();
  ASSERT_TRUE(fallback_mock.ok()) << fallback_mock.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);
  std::string const refusal =
      R"({"error":{"message":"Your request was rejected as a result of our safety system.",)"
      R"("type":"invalid_request_error","param":null,"code":"content_policy_violation"}})";
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: " +
                std::to_string(refusal.size()) + "\r\n\r\n" + refusal);
  upstream.close();
  upstream.start();
  auto primary =
      channel("primary", Protocol::OpenAiChat, loopbackUrl(upstream.port()), {"k-p"}, 10);
  auto fallback = channel("fallback", Protocol::OpenAiChat, fallback_mock->baseUrl(), {"k-f"}, 0);
  auto gateway = startGateway(config({primary, fallback}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto response = callGateway(gateway->port, call, "ce-policy");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 400);
  EXPECT_EQ(response->body, refusal) << "relayed as the upstream sent it";
  EXPECT_TRUE(upstream.finish(Millis(2000)).ok());
  auto untouched = fetchJournal(fallback_mock->port);
  ASSERT_TRUE(untouched.ok()) << untouched.error().message;
  EXPECT_TRUE(untouched->empty()) << "a content-policy refusal was failed over";
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_attempt_outcomes_total", {{"class", "content_policy"}}, 1),
            1);
}

}  // namespace
}  // namespace llmux::e2e
