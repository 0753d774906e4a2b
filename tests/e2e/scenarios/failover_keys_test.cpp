// Key health across requests: a 429 pauses a key for its retry-after (30 s by default), a 401/403
// benches it, and a rejected channel key is never shown to the client.
#include <gtest/gtest.h>

#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/scripted_server.h"

namespace llmux::e2e {
namespace {

using namespace failover;

class FailoverKeys : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }

  /// The attempts of one request, from its access-log line: (key_label, status, outcome).
  std::vector<std::tuple<std::string, int, std::string>> attemptsOf(std::string_view request_id) {
    std::vector<std::tuple<std::string, int, std::string>> out;
    auto line = waitForAccessLine(accessLog(), request_id);
    EXPECT_TRUE(line.ok()) << line.error().message;
    if (!line.ok()) return out;
    for (auto const& a : line->at("attempt_list").as_array()) {
      out.emplace_back(std::string(a.at("key_label").as_string()),
                       static_cast<int>(a.at("status").as_int64()),
                       std::string(a.at("outcome").as_string()));
    }
    return out;
  }
};

using Attempts = std::vector<std::tuple<std::string, int, std::string>>;

TEST_F(FailoverKeys, RateLimitedKeySitsOutItsRetryAfterThenComesBack) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto limited = channel("limited", Protocol::OpenAiChat, mock->baseUrl(), {"k-limited"}, 10);
  limited.headers = {{"x-mock-fault", "429=1"}};
  auto live = channel("live", Protocol::OpenAiChat, mock->baseUrl(), {"k-live"}, 0);
  auto gateway = startGateway(gatewayConfig({limited, live}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);

  auto first = callGateway(gateway->port, call, "fo-429-1");
  MonoTime limited_at = MonoClock::now();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->status(), 200);
  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-limited", "k-live"}));
  EXPECT_EQ((*journal)[0].status, 429);
  ASSERT_TRUE(clearJournal(mock->port).ok());

  // Right after: the paused key is not even tried.
  auto second = callGateway(gateway->port, call, "fo-429-2");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->status(), 200);
  ASSERT_LT(millisBetween(limited_at, MonoClock::now()), 900) << "too slow to test the pause";
  journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), std::vector<std::string>{"k-live"});
  EXPECT_EQ(attemptsOf("fo-429-2"), (Attempts{{"live#0", 200, "ok"}}));
  ASSERT_TRUE(clearJournal(mock->port).ok());

  // Once its retry-after (1 s) has passed, the key is tried first again.
  std::this_thread::sleep_until(limited_at + Millis(1150));
  auto third = callGateway(gateway->port, call, "fo-429-3");
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(third->status(), 200);
  journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-limited", "k-live"}));
  EXPECT_EQ(attemptsOf("fo-429-3"),
            (Attempts{{"limited#0", 429, "failover:status_429"}, {"live#0", 200, "ok"}}));
}

