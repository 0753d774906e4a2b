// HTTP framing with upstreams: interim (1xx) heads before the final answer, a refused protocol
// switch, and when a request on a pooled connection is (and is not) sent again.
#include <gtest/gtest.h>

#include <thread>

#include <cstdio>
#include <stdexcept>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/scripted_server.h"

namespace llmux::e2e {
namespace {

using namespace failover;

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view kEarlyHints =
    "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n";

std::string jsonAnswer(std::string_view body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

std::string chatAnswer(std::string_view text) {
  return R"({"id":"chatcmpl-framing","object":"chat.completion","model":"m-fail","choices":[)"
         R"({"index":0,"message":{"role":"assistant","content":")" +
         std::string(text) + R"("},"finish_reason":"stop"}]})";
}

std::string chunk(std::string_view data) {
  char size[16];
  std::snprintf(size, sizeof size, "%zx", data.size());
  return std::string(size) + "\r\n" + std::string(data) + "\r\n";
}

/// How many requests arrived on one connection of a scripted upstream.
std::size_t requestsIn(std::string const& received) {
  std::size_t count = 0;
  for (auto at = received.find("POST /"); at != std::string::npos;
       at = received.find("POST /", at + 1)) {
    ++count;
  }
  return count;
}

class FramingUpstream : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }

  /// The gateway with the scripted upstream as its only channel (OpenAI Chat unless told).
  Result<Server> gatewayFor(ScriptedServer const& upstream,
                                  Protocol protocol = Protocol::OpenAiChat) {
    auto only = channel("scripted", protocol, loopbackUrl(upstream.port()), {"k-scripted"});
    return startGateway(gatewayConfig({only}, accessLog()));
  }

  /// A keep-alive connection to the gateway: one worker serves it, so the requests sent on it
  /// share that worker's upstream pool.
  HttpClient clientOf(Server const& gateway) {
    auto client = HttpClient::connect(gateway.port);
    if (!client) throw std::runtime_error("cannot reach the gateway: " + client.error().message);
    return std::move(*client);
  }

  static Result<Response> callOn(HttpClient& client, ClientCall const& call,
                               std::string_view request_id) {
    HeaderList headers = call.headers;
    headers.add("X-Request-Id", request_id);
    return client.request(call.method, call.target, headers, call.body);
  }

  /// The request's access-log line: the client's status, and one attempt with this outcome (and
  /// the same status when it answered; a failed attempt has none).
  void expectLogged(std::string_view request_id, int status, std::string_view outcome) {
    auto line = waitForAccessLine(accessLog(), request_id);
    ASSERT_TRUE(line.ok()) << line.error().message;
    EXPECT_EQ(line->at("status").as_int64(), status) << *line;
    auto const& attempts = line->at("attempt_list").as_array();
    ASSERT_EQ(attempts.size(), 1u) << *line;
    EXPECT_EQ(attempts[0].at("status").as_int64(), outcome == "ok" ? status : 0) << *line;
    EXPECT_EQ(attempts[0].at("outcome").as_string(), outcome) << *line;
  }
};

