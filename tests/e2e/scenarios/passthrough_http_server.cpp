// The client-facing HTTP/1.1 server: keep-alive, chunked request bodies, Expect: 100-continue,
// body and header limits, malformed heads, large bodies and read timeouts.
#include <gtest/gtest.h>

#include <thread>

#include "e2e/support/e2e_test.h"
#include "passthrough_support.h"

namespace llmux::e2e {
namespace {

using namespace passthrough;

constexpr std::size_t kMiB = 1024 * 1024;

std::string chunk(std::string_view data) {
  char size[16];
  std::snprintf(size, sizeof size, "%zx", data.size());  // lower-case hex, as curl writes it
  return std::string(size) + "\r\n" + std::string(data) + "\r\n";
}

/// The request head alone, with the given framing headers added to the client's.
std::string headOnly(std::string_view target, HeaderList headers, std::uint16_t port) {
  return formatRequest("POST", target, headers, {}, port);
}

double msSince(MonoTime start) {
  return std::chrono::duration<double, std::milli>(MonoClock::now() - start).count();
}

TEST_F(E2eTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;

  struct Step {
    Protocol protocol;
    bool stream;
  };
  std::vector<Step> steps = {{Protocol::OpenAiChat, false},
                             {Protocol::Anthropic, true},
                             {Protocol::Gemini, false},
                             {Protocol::OpenAiResponses, true},
                             {Protocol::OpenAiChat, true}};
  std::vector<std::string> bodies;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Lane const& l = lane(steps[i].protocol);
    auto response = client->request(
        "POST", generationTarget(l.protocol, l.model, steps[i].stream), clientHeaders(l.protocol),
        minimalBody(l.protocol, l.model, steps[i].stream, "request " + std::to_string(i)));
    ASSERT_TRUE(response.ok()) << "request " << i << ": " << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    EXPECT_NE(response->header("connection"), "close");
    bodies.push_back(response->body);
    // A request that is not forwarded in between, on the same connection.
    auto models = client->request("GET", "/v1/models", clientHeaders(Protocol::OpenAiChat));
    ASSERT_TRUE(models.ok()) << models.error().message;
    EXPECT_EQ(models->status(), 200);
  }
  EXPECT_TRUE(client->isOpen());
  auto journal = waitForJournal(mock->port, steps.size());
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ((*journal)[i].response_body, bodies[i]) << "request " << i;
  }
}

TEST_F(E2eTest, ChunkedRequestBodySentInOddPiecesIsForwardedIntact) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& l = lane(Protocol::Anthropic);
  std::string body = minimalBody(Protocol::Anthropic, l.alias, true,
                                 "chunked \xe2\x9c\x93 body with enough text to split in pieces");
  std::string expected = body;
  expected.replace(expected.find("\"" + l.alias + "\""), l.alias.size() + 2,
                   "\"" + l.alias_target + "\"");

  // Chunks of 1, 7, 26 (hex "1a") and the rest bytes, then the wire bytes cut at odd places (in
  // the middle of a chunk-size line, of the data and of a CRLF) with pauses in between.
  std::string wire;
  std::size_t at = 0;
  for (std::size_t size : {std::size_t{1}, std::size_t{7}, std::size_t{26}}) {
    wire += chunk(body.substr(at, size));
    at += size;
  }
  wire += chunk(body.substr(at)) + "0\r\n\r\n";
  HeaderList headers = clientHeaders(Protocol::Anthropic);
  headers.add("Transfer-Encoding", "chunked");

  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client->sendRaw(headOnly("/v1/messages", headers, gateway->port)).ok());
  std::vector<std::size_t> cuts = {1, 5, 9, 14, 40, 41, wire.size() - 3, wire.size() - 1};
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    ASSERT_TRUE(client->sendRaw(wire.substr(from, cut - from)).ok());
    from = cut;
    std::this_thread::sleep_for(Millis(15));  // separate TCP segments
  }
  ASSERT_TRUE(client->sendRaw(wire.substr(from)).ok());
  auto response = client->readResponse();
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;

  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->front().body, expected);
  EXPECT_EQ(journal->front().headers.get("content-length"), std::to_string(expected.size()));
  EXPECT_FALSE(journal->front().headers.has("transfer-encoding"));
  EXPECT_EQ(response->body, journal->front().response_body);
}