TEST_F(FailoverKeys, RateLimitWithoutRetryAfterPausesTheKeyForThirtySeconds) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // One connection only: a 429 with no retry-after of any kind.
  std::string const body =
      R"({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}})";
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n");
  upstream.send(
      "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body);
  upstream.close().start();

  auto limited =
      channel("limited", Protocol::OpenAiChat, loopbackUrl(upstream.port()), {"k-limited"}, 10);
  limited.timeouts = TimeoutsSpec{.first_byte_ms = 500};
  auto live = channel("live", Protocol::OpenAiChat, mock->baseUrl(), {"k-live"}, 0);
  auto gateway = startGateway(gatewayConfig({limited, live}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);

  auto first = callGateway(gateway->port, call, "fo-429d-1");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->status(), 200);
  EXPECT_EQ(attemptsOf("fo-429d-1"),
            (Attempts{{"limited#0", 429, "failover:status_429"}, {"live#0", 200, "ok"}}));
  EXPECT_TRUE(upstream.finish(Millis(1000)).ok());

  auto second = callGateway(gateway->port, call, "fo-429d-2");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->status(), 200);
  EXPECT_EQ(attemptsOf("fo-429d-2"), (Attempts{{"live#0", 200, "ok"}}));

  // Still paused a few seconds later (longer than any short default would last).
  std::this_thread::sleep_for(Millis(3000));
  auto third = callGateway(gateway->port, call, "fo-429d-3");
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(third->status(), 200);
  EXPECT_EQ(attemptsOf("fo-429d-3"), (Attempts{{"live#0", 200, "ok"}}));
  EXPECT_EQ(upstream.connections(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Rate limits are per model: one provider key serving several models keeps serving the others
// while one of them is limited.

TEST_F(FailoverKeys, ARateLimitedModelLeavesTheKeysOtherModelsServed) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // The mock answers the model called "fault-429=30" with a 429 and retry-after: 30.
  std::string const limited = "fault-429=30";
  auto provider = channel("provider", Protocol::OpenAiChat, mock->baseUrl(), {"k-provider"}, 0);
  provider.models = {limited, "model-b", "model-c"};
  auto gateway = startGateway(gatewayConfig({provider}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto first =
      callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, limited), "pm-a-1");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->status(), 429) << "the only candidate's own answer";
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_TRUE(clearJournal(mock->port).ok());

  // The limited model is paused: the gateway answers for it without asking the upstream ...
  auto again =
      callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, limited), "pm-a-2");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->status(), 429);
  std::string retry_after(again->header("retry-after"));
  ASSERT_FALSE(retry_after.empty());
  EXPECT_GE(std::stoi(retry_after), 29);
  EXPECT_LE(std::stoi(retry_after), 30);
  EXPECT_EQ(attemptsOf("pm-a-2"), Attempts{});

  // ... while the key's other models keep reaching it, and succeed.
  for (std::string model : {"model-b", "model-c", "model-b"}) {
    auto response =
        callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, model), "pm-" + model);
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << model << ": " << response->body;
  }
  journal = waitForJournal(mock->port, 3);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 3u);
  std::vector<std::string> models;
  for (auto const& e : *journal) {
    EXPECT_EQ(e.status, 200);
    EXPECT_EQ(e.upstreamKey(), "k-provider");
    auto body = parseObject(e.body);
    ASSERT_TRUE(body.ok()) << body.error().message;
    models.emplace_back(body->at("model").as_string());
  }
  EXPECT_EQ(models, (std::vector<std::string>{"model-b", "model-c", "model-b"}));
  EXPECT_EQ(attemptsOf("pm-model-c"), (Attempts{{"provider#0", 200, "ok"}}));
}

// A broken or hostile upstream's retry-after cannot bench a key for long: the pause is clamped
// to retry.max_key_pause_ms (an hour by default; 1 s here).
TEST_F(FailoverKeys, AHugeRetryAfterPausesTheKeyNoLongerThanTheMaximum) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto solo = channel("solo", Protocol::OpenAiChat, mock->baseUrl(), {"k-solo"}, 0);
  solo.headers = {{"x-mock-fault", "429=86400"}};
  auto config = gatewayConfig({solo}, accessLog());
  config.extra_yaml += "retry:\n  max_key_pause_ms: 1000\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);

  auto first = callGateway(gateway->port, call, "fo-clamp-1");
  MonoTime limited_at = MonoClock::now();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->status(), 429);
  EXPECT_EQ(first->header("retry-after"), "86400") << "the upstream's own answer, relayed";

  auto second = callGateway(gateway->port, call, "fo-clamp-2");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->status(), 429);
  EXPECT_EQ(second->header("retry-after"), "1") << "paused for the maximum, not a day";
  ASSERT_LT(millisBetween(limited_at, MonoClock::now()), 900) << "too slow to test the pause";
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->size(), 1u);

  std::this_thread::sleep_until(limited_at + Millis(1150));
  auto third = callGateway(gateway->port, call, "fo-clamp-3");
  ASSERT_TRUE(third.ok()) << third.error().message;
  journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->size(), 2u) << "the key is back after the maximum pause";
  EXPECT_EQ(attemptsOf("fo-clamp-3"), (Attempts{{"solo#0", 429, "failed:status_429"}}));
}

// ---------------------------------------------------------------------------------------------
// 401/403: the next key; the rejected key is benched.

struct RejectedCase {
  Protocol protocol;
  std::string fault;  ///< "invalid" (401) or "forbidden" (403)
  int status;
};

class RejectedKey : public FailoverKeys, public ::testing::WithParamInterface<RejectedCase> {};

