// Fallback chains end to end: a chain that loops is walked once (a visited set), the capability
// gate skips a fallback known to lack tools for a tool request (never the model asked for), an
// X-Channel pin or "channel/model" naming allows no other channel, and the route preview shows
// the plan without calling any upstream.
#include <gtest/gtest.h>

#include <regex>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;

class RoutingFallbacks : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }

  static ChannelSpec serving(std::string name, std::string const& url, std::vector<std::string> models,
                             bool failing, int priority = 0) {
    ChannelSpec c;
    c.name = std::move(name);
    c.protocol = Protocol::OpenAiChat;
    c.base_url = url;
    c.keys = {"k-" + c.name};
    c.models = std::move(models);
    c.priority = priority;
    if (failing) c.headers = {{"x-mock-fault", "500"}};
    return c;
  }
};

TEST_F(RoutingFallbacks, ALoopingChainIsWalkedOnceAndEachHopTriedOnce) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = gatewayConfig({serving("ca", mock->baseUrl(), {"m-a"}, true),
                                        serving("cb", mock->baseUrl(), {"m-b"}, true),
                                        serving("cc", mock->baseUrl(), {"m-c"}, false)},
                                       accessLog());
  config.extra_yaml += "fallbacks:\n  m-a: [m-b]\n  m-b: [m-a, m-c]\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto answer = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, "m-a"), "fb-loop");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status(), 200) << answer->body;
  EXPECT_EQ(attemptsOf(accessLog(), "fb-loop"),
            (std::vector<Attempt>{{"ca", "m-a", 0, "failover:status_500"},
                                  {"cb", "m-b", 1, "failover:status_500"},
                                  {"cc", "m-c", 2, "ok"}}));
  auto metrics = fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metricValue(*metrics, "llmux_fallback_attempts_total", {{"depth", "1"}}), 1.0);
  EXPECT_EQ(metricValue(*metrics, "llmux_fallback_attempts_total", {{"depth", "2"}}), 1.0);
}

TEST_F(RoutingFallbacks, WhenEveryHopFailsEachIsTriedOnceAndTheClientGetsTheLastError) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = gatewayConfig({serving("ca", mock->baseUrl(), {"m-a"}, true),
                                        serving("cb", mock->baseUrl(), {"m-b"}, true)},
                                       accessLog());
  config.extra_yaml += "fallbacks:\n  m-a: [m-b]\n  m-b: [m-a]\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto answer = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, "m-a"), "fb-all");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status(), 500) << answer->body;
  EXPECT_TRUE(errorMessageOf(Protocol::OpenAiChat, 500, answer->body).ok()) << answer->body;
  EXPECT_EQ(attemptsOf(accessLog(), "fb-all"),
            (std::vector<Attempt>{{"ca", "m-a", 0, "failover:status_500"},
                                  {"cb", "m-b", 1, "failed:status_500"}}));
  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok());
  EXPECT_EQ(journal->size(), 2u);
}

TEST_F(RoutingFallbacks, TheRetryBudgetCapsAttemptsAndTheirDeadline) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = gatewayConfig({serving("ca", mock->baseUrl(), {"m-a"}, true, 3),
                                        serving("cb", mock->baseUrl(), {"m-a"}, true, 2),
                                        serving("cc", mock->baseUrl(), {"m-a"}, false, 1)},
                                       accessLog());
  config.extra_yaml += "retry: {max_attempts: 2}\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto capped = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, "m-a"), "budget-n");
  ASSERT_TRUE(capped.ok()) << capped.error().message;
  // The second attempt was the last one allowed: its own error reaches the client.
  EXPECT_EQ(capped->status(), 500) << capped->body;
  EXPECT_EQ(attemptsOf(accessLog(), "budget-n"),
            (std::vector<Attempt>{{"ca", "m-a", 0, "failover:status_500"},
                                  {"cb", "m-a", 0, "failed:status_500"}}));

  // No attempt starts after the deadline, and none waits past it for its answer: the slow first
  // answer (400 ms) is cut at the deadline (200 ms) and the request ends with 504.
  gateway->process->kill();
  GatewayConfig slow = gatewayConfig({serving("ca", mock->baseUrl(), {"m-a"}, false, 3),
                                      serving("cc", mock->baseUrl(), {"m-a"}, false, 1)},
                                     accessLog());
  slow.channels[0].headers = {{"x-mock-fault", "slow-first-byte=400, 500"}};
  slow.extra_yaml += "retry: {deadline_ms: 200}\n";
  auto late = startGateway(slow);
  ASSERT_TRUE(late.ok()) << late.error().message;
  MonoTime start = MonoClock::now();
  auto answer = callGateway(late->port, clientCall(Protocol::OpenAiChat, false, "m-a"), "budget-t");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_LT(millisBetween(start, MonoClock::now()), 380)
      << "the answer past the deadline was awaited";
  EXPECT_EQ(answer->status(), 504) << answer->body;
  EXPECT_EQ(answer->header("x-llmux-attempts"), "1");
  EXPECT_EQ(attemptsOf(accessLog(), "budget-t"),
            (std::vector<Attempt>{{"ca", "m-a", 0, "failed:deadline"}}));
}

