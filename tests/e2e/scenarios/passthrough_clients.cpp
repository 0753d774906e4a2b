// Requests captured from real clients (Claude Code, Codex CLI, Gemini CLI) go through llmux
// unchanged: body, query string and end-to-end headers; only the credentials are swapped for the
// channel's key, and hop-by-hop headers stop at the gateway.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/strings.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/scripted_server.h"
#include "passthrough_support.h"

namespace llmux::e2e {
namespace {

using namespace passthrough;

std::string clientFixture(std::string_view name) {
  auto dir = std::filesystem::path(LLMUX_TEST_DATA_DIR) / "fixtures" / "clients";
  return readFileBytes((dir / std::string(name)).string());
}

/// A captured request: what the client sent, ready to replay.
struct Capture {
  std::string method;
  std::string path;
  std::string query;   ///< "beta=true", "alt=sse" or ""
  HeaderList headers;  ///< as captured, minus host and content-length
  std::string body;    ///< the captured JSON body, serialized
};

Capture loadCapture(std::string_view name) {
  Capture capture;
  auto doc = parseJson(clientFixture(name));
  if (!doc || !doc->is_object()) return capture;
  auto const& o = doc->as_object();
  capture.method = o.at("method").as_string();
  capture.path = o.at("path").as_string();
  for (auto const& q : o.at("query").as_object()) {
    if (!capture.query.empty()) capture.query += "&";
    capture.query += std::string(q.key()) + "=" + std::string(q.value().as_string());
  }
  for (auto const& h : o.at("headers").as_object()) {
    if (h.key() == "host" || h.key() == "content-length") continue;
    capture.headers.add(h.key(), h.value().as_string());
  }
  capture.body = json::serialize(o.at("body"));
  return capture;
}

/// Headers that stop at the gateway, added to every replayed request. The Connection header
/// names one of them, which makes it hop-by-hop too.
HeaderList hopByHopHeaders() {
  HeaderList h;
  h.add("Connection", "keep-alive, X-Hop-Trace, Upgrade");
  h.add("X-Hop-Trace", "only-for-the-next-hop");
  h.add("Keep-Alive", "timeout=30");
  h.add("TE", "trailers");
  h.add("Upgrade", "websocket");
  h.add("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0");
  h.add("Proxy-Connection", "keep-alive");
  return h;
}

/// Replays `capture` through the gateway with the gateway key in `credential_header` and checks
/// what the upstream (the mock) received and what the client got back.
void replayThroughGateway(std::uint16_t gateway_port, std::uint16_t mock_port,
                          Capture const& capture, std::string_view credential_header,
                          Protocol protocol) {
  ASSERT_FALSE(capture.body.empty()) << "the capture could not be read";
  ASSERT_TRUE(capture.headers.has(credential_header));
  HeaderList headers;
  for (auto const& f : capture.headers) {
    if (equalsIgnoreCase(f.name, "connection")) continue;  // replaced by the hop-by-hop set
    if (equalsIgnoreCase(f.name, credential_header)) {
      bool bearer = equalsIgnoreCase(credential_header, "authorization");
      headers.add(f.name, bearer ? "Bearer " + std::string(kGatewayKey) : std::string(kGatewayKey));
      continue;
    }
    headers.add(f.name, f.value);
  }
  for (auto const& f : hopByHopHeaders()) headers.add(f.name, f.value);

  std::string target = capture.path + (capture.query.empty() ? "" : "?" + capture.query);
  auto response = call(gateway_port, capture.method, target, headers, capture.body);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;

  auto journal = waitForJournal(mock_port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u);
  JournalEntry const& entry = journal->front();
  EXPECT_EQ(entry.method, capture.method);
  EXPECT_EQ(entry.path, capture.path);
  EXPECT_EQ(entry.query, capture.query);
  EXPECT_EQ(entry.body, capture.body);
  EXPECT_EQ(response->body, entry.response_body);

  // End-to-end headers arrive with their values. Accept-Encoding is the gateway's own business
  // (it relays bytes, so it negotiates no encoding it would have to undo).
  for (auto const& f : capture.headers) {
    if (equalsIgnoreCase(f.name, credential_header) || equalsIgnoreCase(f.name, "connection") ||
        equalsIgnoreCase(f.name, "accept-encoding")) {
      continue;
    }
    EXPECT_EQ(headerCount(entry.headers, f.name), 1u) << f.name;
    EXPECT_EQ(entry.headers.get(f.name), f.value) << f.name;
  }
  for (auto const& f : hopByHopHeaders()) {
    EXPECT_FALSE(entry.headers.has(f.name)) << f.name << " was forwarded";
  }

  // The channel's key, in the protocol's own header, and nothing else of the client's.
  Lane const& l = lane(protocol);
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses:
      EXPECT_EQ(entry.headers.get("authorization"), "Bearer " + l.channel_key);
      EXPECT_FALSE(entry.headers.has("x-api-key"));
      break;
    case Protocol::Anthropic:
      EXPECT_EQ(entry.headers.get("x-api-key"), l.channel_key);
      EXPECT_EQ(headerCount(entry.headers, "x-api-key"), 1u);
      EXPECT_FALSE(entry.headers.has("authorization"));
      break;
    case Protocol::Gemini:
      EXPECT_EQ(entry.headers.get("x-goog-api-key"), l.channel_key);
      EXPECT_EQ(headerCount(entry.headers, "x-goog-api-key"), 1u);
      EXPECT_FALSE(entry.headers.has("authorization"));
      break;
  }
  std::vector<std::string> gateway_secret{std::string(kGatewayKey)};
  for (auto const& f : entry.headers) {
    EXPECT_TRUE(holdsNoSecret("upstream header " + std::string(f.name), f.value, gateway_secret));
  }
  EXPECT_TRUE(holdsNoSecret("upstream path", entry.path + "?" + entry.query, gateway_secret));
  EXPECT_TRUE(holdsNoSecret("upstream body", entry.body, gateway_secret));