TEST_P(RejectedKey, MovesToTheNextKeyAndBenchesTheRejectedOne) {
  auto const& param = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::string bad = "k-0-" + param.fault;
  auto pool = channel("pool", param.protocol, mock->baseUrl(), {bad, "k-1-good"}, 0);
  auto gateway = startGateway(gatewayConfig({pool}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(param.protocol, false);

  // The keys rotate, so the rejected key would lead requests 1 and 3 if it were not benched.
  for (int i = 1; i <= 4; ++i) {
    auto response = callGateway(gateway->port, call, "fo-rejected-" + std::to_string(i));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << "request " << i << ": " << response->body;
  }
  auto journal = waitForJournal(mock->port, 5);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal),
            (std::vector<std::string>{bad, "k-1-good", "k-1-good", "k-1-good", "k-1-good"}));
  ASSERT_FALSE(journal->empty());
  EXPECT_EQ((*journal)[0].status, param.status);
  for (auto const& e : *journal) EXPECT_EQ(e.body, call.body);

  auto reason = "status_" + std::to_string(param.status);
  EXPECT_EQ(attemptsOf("fo-rejected-1"),
            (Attempts{{"pool#0", param.status, "failover:" + reason}, {"pool#1", 200, "ok"}}));
  for (int i = 2; i <= 4; ++i) {
    EXPECT_EQ(attemptsOf("fo-rejected-" + std::to_string(i)), (Attempts{{"pool#1", 200, "ok"}}))
        << "request " << i;
  }
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_failovers_total", {{"reason", reason}}, 1), 1);
}

INSTANTIATE_TEST_SUITE_P(
    Keys, RejectedKey,
    ::testing::Values(RejectedCase{Protocol::OpenAiChat, "invalid", 401},
                      RejectedCase{Protocol::OpenAiResponses, "forbidden", 403},
                      RejectedCase{Protocol::Anthropic, "invalid", 401},
                      RejectedCase{Protocol::Anthropic, "forbidden", 403},
                      RejectedCase{Protocol::Gemini, "forbidden", 403}),
    [](auto const& info) { return shortName(info.param.protocol) + "_" + info.param.fault; });

// Google answers a wrong API key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID, not 401
// (protocol reference §6.2, "auth" row): it is the channel key's fault, not the client's request,
// so it must be handled like a 401: the next candidate, the key benched, nothing relayed.
TEST_F(FailoverKeys, GeminiApiKeyInvalidIsARejectedKey) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto pool = channel("pool", Protocol::Gemini, mock->baseUrl(),
                      {"sk-upstream-invalid-SECRET", "k-good"}, 0);
  auto gateway = startGateway(gatewayConfig({pool}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::Gemini, false);

  for (int i = 1; i <= 3; ++i) {
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    auto response = client->request("POST", call.target, call.headers, call.body);
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << "request " << i << ": " << response->body;
    EXPECT_EQ(client->received().find("API_KEY_INVALID"), std::string::npos)
        << "request " << i << ": the channel key's rejection reached the client";
  }
  auto journal = waitForJournal(mock->port, 4);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal),
            (std::vector<std::string>{"sk-upstream-invalid-SECRET", "k-good", "k-good", "k-good"}));
}

// ---------------------------------------------------------------------------------------------
// A rejected channel key never reaches the client: neither its secret nor the upstream's answer.

class RejectedLastCandidate : public FailoverKeys,
                              public ::testing::WithParamInterface<Protocol> {};