TEST_F(FramingUpstream, InterimHeadsAreSkippedAndThePooledConnectionAnswersTheNextRequest) {
  auto call = clientCall(Protocol::OpenAiChat, false);
  std::string first = chatAnswer("first"), second = chatAnswer("second");
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(std::string(kContinue)).pause(Millis(50)).send(std::string(kEarlyHints));
  upstream.pause(Millis(50)).send(jsonAnswer(first));
  // The same connection, pooled: a second request, with a 100 Continue again.
  upstream.expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(std::string(kContinue) + jsonAnswer(second));
  upstream.start();
  auto gateway = gatewayFor(upstream);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = clientOf(*gateway);

  auto one = callOn(client, call, "framing-interim-1");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->status(), 200) << one->body;
  EXPECT_EQ(one->body, first);
  EXPECT_TRUE(one->interim.empty()) << "an upstream's interim head reached the client";
  EXPECT_EQ(one->header("link"), "");
  expectLogged("framing-interim-1", 200, "ok");

  auto two = callOn(client, call, "framing-interim-2");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->status(), 200) << two->body;
  EXPECT_EQ(two->body, second) << "the second request got a leftover of the first answer";
  expectLogged("framing-interim-2", 200, "ok");

  auto finished = upstream.finish(Millis(3'000));
  ASSERT_TRUE(finished.ok()) << finished.error().message;
  EXPECT_EQ(upstream.connections(), 1u);
  EXPECT_EQ(requestsIn(upstream.received(0)), 2u);
}

TEST_F(FramingUpstream, AnEventStreamAfterAContinueReachesTheClientIntact) {
  auto call = clientCall(Protocol::OpenAiChat, true);
  std::string events =
      "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m-fail\","
      "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n"
      "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m-fail\","
      "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n";
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(std::string(kContinue) + std::string(kEarlyHints));
  upstream.send(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
  upstream.send(chunk(events.substr(0, 100))).pause(Millis(30));
  upstream.send(chunk(events.substr(100)) + "0\r\n\r\n");
  upstream.start();
  auto gateway = gatewayFor(upstream);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = clientOf(*gateway);

  auto response = callOn(client, call, "framing-interim-sse");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  EXPECT_EQ(response->body, events);
  expectLogged("framing-interim-sse", 200, "ok");
  ASSERT_TRUE(upstream.finish(Millis(3'000)).ok());
}

TEST_F(FramingUpstream, SwitchingProtocolsIsA502AndTheConnectionIsNotReused) {
  auto call = clientCall(Protocol::Anthropic, false);
  std::string answer =
      R"({"id":"msg_1","type":"message","role":"assistant","model":"m-fail","content":)"
      R"([{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,)"
      R"("output_tokens":1}})";
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
  upstream.expectClose();  // the gateway closes it: never pooled
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(jsonAnswer(answer));
  upstream.start();
  auto gateway = gatewayFor(upstream, Protocol::Anthropic);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = clientOf(*gateway);

  auto refused = callOn(client, call, "framing-101");
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status(), 502) << refused->body;
  auto message = errorMessageOf(Protocol::Anthropic, 502, refused->body);
  EXPECT_TRUE(message.ok()) << message.error().message << ": " << refused->body;
  expectLogged("framing-101", 502, "failed:upstream_protocol");

  auto next = callOn(client, call, "framing-after-101");
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(next->status(), 200) << next->body;
  EXPECT_EQ(next->body, answer);
  ASSERT_TRUE(upstream.finish(Millis(3'000)).ok());
  EXPECT_EQ(upstream.connections(), 2u);
}

TEST_F(FramingUpstream, EndlessInterimHeadsAreAProtocolErrorWithoutWaitingForTheDeadline) {
  auto call = clientCall(Protocol::OpenAiChat, false);
  std::string hints;
  for (int i = 0; i < 9; ++i) hints += kEarlyHints;
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(hints).pause(Millis(3'000)).send(jsonAnswer(chatAnswer("too late")));
  upstream.start();
  auto gateway = gatewayFor(upstream);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = clientOf(*gateway);

  MonoTime start = MonoClock::now();
  auto response = callOn(client, call, "framing-endless-103");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 502) << response->body;
  EXPECT_TRUE(errorMessageOf(Protocol::OpenAiChat, 502, response->body).ok()) << response->body;
  EXPECT_LT(millisBetween(start, MonoClock::now()), 2'000);
  expectLogged("framing-endless-103", 502, "failed:upstream_protocol");
}

TEST_F(FramingUpstream, AnIdleConnectionTheUpstreamClosedIsReplacedByAFreshOne) {
  auto call = clientCall(Protocol::OpenAiChat, false);
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(jsonAnswer(chatAnswer("first"))).close();  // step 4: closed while idle
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(jsonAnswer(chatAnswer("second")));
  upstream.start();
  auto gateway = gatewayFor(upstream);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = clientOf(*gateway);

  auto one = callOn(client, call, "framing-idle-1");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->status(), 200) << one->body;
  ASSERT_TRUE(upstream.waitForSteps(5, Millis(3'000))) << "the upstream did not close";
  // Idle past the point where a pooled connection is probed before reuse (kProbeAfterIdle):
  // upstreams close connections idle for seconds, not milliseconds.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  auto two = callOn(client, call, "framing-idle-2");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->status(), 200) << two->body;
  EXPECT_EQ(two->body, chatAnswer("second"));
  expectLogged("framing-idle-2", 200, "ok");  // no failed attempt: not an upstream failure
  ASSERT_TRUE(upstream.finish(Millis(3'000)).ok());
  EXPECT_EQ(upstream.connections(), 2u);
  EXPECT_EQ(requestsIn(upstream.received(0)), 1u);
  EXPECT_EQ(requestsIn(upstream.received(1)), 1u);
}

TEST_F(FramingUpstream, ARequestWrittenOnAConnectionThatThenClosedIsNotSentAgain) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(call.body.size());
  upstream.send(jsonAnswer(chatAnswer("first")));
  // The second request arrives on the pooled connection, which then closes without a word.
  upstream.expect("\r\n\r\n").expectBytes(call.body.size()).close();
  upstream.expectNoConnection(Millis(1'500));
  upstream.start();
  auto scripted = channel("scripted", Protocol::OpenAiChat, loopbackUrl(upstream.port()),
                          {"k-scripted"}, 10);
  auto live = channel("live", Protocol::OpenAiChat, mock->baseUrl(), {"k-live"}, 0);
  auto gateway = startGateway(gatewayConfig({scripted, live}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = clientOf(*gateway);

  auto one = callOn(client, call, "framing-written-1");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->status(), 200) << one->body;
  EXPECT_EQ(one->body, chatAnswer("first"));

  // The failover decides: the next candidate answers.
  auto two = callOn(client, call, "framing-written-2");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->status(), 200) << two->body;
  auto line = waitForAccessLine(accessLog(), "framing-written-2");
  ASSERT_TRUE(line.ok()) << line.error().message;
  auto const& attempts = line->at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 2u) << *line;
  EXPECT_EQ(attempts[0].at("channel").as_string(), "scripted");
  EXPECT_EQ(attempts[0].at("outcome").as_string(), "failover:connect") << *line;
  EXPECT_EQ(attempts[1].at("channel").as_string(), "live");

  auto finished = upstream.finish(Millis(4'000));
  EXPECT_TRUE(finished.ok()) << finished.error().message;
  EXPECT_EQ(upstream.connections(), 1u) << "the written request was sent again";
  EXPECT_EQ(requestsIn(upstream.received(0)), 2u);
}

}  // namespace
}  // namespace llmux::e2e