  // The request id llmux made up went upstream and came back.
  std::string_view request_id = response->header("x-request-id");
  EXPECT_FALSE(request_id.empty());
  EXPECT_EQ(entry.headers.get("x-request-id"), request_id);
}

TEST_F(E2eTest, ClaudeCodeRequestGoesThroughUnchanged) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = laneConfig(mock->port);
  for (auto& channel : config.channels) channel.models.push_back("mock-basic");
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Capture capture = loadCapture("claude-cli.request.json");
  EXPECT_EQ(capture.query, "beta=true");
  EXPECT_TRUE(capture.headers.has("anthropic-beta"));
  EXPECT_TRUE(capture.headers.has("x-claude-code-session-id"));
  replayThroughGateway(gateway->port, mock->port, capture, "x-api-key", Protocol::Anthropic);
}

TEST_F(E2eTest, CodexRequestGoesThroughUnchanged) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = laneConfig(mock->port);
  for (auto& channel : config.channels) channel.models.push_back("mock-basic");
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Capture capture = loadCapture("codex-cli.request.json");
  EXPECT_TRUE(capture.headers.has("x-codex-turn-metadata"));
  replayThroughGateway(gateway->port, mock->port, capture, "authorization",
                       Protocol::OpenAiResponses);
}

TEST_F(E2eTest, GeminiCliRequestGoesThroughUnchanged) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = laneConfig(mock->port);
  for (auto& channel : config.channels) channel.models.push_back("mock-basic");
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Capture capture = loadCapture("gemini-cli.request.json");
  EXPECT_EQ(capture.query, "alt=sse");
  replayThroughGateway(gateway->port, mock->port, capture, "x-goog-api-key", Protocol::Gemini);
}

// A Gemini client with its key in the query string: the key is taken out, the rest of the query
// stays, and the upstream gets the channel's key in its header.
TEST_F(E2eTest, GatewayKeyInTheQueryStringIsNotForwarded) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  HeaderList headers = clientHeaders(Protocol::Gemini, "");
  std::string body = minimalBody(Protocol::Gemini, "", true);
  auto response = call(gateway->port, "POST",
                       "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=" +
                           std::string(kGatewayKey) + "&$fields=candidates",
                       headers, body);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->front().query, "alt=sse&$fields=candidates");
  EXPECT_EQ(journal->front().headers.get("x-goog-api-key"), lane(Protocol::Gemini).channel_key);
  EXPECT_EQ(journal->front().body, body);
  EXPECT_EQ(response->body, journal->front().response_body);
}