TEST_P(RejectedLastCandidate, BecomesA502WithoutTheUpstreamBody) {
  Protocol protocol = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // Gemini answers a bad key with 400 API_KEY_INVALID (not retryable); 403 is its rejection.
  std::string secret_a = "sk-upstream-invalid-SECRET-alpha";
  std::string secret_b = "sk-upstream-forbidden-SECRET-beta";
  if (protocol == Protocol::Gemini) secret_a = "sk-upstream-forbidden-SECRET-alpha";
  auto a = channel("a", protocol, mock->baseUrl(), {secret_a}, 10);
  auto b = channel("b", protocol, mock->baseUrl(), {secret_b}, 0);
  auto gateway = startGateway(gatewayConfig({a, b}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(protocol, false);
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  HeaderList headers = call.headers;
  headers.add("X-Request-Id", "fo-leak-1");
  auto response = client->request("POST", call.target, headers, call.body);
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 502) << response->body;
  EXPECT_EQ(response->header("x-llmux-attempts"), "2");
  auto message = errorMessageOf(protocol, 502, response->body);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_NE(message->find("2 upstream attempts"), std::string::npos) << *message;

  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{secret_a, secret_b}));
  std::string const& wire = client->received();
  EXPECT_EQ(wire.find("SECRET"), std::string::npos) << wire;
  for (auto const& e : *journal) {
    EXPECT_GE(e.status, 401);
    EXPECT_LE(e.status, 403);
    EXPECT_NE(response->body, e.response_body);
    auto upstream_message = errorMessageOf(protocol, e.status, e.response_body);
    ASSERT_TRUE(upstream_message.ok()) << upstream_message.error().message;
    EXPECT_EQ(wire.find(*upstream_message), std::string::npos)
        << "the upstream's rejection leaked: " << *upstream_message;
  }
}

TEST_P(RejectedLastCandidate, FailedOverKeyNeverReachesTheClient) {
  Protocol protocol = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::string secret_a = protocol == Protocol::Gemini ? "sk-upstream-forbidden-SECRET-alpha"
                                                      : "sk-upstream-invalid-SECRET-alpha";
  auto a = channel("a", protocol, mock->baseUrl(), {secret_a}, 10);
  auto b = channel("b", protocol, mock->baseUrl(), {"sk-upstream-SECRET-good"}, 0);
  auto gateway = startGateway(gatewayConfig({a, b}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(protocol, true);
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto response = client->request("POST", call.target, call.headers, call.body);
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200);
  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  EXPECT_EQ(response->body, (*journal)[1].response_body);
  EXPECT_EQ(client->received().find("SECRET"), std::string::npos) << client->received();
  for (auto const& e : *journal) {
    EXPECT_EQ(e.header("authorization").find(kGatewayKey), std::string::npos);
    EXPECT_EQ(e.header("x-api-key").find(kGatewayKey), std::string::npos);
    EXPECT_EQ(e.header("x-goog-api-key").find(kGatewayKey), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, RejectedLastCandidate, ::testing::ValuesIn(kAllProtocols),
                         [](auto const& info) { return shortName(info.param); });

// ---------------------------------------------------------------------------------------------
// Every key paused: 429 with retry-after, without asking any upstream.

class AllKeysPaused : public FailoverKeys, public ::testing::WithParamInterface<Protocol> {};

TEST_P(AllKeysPaused, AnswersA429WithRetryAfter) {
  Protocol protocol = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto solo = channel("solo", protocol, mock->baseUrl(), {"k-solo"}, 0);
  solo.headers = {{"x-mock-fault", "429=5"}};
  auto gateway = startGateway(gatewayConfig({solo}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(protocol, false);

  // The only key gets a 429: as the last candidate, its answer is relayed.
  auto first = callGateway(gateway->port, call, "fo-paused-1");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->status(), 429);
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u);
  EXPECT_EQ(first->body, (*journal)[0].response_body);
  if (protocol != Protocol::Gemini) {
    EXPECT_EQ(first->header("retry-after"), "5");
  }

  auto second = callGateway(gateway->port, call, "fo-paused-2");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->status(), 429) << second->body;
  auto message = errorMessageOf(protocol, 429, second->body);
  EXPECT_TRUE(message.ok()) << message.error().message;
  std::string retry_after(second->header("retry-after"));
  ASSERT_FALSE(retry_after.empty());
  int seconds = std::stoi(retry_after);
  if (protocol == Protocol::Gemini) {
    // Google puts the delay in the body only (RetryInfo); without a header the default applies.
    EXPECT_GE(seconds, 4);
    EXPECT_LE(seconds, 30);
  } else {
    EXPECT_GE(seconds, 4);
    EXPECT_LE(seconds, 5);
  }
  auto after = fetchJournal(mock->port);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->size(), 1u) << "a paused key was used";
  auto line = waitForAccessLine(accessLog(), "fo-paused-2");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempts").as_int64(), 0);
  EXPECT_EQ(line->at("status").as_int64(), 429);
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, AllKeysPaused, ::testing::ValuesIn(kAllProtocols),
                         [](auto const& info) { return shortName(info.param); });

}  // namespace
}  // namespace llmux::e2e
