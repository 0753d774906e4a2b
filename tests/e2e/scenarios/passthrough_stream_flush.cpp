// Streamed answers are relayed as they arrive: every SSE event reaches the client before the
// upstream sends the next one, and even a partial event or a partial JSON body is not held back.
#include <gtest/gtest.h>

#include "e2e/support/e2e_test.h"
#include "e2e/support/scripted_server.h"
#include "e2e/support/sse_reader.h"
#include "passthrough_support.h"

namespace llmux::e2e {
namespace {

using namespace passthrough;

constexpr int kChunkDelayMs = 150;

double msBetween(MonoTime a, MonoTime b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

/// How many events of the mock's stream come before its first content (its first token): Chat's
/// role chunk; Responses' created, in_progress, output_item.added and the empty
/// content_part.added; Anthropic's message_start, the empty text block's content_block_start and
/// ping; none for Gemini.
std::size_t preambleEvents(Protocol protocol) {
  switch (protocol) {
    case Protocol::OpenAiChat: return 1;
    case Protocol::OpenAiResponses: return 4;
    case Protocol::Anthropic: return 3;
    case Protocol::Gemini: return 0;
  }
  return 0;
}

/// Streams one answer paced by the mock (`x-mock-chunk-delay`) and checks that events arrive one
/// by one, about one delay apart, rather than together at the end.
void expectEventsArriveAsSent(std::uint16_t gateway_port, std::uint16_t mock_port,
                              Protocol protocol) {
  SCOPED_TRACE(std::string(protocolName(protocol)));
  Lane const& l = lane(protocol);
  auto client = HttpClient::connect(gateway_port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  HeaderList headers = clientHeaders(protocol);
  headers.add("x-mock-chunk-delay", std::to_string(kChunkDelayMs));
  std::string body = minimalBody(protocol, l.model, true, "Tell me something paced");
  MonoTime sent = MonoClock::now();
  ASSERT_TRUE(
      client->sendRequest("POST", generationTarget(protocol, l.model, true), headers, body).ok());
  auto head = client->readHead(Millis(5'000));
  ASSERT_TRUE(head.ok()) << head.error().message;
  ASSERT_EQ(head->status, 200);

  SseReader sse(*client);
  std::vector<TimedSseEvent> events;
  for (;;) {
    auto event = sse.next(Millis(3'000));
    ASSERT_TRUE(event.ok()) << event.error().message << " after " << events.size() << " events";
    if (!*event) break;
    events.push_back(std::move(**event));
  }
  ASSERT_GE(events.size(), 4u);

  // The mock waits the delay before each chunk (one event per chunk). The stream's preamble
  // (`held` events before the first content) is held back until that content — the commit point —
  // and arrives with it; from there on, each event comes a delay after the previous one.
  std::size_t held = preambleEvents(protocol);
  ASSERT_GT(events.size(), held + 2);
  EXPECT_GE(msBetween(sent, events.front().arrived), kChunkDelayMs * 0.6 * double(held + 1));
  for (std::size_t i = 1; i < events.size(); ++i) {
    double gap = msBetween(events[i - 1].arrived, events[i].arrived);
    std::string what = "event " + std::to_string(i) + " (" + events[i].event.event + " " +
                       events[i].event.data.substr(0, 60) + ")";
    if (i <= held) {
      EXPECT_LT(gap, kChunkDelayMs * 0.6) << what << " should come with the first content";
      continue;
    }
    EXPECT_GE(gap, kChunkDelayMs * 0.6) << what;
    EXPECT_LE(gap, kChunkDelayMs * 6.0) << what;
  }
  double span = msBetween(events[held].arrived, events.back().arrived);
  EXPECT_GE(span, kChunkDelayMs * 0.8 * static_cast<double>(events.size() - 1 - held));

  // What was paced is the real stream, complete.
  auto journal = waitForJournal(mock_port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->back().headers.get("x-mock-chunk-delay"), std::to_string(kChunkDelayMs));
  EXPECT_EQ(sseEvents(journal->back().response_body).size(), events.size());
  ASSERT_TRUE(clearJournal(mock_port).ok());
}

TEST_F(E2eTest, ChatEventsReachTheClientOneByOne) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  expectEventsArriveAsSent(gateway->port, mock->port, Protocol::OpenAiChat);
}

TEST_F(E2eTest, ResponsesEventsReachTheClientOneByOne) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  expectEventsArriveAsSent(gateway->port, mock->port, Protocol::OpenAiResponses);
}

TEST_F(E2eTest, AnthropicEventsReachTheClientOneByOne) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  expectEventsArriveAsSent(gateway->port, mock->port, Protocol::Anthropic);
}

TEST_F(E2eTest, GeminiEventsReachTheClientOneByOne) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  expectEventsArriveAsSent(gateway->port, mock->port, Protocol::Gemini);
}

/// "<hex size>\r\n<data>\r\n".
std::string chunk(std::string_view data) {
  char size[16];
  std::snprintf(size, sizeof size, "%zx", data.size());
  return std::string(size) + "\r\n" + std::string(data) + "\r\n";
}

/// When the byte at `offset` of the body reached the client.
MonoTime arrivalOf(std::vector<BodyPiece> const& pieces, std::size_t offset) {
  std::size_t end = 0;
  for (auto const& piece : pieces) {
    end += piece.data.size();
    if (offset < end) return piece.arrived;
  }
  return MonoTime::max();
}

/// A chat channel whose upstream is `server`.
GatewayConfig scriptedChatConfig(std::uint16_t upstream_port) {
  GatewayConfig config;
  config.gateway_keys = {{std::string(kGatewayKeyName), std::string(kGatewayKey)}};
  ChannelSpec channel = laneChannel(lane(Protocol::OpenAiChat), upstream_port);
  channel.timeouts = TimeoutsSpec{.idle_ms = 5'000};
  config.channels = {channel};
  return config;
}

// The upstream splits an event across two writes 300 ms apart: the first half reaches the
// client without waiting for the second (no buffering up to event boundaries).
TEST_F(E2eTest, PartialEventsAreRelayedWithoutWaitingForTheRest) {
  // Content from the first segment on (the commit point is the first content), then an event
  // cut in two, then the end.
  std::string const chunk_head =
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini",)"
      R"("choices":[{"index":0,"delta":)";
  std::vector<std::string> segments = {
      chunk_head + R"({"role":"assistant","content":"Hi"},"finish_reason":null}]})" + "\n\n",
      chunk_head + R"({"content":" the)",
      R"(re"},"finish_reason":null}]})" + std::string("\n\n"),
      "data: [DONE]\n\n"};
  std::string body = minimalBody(Protocol::OpenAiChat, "gpt-4o-mini", true);
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(body.size());
  upstream.send(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
      chunk(segments[0]));
  for (std::size_t i = 1; i < segments.size(); ++i) {
    upstream.pause(Millis(300)).send(chunk(segments[i]));
  }
  upstream.send("0\r\n\r\n").start();

  auto gateway = startGateway(scriptedChatConfig(upstream.port()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto response = call(gateway->port, "POST", "/v1/chat/completions",
                       clientHeaders(Protocol::OpenAiChat), body);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_TRUE(upstream.finish(Millis(3'000)).ok());
  ASSERT_EQ(response->status(), 200);
  EXPECT_EQ(response->body, segments[0] + segments[1] + segments[2] + segments[3]);

  std::size_t end = 0;
  std::vector<MonoTime> arrived;
  for (auto const& segment : segments) {
    end += segment.size();
    arrived.push_back(arrivalOf(response->pieces, end - 1));
  }
  for (std::size_t i = 1; i < arrived.size(); ++i) {
    EXPECT_GE(msBetween(arrived[i - 1], arrived[i]), 200.0) << "segment " << i;
  }
}

// A non-streamed JSON body written in two halves 400 ms apart: the first half is relayed at once.
TEST_F(E2eTest, PlainBodiesAreRelayedAsTheyArriveToo) {
  std::string answer =
      "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
      "\"message\":{\"role\":\"assistant\",\"content\":\"split in two\"},\"finish_reason\":"
      "\"stop\"}]}";
  std::size_t half = answer.size() / 2;
  std::string body = minimalBody(Protocol::OpenAiChat, "gpt-4o-mini", false);
  ScriptedServer upstream;
  upstream.accept().expect("\r\n\r\n").expectBytes(body.size());
  upstream
      .send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
            std::to_string(answer.size()) + "\r\n\r\n" + answer.substr(0, half))
      .pause(Millis(400))
      .send(answer.substr(half))
      .start();

  auto gateway = startGateway(scriptedChatConfig(upstream.port()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto response = call(gateway->port, "POST", "/v1/chat/completions",
                       clientHeaders(Protocol::OpenAiChat), body);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_TRUE(upstream.finish(Millis(3'000)).ok());
  ASSERT_EQ(response->status(), 200);
  EXPECT_EQ(response->body, answer);
  EXPECT_GE(msBetween(arrivalOf(response->pieces, half - 1), arrivalOf(response->pieces, half)),
            300.0);
}

}  // namespace
}  // namespace llmux::e2e