// A client's X-Request-Id is kept: sent upstream and echoed back. Without one, each request gets
// its own fresh id, the same upstream and back.
TEST_F(E2eTest, RequestIdIsKeptOrGeneratedAndSentBothWays) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::vector<std::string> seen;
  for (Protocol protocol : kAllProtocols) {
    SCOPED_TRACE(std::string(protocolName(protocol)));
    Lane const& l = lane(protocol);
    for (bool given : {true, false}) {
      ASSERT_TRUE(clearJournal(mock->port).ok());
      HeaderList headers = clientHeaders(protocol);
      std::string id = "client-req-" + std::string(protocolName(protocol)) + "-42";
      if (given) headers.add("X-Request-Id", id);
      auto response = call(gateway->port, "POST", generationTarget(protocol, l.model, false),
                           headers, minimalBody(protocol, l.model, false));
      ASSERT_TRUE(response.ok()) << response.error().message;
      ASSERT_EQ(response->status(), 200) << response->body;
      auto journal = waitForJournal(mock->port, 1);
      ASSERT_TRUE(journal.ok()) << journal.error().message;
      EXPECT_EQ(headerCount(response->head.headers, "x-request-id"), 1u);
      EXPECT_EQ(headerCount(journal->front().headers, "x-request-id"), 1u);
      std::string echoed(response->header("x-request-id"));
      EXPECT_EQ(journal->front().headers.get("x-request-id"), echoed);
      if (given) {
        EXPECT_EQ(echoed, id);
      } else {
        EXPECT_GE(echoed.size(), 16u);
        EXPECT_EQ(std::find(seen.begin(), seen.end(), echoed), seen.end()) << "reused " << echoed;
        seen.push_back(echoed);
      }
    }
  }
}

// The upstream's own x-request-id comes back renamed x-upstream-request-id; the client's
// X-Request-Id is the gateway's. Checked against an upstream whose bytes are fixed.
TEST_F(E2eTest, UpstreamRequestIdComesBackAsXUpstreamRequestId) {
  std::string body = minimalBody(Protocol::OpenAiChat, "gpt-4o-mini", false);
  std::string answer = "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion\",\"choices\":[]}";
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(body.size());
  upstream
      .send(
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-request-id: "
          "req_upstream_7a1\r\nopenai-processing-ms: 12\r\nContent-Length: " +
          std::to_string(answer.size()) + "\r\n\r\n" + answer)
      .start();
  GatewayConfig config;
  config.gateway_keys = {{std::string(kGatewayKeyName), std::string(kGatewayKey)}};
  config.channels = {laneChannel(lane(Protocol::OpenAiChat), upstream.port())};
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  HeaderList headers = clientHeaders(Protocol::OpenAiChat);
  headers.add("X-Request-Id", "trace-abc-123");
  auto response = call(gateway->port, "POST", "/v1/chat/completions", headers, body);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_TRUE(upstream.finish(Millis(3'000)).ok());
  ASSERT_EQ(response->status(), 200);
  EXPECT_EQ(response->body, answer);
  EXPECT_EQ(response->header("x-upstream-request-id"), "req_upstream_7a1");
  EXPECT_EQ(headerCount(response->head.headers, "x-request-id"), 1u);
  EXPECT_EQ(response->header("x-request-id"), "trace-abc-123");
  EXPECT_EQ(response->header("openai-processing-ms"), "12");

  // What the upstream received, byte for byte where it matters.
  std::string received = upstream.received(0);
  auto head_end = received.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos);
  std::string head = received.substr(0, head_end + 2);
  EXPECT_TRUE(head.starts_with("POST /v1/chat/completions HTTP/1.1\r\n")) << head;
  EXPECT_NE(head.find("\r\nX-Request-Id: trace-abc-123\r\n"), std::string::npos) << head;
  EXPECT_NE(
      head.find("\r\nAuthorization: Bearer " + lane(Protocol::OpenAiChat).channel_key + "\r\n"),
      std::string::npos)
      << head;
  EXPECT_NE(head.find("\r\nContent-Length: " + std::to_string(body.size()) + "\r\n"),
            std::string::npos)
      << head;
  EXPECT_EQ(head.find(std::string(kGatewayKey)), std::string::npos) << head;
  EXPECT_EQ(received.substr(head_end + 4), body);
}

}  // namespace
}  // namespace llmux::e2e
