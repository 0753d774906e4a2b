#include "e2e/support/sse_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "e2e/support/scripted_server.h"

namespace llmux::e2e {
namespace {

using namespace std::chrono_literals;

std::string chunk(std::string_view data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return std::string(size) + std::string(data) + "\r\n";
}

std::string const kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

/// Connects, sends a GET and reads the response head.
Result<HttpClient> openStream(ScriptedServer& server) {
  auto client = HttpClient::connect(server.port());
  if (!client) return client;
  if (auto sent = client->sendRequest("GET", "/events"); !sent) return sent.error();
  auto head = client->readHead();
  if (!head) return head.takeError();
  if (head->status != 200) return makeError(ErrorKind::Internal, "status " + head->raw);
  return client;
}

TEST(SseReader, AnEventArrivesWithoutWaitingForTheNext) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send(kSseHead + chunk("event: first\ndata: 1\n\n"))
      .pause(400ms)
      .send(chunk("data: 2\n\n") + "0\r\n\r\n")
      .start();
  auto client = openStream(server);
  ASSERT_TRUE(client.ok()) << client.error().message;
  SseReader sse(*client);
  auto first = sse.next(200ms);  // fails if the reader waited for the second frame
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->event.event, "first");
  EXPECT_EQ((*first)->event.data, "1");
  auto second = sse.next(2s);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->event.event, "");
  EXPECT_EQ((*second)->event.data, "2");
  EXPECT_GE((*second)->arrived - (*first)->arrived, 300ms);
  auto end = sse.next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST(SseReader, JoinsEventsSplitAcrossChunksWithCrLfAndSkipsComments) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send(kSseHead + chunk(": keep-alive\r\n\r\nevent: message_start\r\nda"))
      .pause(5ms)
      .send(chunk("ta: {\"a\":\r\ndata: 1}\r\n"))
      .pause(5ms)
      .send(chunk("\r\ndata: [DONE]\r\n\r\n") + "0\r\n\r\n")
      .start();
  auto client = openStream(server);
  ASSERT_TRUE(client.ok()) << client.error().message;
  SseReader sse(*client);
  auto events = sse.readAll(2s);
  ASSERT_TRUE(events.ok()) << events.error().message;
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event.event, "message_start");
  EXPECT_EQ((*events)[0].event.data, "{\"a\":\n1}");
  EXPECT_EQ((*events)[1].event.data, "[DONE]");
}

TEST(SseReader, PerEventTimeoutKeepsWhatArrivedForTheNextCall) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send(kSseHead + chunk("data: one\n\n"))
      .pause(400ms)
      .send(chunk("data: two\n\n") + "0\r\n\r\n")
      .start();
  auto client = openStream(server);
  ASSERT_TRUE(client.ok()) << client.error().message;
  SseReader sse(*client);
  ASSERT_TRUE(sse.next(1s).ok());
  auto started = MonoClock::now();
  auto stalled = sse.next(100ms);
  ASSERT_FALSE(stalled.ok());
  EXPECT_EQ(stalled.error().kind, ErrorKind::Timeout);
  EXPECT_LT(MonoClock::now() - started, 350ms);
  auto two = sse.next(2s);
  ASSERT_TRUE(two.ok() && two->has_value()) << (two.ok() ? "ended" : two.error().message);
  EXPECT_EQ((*two)->event.data, "two");
}

TEST(SseReader, ReadsAStreamEndedByCloseIncludingAnUnterminatedLastEvent) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: a\n\ndata: b")
      .close()
      .start();
  auto client = openStream(server);
  ASSERT_TRUE(client.ok()) << client.error().message;
  SseReader sse(*client);
  auto events = sse.readAll(2s);
  ASSERT_TRUE(events.ok()) << events.error().message;
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event.data, "a");
  EXPECT_EQ((*events)[1].event.data, "b");
}

TEST(SseReader, ReportsAStreamCutInsideAChunk) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send(kSseHead + chunk("data: a\n\n") + "20\r\ndata: cut")
      .close()
      .start();
  auto client = openStream(server);
  ASSERT_TRUE(client.ok()) << client.error().message;
  SseReader sse(*client);
  auto first = sse.next(2s);
  ASSERT_TRUE(first.ok() && first->has_value());
  auto cut = sse.next(2s);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().kind, ErrorKind::Cancelled);
}

}  // namespace
}  // namespace llmux::e2e