TEST_F(RoutingFallbacks, CapabilityGateSkipsAFallbackWithoutToolsForAToolRequestOnly) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  ChannelSpec no_tools = serving("cn", mock->baseUrl(), {"m-notools"}, false);
  no_tools.extra_yaml = "capabilities:\n  m-notools: {tools: false}\n";
  GatewayConfig config = gatewayConfig(
      {serving("cm", mock->baseUrl(), {"m-main"}, true),
       // The built-in table knows this one has no function calling.
       serving("ci", mock->baseUrl(), {"gpt-3.5-turbo-instruct"}, false), no_tools,
       serving("ct", mock->baseUrl(), {"m-tools"}, false)},
      accessLog());
  config.extra_yaml += "fallbacks:\n  m-main: [gpt-3.5-turbo-instruct, m-notools, m-tools]\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto with_tools = callGateway(gateway->port, chatCallWithTool("m-main"), "gate-tools");
  ASSERT_TRUE(with_tools.ok()) << with_tools.error().message;
  EXPECT_EQ(with_tools->status(), 200) << with_tools->body;
  EXPECT_EQ(attemptsOf(accessLog(), "gate-tools"),
            (std::vector<Attempt>{{"cm", "m-main", 0, "failover:status_500"},
                                  // The depth is the place in the chain: the two before were gated.
                                  {"ct", "m-tools", 3, "ok"}}));

  auto plain = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, "m-main"), "gate-plain");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->status(), 200) << plain->body;
  EXPECT_EQ(attemptsOf(accessLog(), "gate-plain"),
            (std::vector<Attempt>{{"cm", "m-main", 0, "failover:status_500"},
                                  {"ci", "gpt-3.5-turbo-instruct", 1, "ok"}}));

  // The model the client asked for is never gated.
  auto asked = callGateway(gateway->port, chatCallWithTool("m-notools"), "gate-asked");
  ASSERT_TRUE(asked.ok()) << asked.error().message;
  EXPECT_EQ(asked->status(), 200) << asked->body;
  EXPECT_EQ(attemptsOf(accessLog(), "gate-asked"),
            (std::vector<Attempt>{{"cn", "m-notools", 0, "ok"}}));
}

// The model asked for has no candidate of its own (its only channel is disabled) and its
// fallback lacks tools: a tool request is answered 400 in the client's shape saying which hop the
// gate ruled out and why, logged once and kept in the request's record; a plain request is served.
TEST_F(RoutingFallbacks, AChainTheCapabilityGateRulesOutEntirelyIsAnsweredWithItsReasons) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  ChannelSpec primary = serving("cm", mock->baseUrl(), {"m-main"}, false);
  primary.extra_yaml = "enabled: false\n";
  GatewayConfig config = gatewayConfig(
      {primary, serving("ci", mock->baseUrl(), {"gpt-3.5-turbo-instruct"}, false)}, accessLog());
  config.extra_yaml += "fallbacks:\n  m-main: [gpt-3.5-turbo-instruct]\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  std::string const reason = "gpt-3.5-turbo-instruct (ci): no tools";
  auto vetoed = callGateway(gateway->port, chatCallWithTool("m-main"), "gate-vetoed");
  ASSERT_TRUE(vetoed.ok()) << vetoed.error().message;
  EXPECT_EQ(vetoed->status(), 400) << vetoed->body;
  auto message = errorMessageOf(Protocol::OpenAiChat, 400, vetoed->body);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_NE(message->find("capability gate"), std::string::npos) << *message;
  EXPECT_NE(message->find(reason), std::string::npos) << *message;
  auto line = waitForAccessLine(accessLog(), "gate-vetoed");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_NE(std::string(line->at("error").as_string()).find(reason), std::string::npos)
      << boost::json::serialize(*line);
  EXPECT_EQ(line->at("attempts").as_int64(), 0);
  auto logged = gateway->process->waitForLineMatching(
      std::regex(".*gate-vetoed.*capability gate ruled out every candidate.*no tools.*"),
      Millis(3000), Stream::Stderr);
  EXPECT_TRUE(logged.ok()) << gateway->process->output(Stream::Stderr);

  // Anthropic's shape for an Anthropic client.
  auto anthropic = clientCall(Protocol::Anthropic, false, "m-main");
  anthropic.body =
      R"({"model":"m-main","max_tokens":64,"tools":[{"name":"get_weather",)"
      R"("input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"}]})";
  auto shaped = callGateway(gateway->port, anthropic);
  ASSERT_TRUE(shaped.ok()) << shaped.error().message;
  EXPECT_EQ(shaped->status(), 400) << shaped->body;
  auto anthropic_message = errorMessageOf(Protocol::Anthropic, 400, shaped->body);
  ASSERT_TRUE(anthropic_message.ok()) << anthropic_message.error().message;
  EXPECT_NE(anthropic_message->find(reason), std::string::npos) << *anthropic_message;

  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_TRUE(journal->empty()) << "no upstream is asked";
  auto plain =
      callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, "m-main"), "gate-ok");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->status(), 200) << plain->body;
  EXPECT_EQ(attemptsOf(accessLog(), "gate-ok"),
            (std::vector<Attempt>{{"ci", "gpt-3.5-turbo-instruct", 1, "ok"}}));
}