TEST_F(E2eTest, ExpectContinueGetsAnInterim100BeforeTheBodyIsSent) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& l = lane(Protocol::OpenAiChat);
  std::string body = minimalBody(Protocol::OpenAiChat, l.model, false, "after the 100");
  HeaderList headers = clientHeaders(Protocol::OpenAiChat);
  headers.add("Expect", "100-continue");
  headers.add("Content-Length", std::to_string(body.size()));

  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client->sendRaw(headOnly("/v1/chat/completions", headers, gateway->port)).ok());
  auto interim = client->readHead(Millis(3'000));
  ASSERT_TRUE(interim.ok()) << interim.error().message;
  EXPECT_EQ(interim->status, 100);
  EXPECT_EQ(interim->raw, "HTTP/1.1 100 Continue\r\n\r\n");

  ASSERT_TRUE(client->sendRaw(body).ok());
  auto response = client->readResponse();
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->front().body, body);
  EXPECT_FALSE(journal->front().headers.has("expect"));
  EXPECT_EQ(response->body, journal->front().response_body);
}

// A body declared over the default 32 MiB limit is refused from its head alone, in the shape of
// the protocol the path belongs to; nothing reaches the upstream.
TEST_F(E2eTest, BodyOverTheDefaultLimitGets413FromItsHeadAlone) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (Protocol protocol : kAllProtocols) {
    SCOPED_TRACE(std::string(protocolName(protocol)));
    HeaderList headers = clientHeaders(protocol);
    headers.add("Content-Length", std::to_string(33 * kMiB));
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    std::string target = generationTarget(protocol, lane(protocol).model, false);
    ASSERT_TRUE(client->sendRaw(headOnly(target, headers, gateway->port)).ok());
    auto response = client->readResponse(Millis(3'000));
    ASSERT_TRUE(response.ok()) << response.error().message;
    ErrorBody error;
    EXPECT_TRUE(isProtocolError(protocol, 413, *response, &error));
    if (protocol == Protocol::Anthropic) {
      EXPECT_EQ(error.type, "request_too_large");
    }
    EXPECT_NE(error.message.find(std::to_string(33 * kMiB)), std::string::npos) << error.message;
    EXPECT_TRUE(client->waitForClose(Millis(3'000)).ok());
  }
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_TRUE(journal->empty());
}

// `server.max_body_bytes` is exact: a body of the limit passes, one byte more is refused, and a
// chunked body is refused as soon as it grows past the limit.
TEST_F(E2eTest, ConfiguredBodyLimitIsExactAndAppliesToChunkedBodies) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = laneConfig(mock->port);
  config.extra_yaml = "server:\n  max_body_bytes: 4096\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& l = lane(Protocol::OpenAiChat);

  std::size_t base = minimalBody(Protocol::OpenAiChat, l.model, false, "").size();
  std::string at_limit =
      minimalBody(Protocol::OpenAiChat, l.model, false, std::string(4096 - base, 'x'));
  ASSERT_EQ(at_limit.size(), 4096u);
  auto ok = call(gateway->port, "POST", "/v1/chat/completions", clientHeaders(Protocol::OpenAiChat),
                 at_limit);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->status(), 200) << ok->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->front().body, at_limit);

  {  // one byte over, declared: refused before the body is read
    HeaderList headers = clientHeaders(Protocol::Anthropic);
    headers.add("Content-Length", "4097");
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    ASSERT_TRUE(client->sendRaw(headOnly("/v1/messages", headers, gateway->port)).ok());
    auto response = client->readResponse(Millis(3'000));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_TRUE(isProtocolError(Protocol::Anthropic, 413, *response));
  }
  {  // chunked: 3000 bytes, then a chunk announcing 3000 more
    HeaderList headers = clientHeaders(Protocol::OpenAiChat);
    headers.add("Transfer-Encoding", "chunked");
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    ASSERT_TRUE(client->sendRaw(headOnly("/v1/chat/completions", headers, gateway->port)).ok());
    ASSERT_TRUE(client->sendRaw(chunk(at_limit.substr(0, 3000))).ok());
    ASSERT_TRUE(client->sendRaw("bb8\r\n").ok());
    auto response = client->readResponse(Millis(3'000));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_TRUE(isProtocolError(Protocol::OpenAiChat, 413, *response));
  }
  journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->size(), 1u);
}

// A request head over the 64 KiB default gets 431 and the connection closes.
TEST_F(E2eTest, HugeHeaderGets431) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (Protocol protocol : {Protocol::OpenAiChat, Protocol::Anthropic}) {
    SCOPED_TRACE(std::string(protocolName(protocol)));
    HeaderList headers = clientHeaders(protocol);
    headers.add("X-Big", std::string(70 * 1024, 'h'));
    std::string body = minimalBody(protocol, lane(protocol).model, false);
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    ASSERT_TRUE(
        client
            ->sendRaw(formatRequest("POST", generationTarget(protocol, lane(protocol).model, false),
                                    headers, body, gateway->port))
            .ok());
    auto response = client->readResponse(Millis(3'000));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_TRUE(isProtocolError(protocol, 431, *response));
  }
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_TRUE(journal->empty());
}

TEST_F(E2eTest, MalformedHeadGets400AndTheConnectionCloses) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (std::string head : {
           std::string("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "this line has no colon\r\n\r\n"),
           std::string("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "Content-Length: twelve\r\n\r\n"),
           std::string("\x01\x02 not http at all\r\n\r\n"),
       }) {
    SCOPED_TRACE(head);
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    ASSERT_TRUE(client->sendRaw(head).ok());
    auto response = client->readResponse(Millis(3'000));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_TRUE(isProtocolError(Protocol::OpenAiChat, 400, *response));
    EXPECT_TRUE(client->waitForClose(Millis(3'000)).ok());
  }
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_TRUE(journal->empty());
}

// A 20 MiB JSON body (one big string with escapes in it) reaches the upstream intact.
TEST_F(E2eTest, TwentyMiBBodyPassesThroughIntact) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& l = lane(Protocol::OpenAiChat);

  std::string text;
  text.reserve(20 * kMiB);
  std::uint32_t state = 12345;
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 .,;";
  while (text.size() < 20 * kMiB) {
    state = state * 1664525u + 1013904223u;
    text.push_back(kAlphabet[(state >> 24) % (sizeof kAlphabet - 1)]);
    if (text.size() % 4096 == 0) text += "\\u00e9\\n\\\"";
  }
  std::string body = "{\"model\":\"" + l.alias +
                     "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
  std::string expected = "{\"model\":\"" + l.alias_target + "\"" + body.substr(l.alias.size() + 11);

  auto response = call(gateway->port, "POST", "/v1/chat/completions",
                       clientHeaders(Protocol::OpenAiChat), body, Millis(30'000));
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body.substr(0, 300);
  auto journal = waitForJournal(mock->port, 1, Millis(20'000));
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::string const& received = journal->front().body;
  EXPECT_EQ(received.size(), expected.size());
  EXPECT_EQ(fnv1a(received), fnv1a(expected));
  EXPECT_TRUE(received == expected) << "the forwarded body differs (sizes " << received.size()
                                    << " and " << expected.size() << ")";
  EXPECT_EQ(response->body, journal->front().response_body);
}

/// How the server ended a connection that a test left hanging: after how long, and whether it
/// said something first (a 408, say) or just closed.
struct Ending {
  double after_ms = 0;
  int status = 0;  ///< 0 when it closed without an answer
  std::string body;
};

Result<Ending> waitForServerToEnd(HttpClient& client, MonoTime since) {
  auto response = client.readResponse(Millis(5'000));
  Ending ending;
  if (response.ok()) {
    ending.status = response->status();
    ending.body = response->body;
    auto closed = client.waitForClose(Millis(2'000));
    if (!closed.ok()) return closed.error();
  } else if (response.error().kind != ErrorKind::Cancelled) {
    return response.error();
  }
  ending.after_ms = msSince(since);
  return ending;
}

GatewayConfig shortTimeouts(std::uint16_t mock_port) {
  GatewayConfig config = laneConfig(mock_port);
  config.extra_yaml =
      "server:\n  header_timeout_ms: 400\n  body_timeout_ms: 400\n  keepalive_timeout_ms: 400\n";
  return config;
}

TEST_F(E2eTest, ReadTimeoutsCloseStalledConnections) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(shortTimeouts(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& l = lane(Protocol::OpenAiChat);
  std::string body = minimalBody(Protocol::OpenAiChat, l.model, false);

  {  // a head that never ends
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    MonoTime start = MonoClock::now();
    ASSERT_TRUE(client->sendRaw("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n").ok());
    auto ending = waitForServerToEnd(*client, start);
    ASSERT_TRUE(ending.ok()) << ending.error().message;
    EXPECT_GE(ending->after_ms, 300.0);
    EXPECT_LE(ending->after_ms, 2'500.0);
    EXPECT_TRUE(ending->status == 0 || ending->status == 408) << ending->status;
  }
  {  // a body that stops halfway
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    HeaderList headers = clientHeaders(Protocol::OpenAiChat);
    headers.add("Content-Length", std::to_string(body.size()));
    ASSERT_TRUE(
        client
            ->sendRaw(headOnly("/v1/chat/completions", headers, gateway->port) + body.substr(0, 10))
            .ok());
    MonoTime start = MonoClock::now();
    auto ending = waitForServerToEnd(*client, start);
    ASSERT_TRUE(ending.ok()) << ending.error().message;
    EXPECT_GE(ending->after_ms, 300.0);
    EXPECT_LE(ending->after_ms, 2'500.0);
    // The client is told why, in its protocol's error shape, before the connection closes.
    EXPECT_EQ(ending->status, 408);
    EXPECT_NE(ending->body.find("\"error\""), std::string::npos) << ending->body;
    EXPECT_NE(ending->body.find("did not arrive in time"), std::string::npos) << ending->body;
  }
  {  // an idle kept-alive connection after a complete exchange
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    auto response =
        client->request("POST", "/v1/chat/completions", clientHeaders(Protocol::OpenAiChat), body);
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200);
    MonoTime start = MonoClock::now();
    ASSERT_TRUE(client->waitForClose(Millis(3'000)).ok());
    EXPECT_GE(msSince(start), 300.0);
  }
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->size(), 1u);
}

// The body timeout bounds the pause between two reads, not the whole upload: a body trickling in
// slower than the timeout in total, but never pausing that long, is served.
TEST_F(E2eTest, SlowButSteadyBodyIsServed) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(shortTimeouts(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& l = lane(Protocol::OpenAiChat);
  std::string body = minimalBody(Protocol::OpenAiChat, l.model, false, "trickled in slowly");
  HeaderList headers = clientHeaders(Protocol::OpenAiChat);
  headers.add("Content-Length", std::to_string(body.size()));

  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  MonoTime start = MonoClock::now();
  ASSERT_TRUE(client->sendRaw(headOnly("/v1/chat/completions", headers, gateway->port)).ok());
  std::size_t piece = body.size() / 6 + 1;
  for (std::size_t at = 0; at < body.size(); at += piece) {
    std::this_thread::sleep_for(Millis(150));
    ASSERT_TRUE(client->sendRaw(body.substr(at, piece)).ok());
  }
  EXPECT_GE(msSince(start), 800.0);  // longer than the 400 ms body timeout in total
  auto response = client->readResponse();
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->front().body, body);
}

}  // namespace
}  // namespace llmux::e2e