TEST_F(RoutingFallbacks, XChannelPinsOneChannelAndNoOtherIsTried) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = gatewayConfig({serving("p1", mock->baseUrl(), {kModel}, false, 10),
                                        serving("p2", mock->baseUrl(), {kModel}, false, 0),
                                        serving("p3", mock->baseUrl(), {kModel}, true, 0)},
                                       accessLog());
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(Protocol::OpenAiChat, false);
  call.headers.add("X-Channel", "p2");
  auto pinned = callGateway(gateway->port, call, "pin-ok");
  ASSERT_TRUE(pinned.ok()) << pinned.error().message;
  EXPECT_EQ(pinned->status(), 200);
  EXPECT_EQ(attemptsOf(accessLog(), "pin-ok"), (std::vector<Attempt>{{"p2", kModel, 0, "ok"}}));

  // A failing pinned channel is not failed over: the client asked for it.
  auto failing = clientCall(Protocol::OpenAiChat, false);
  failing.headers.add("X-Channel", "p3");
  auto failed = callGateway(gateway->port, failing, "pin-fail");
  ASSERT_TRUE(failed.ok()) << failed.error().message;
  EXPECT_EQ(failed->status(), 500);
  EXPECT_EQ(attemptsOf(accessLog(), "pin-fail"),
            (std::vector<Attempt>{{"p3", kModel, 0, "failed:status_500"}}));

  auto unknown = clientCall(Protocol::Anthropic, false);
  unknown.headers.add("X-Channel", "nope");
  auto refused = callGateway(gateway->port, unknown);
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status(), 400);
  auto message = errorMessageOf(Protocol::Anthropic, 400, refused->body);
  ASSERT_TRUE(message.ok()) << refused->body;
  EXPECT_NE(message->find("nope"), std::string::npos) << *message;

  // "channel/model" addresses one channel's model directly.
  auto named = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, std::string("p2/") + kModel),
                           "pin-named");
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->status(), 200) << named->body;
  EXPECT_EQ(attemptsOf(accessLog(), "pin-named"), (std::vector<Attempt>{{"p2", kModel, 0, "ok"}}));
}

TEST_F(RoutingFallbacks, RoutePreviewShowsTheOrderedCandidatesWithScoresWithoutCallingUpstreams) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = gatewayConfig({serving("p1", mock->baseUrl(), {kModel}, false, 10),
                                        serving("p2", mock->baseUrl(), {kModel}, false, 0)},
                                       accessLog());
  config.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n";
  config.gateway_keys[0].strategy = "";  // the default: intelligent
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  std::string request = R"({"path":"/v1/chat/completions","headers":{},"body":{"model":")" +
                        std::string(kModel) + R"(","messages":[{"role":"user","content":"hi"}]}})";
  auto preview = callGateway(gateway->port, adminCall("POST", "/admin/route-preview", request));
  ASSERT_TRUE(preview.ok()) << preview.error().message;
  ASSERT_EQ(preview->status(), 200) << preview->body;
  auto doc = parseObject(preview->body);
  ASSERT_TRUE(doc.ok()) << preview->body;
  EXPECT_EQ(doc->at("strategy").as_string(), "intelligent");
  auto const& candidates = doc->at("candidates").as_array();
  ASSERT_EQ(candidates.size(), 2u) << preview->body;
  for (auto const& value : candidates) {
    auto const& c = value.as_object();
    EXPECT_GT(c.at("score").as_double(), 0.0) << preview->body;
    for (char const* factor : {"headroom", "failures", "cooldown", "affinity", "billing", "yield",
                               "performance"}) {
      EXPECT_TRUE(c.at("factors").as_object().contains(factor)) << factor;
    }
    EXPECT_EQ(c.at("upstream_model").as_string(), kModel);
    EXPECT_EQ(c.at("translated").as_bool(), false);
  }

  std::string pinned = R"({"path":"/v1/chat/completions","headers":{"X-Channel":"p2"},"body":{"model":")" +
                       std::string(kModel) + R"(","messages":[{"role":"user","content":"hi"}]}})";
  auto one = callGateway(gateway->port, adminCall("POST", "/admin/route-preview", pinned));
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_EQ(one->status(), 200) << one->body;
  auto one_doc = parseObject(one->body);
  ASSERT_TRUE(one_doc.ok());
  ASSERT_EQ(one_doc->at("candidates").as_array().size(), 1u);
  EXPECT_EQ(one_doc->at("candidates").as_array()[0].as_object().at("channel").as_string(), "p2");

  auto bad = callGateway(gateway->port, adminCall("POST", "/admin/route-preview", "{\"path\":1}"));
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->status(), 400) << bad->body;

  // No upstream was called.
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok());
  EXPECT_TRUE(journal->empty());
}

}  // namespace
}  // namespace llmux::e2e
