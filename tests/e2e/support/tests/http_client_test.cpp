#include "e2e/support/http_client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e/support/scripted_server.h"

namespace llmux::e2e {
namespace {

using namespace std::chrono_literals;

std::string chunk(std::string_view data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return std::string(size) + std::string(data) + "\r\n";
}

std::string const kChunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
std::string const kChunkedResponse =
    kChunkedHead + chunk("hello") + chunk(" ") + chunk("world!") + "0\r\nX-Done: yes\r\n\r\n";

std::vector<std::string> dataOf(std::vector<BodyPiece> const& pieces) {
  std::vector<std::string> out;
  for (auto const& p : pieces) out.push_back(p.data);
  return out;
}

TEST(HttpClient, DecodesChunksSplitAcrossSegmentsAtAnyPoint) {
  for (std::size_t split = 1; split < kChunkedResponse.size(); ++split) {
    ScriptedServer server;
    server.accept()
        .expect("\r\n\r\n")
        .send(kChunkedResponse.substr(0, split))
        .pause(2ms)
        .send(kChunkedResponse.substr(split))
        .start();
    auto client = HttpClient::connect(server.port());
    ASSERT_TRUE(client.ok()) << client.error().message;
    auto response = client->request("GET", "/stream");
    ASSERT_TRUE(response.ok()) << "split " << split << ": " << response.error().message;
    EXPECT_EQ(dataOf(response->pieces), (std::vector<std::string>{"hello", " ", "world!"}))
        << "split " << split;
    EXPECT_EQ(response->body, "hello world!");
    EXPECT_EQ(response->trailers.get("x-done"), "yes");
    EXPECT_EQ(client->received(), kChunkedResponse);
  }
}

TEST(HttpClient, DecodesChunksSentOneByteAtATime) {
  ScriptedServer server;
  server.accept().expect("\r\n\r\n");
  for (char c : kChunkedResponse) server.send(std::string(1, c)).pause(1ms);
  server.start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto response = client->request("GET", "/");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(dataOf(response->pieces), (std::vector<std::string>{"hello", " ", "world!"}));
  EXPECT_TRUE(server.finish(5s).ok());
}

TEST(HttpClient, HandsOutEachChunkWhenItArrives) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send(kChunkedHead + chunk("first"))
      .pause(300ms)
      .send(chunk("second") + "0\r\n\r\n")
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client->sendRequest("GET", "/").ok());
  auto head = client->readHead();
  ASSERT_TRUE(head.ok()) << head.error().message;
  // Well under the pause: this only succeeds if the first chunk is not held back.
  auto first = client->readBodyPiece(150ms);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->data, "first");
  auto second = client->readBodyPiece(2s);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->data, "second");
  EXPECT_GE((*second)->arrived - (*first)->arrived, 250ms);
  auto end = client->readBodyPiece();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  EXPECT_TRUE(client->bodyComplete());
}

TEST(HttpClient, ReusesOneConnectionForSeveralRequests) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none")
      .expect("\r\n\r\n")
      .send(kChunkedResponse)
      .expect("\r\n\r\n")
      .send("HTTP/1.1 204 No Content\r\n\r\n")
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto first = client->request("GET", "/one");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->body, "one");
  auto second = client->request("GET", "/two");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->body, "hello world!");
  auto third = client->request("DELETE", "/three");
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(third->status(), 204);
  ASSERT_TRUE(server.finish(2s).ok());
  EXPECT_EQ(server.connections(), 1u);
  std::string const& wire = server.received(0);
  EXPECT_NE(wire.find("GET /one HTTP/1.1\r\nHost: 127.0.0.1:"), std::string::npos);
  EXPECT_NE(wire.find("GET /two HTTP/1.1\r\n"), std::string::npos);
  EXPECT_NE(wire.find("DELETE /three HTTP/1.1\r\n"), std::string::npos);
}

TEST(HttpClient, ReadsTheInterim100ContinueBeforeSendingTheBody) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send("HTTP/1.1 100 Continue\r\n\r\n")
      .expectBytes(5)
      .send("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client
                  ->sendRaw("POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                            "Content-Length: 5\r\n\r\n")
                  .ok());
  auto interim = client->readHead(2s);
  ASSERT_TRUE(interim.ok()) << interim.error().message;
  EXPECT_EQ(interim->status, 100);
  EXPECT_TRUE(interim->isInterim());
  ASSERT_TRUE(client->sendRaw("hello").ok());
  auto response = client->readResponse(2s);
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 201);
  EXPECT_EQ(response->body, "ok");
  ASSERT_TRUE(server.finish(2s).ok());
  EXPECT_TRUE(server.received(0).ends_with("\r\n\r\nhello"));
}

TEST(HttpClient, RequestCollectsInterimResponses) {
  ScriptedServer server;
  server.accept()
      .expect("hello")
      .send("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  HeaderList headers;
  headers.add("Expect", "100-continue");
  auto response = client->request("POST", "/", headers, "hello");
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->interim.size(), 1u);
  EXPECT_EQ(response->interim[0].status, 100);
  EXPECT_EQ(response->status(), 200);
  EXPECT_NE(server.received(0).find("Content-Length: 5\r\n"), std::string::npos);
}

TEST(HttpClient, TimesOutWhenTheServerDoesNotAnswer) {
  ScriptedServer server;
  server.accept().expect("\r\n\r\n").pause(2s).start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto started = MonoClock::now();
  auto response = client->request("GET", "/", {}, {}, 100ms);
  auto waited = MonoClock::now() - started;
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().kind, ErrorKind::Timeout);
  EXPECT_GE(waited, 100ms);
  EXPECT_LT(waited, 1s);
}

TEST(HttpClient, KeepsPartialBytesAcrossATimeout) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send(kChunkedHead + "5\r\nhel")
      .pause(300ms)
      .send("lo\r\n0\r\n\r\n")
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client->sendRequest("GET", "/").ok());
  ASSERT_TRUE(client->readHead().ok());
  auto early = client->readBodyPiece(100ms);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().kind, ErrorKind::Timeout);
  auto body = client->readBody(2s);
  ASSERT_TRUE(body.ok()) << body.error().message;
  EXPECT_EQ(*body, "hello");
}

TEST(HttpClient, ReadsABodyDelimitedByClose) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil ")
      .pause(20ms)
      .send("the end")
      .close()
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto response = client->request("GET", "/");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->body, "until the end");
  EXPECT_TRUE(client->peerClosed());
  EXPECT_FALSE(client->isOpen());
}

TEST(HttpClient, ReportsATruncatedBody) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabcd")
      .close()
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto response = client->request("GET", "/");
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message.find("6 bytes"), std::string::npos)
      << response.error().message;

  ScriptedServer chunked;
  chunked.accept().expect("\r\n\r\n").send(kChunkedHead + chunk("abc")).close().start();
  auto client2 = HttpClient::connect(chunked.port());
  ASSERT_TRUE(client2.ok());
  auto response2 = client2->request("GET", "/");
  ASSERT_FALSE(response2.ok());
  EXPECT_NE(response2.error().message.find("chunked"), std::string::npos);
}

TEST(HttpClient, RejectsAMalformedResponse) {
  ScriptedServer server;
  server.accept().expect("\r\n\r\n").send("HTTP/1.1 200 OK\nContent-Length: 0\n\n\r\n\r\n").start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto response = client->request("GET", "/");
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().kind, ErrorKind::UpstreamProtocol);
}

TEST(HttpClient, AnswerToHeadHasNoBody) {
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
      .expect("\r\n\r\n")
      .send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto head = client->request("HEAD", "/");
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->header("content-length"), "5");
  EXPECT_EQ(head->body, "");
  auto get = client->request("GET", "/");
  ASSERT_TRUE(get.ok()) << get.error().message;
  EXPECT_EQ(get->body, "hello");
}

TEST(HttpClient, SendsRawBytesUnchanged) {
  std::string huge = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(100'000, 'a') +
                     "\r\nbad header line\r\n\r\n";
  ScriptedServer server;
  server.accept()
      .expect("\r\n\r\n")
      .send(
          "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n"
          "Connection: close\r\n\r\n")
      .close()
      .start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client->sendRaw(huge).ok());
  auto response = client->readResponse();
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 431);
  EXPECT_EQ(response->head.reason, "Request Header Fields Too Large");
  EXPECT_TRUE(client->waitForClose(2s).ok());
  ASSERT_TRUE(server.finish(2s).ok());
  EXPECT_EQ(server.received(0), huge);
}

TEST(HttpClient, SendsAChunkedRequestBodyPieceByPiece) {
  ScriptedServer server;
  server.accept().expect("0\r\n\r\n").send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  HeaderList headers;
  headers.add("Transfer-Encoding", "chunked");
  ASSERT_TRUE(client->sendRequest("POST", "/v1/messages", headers).ok());
  ASSERT_TRUE(client->sendRaw(chunk("{\"a\":")).ok());
  ASSERT_TRUE(client->sendRaw(chunk("1}") + "0\r\n\r\n").ok());
  auto response = client->readResponse();
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_TRUE(server.finish(2s).ok());
  EXPECT_EQ(server.received(0),
            "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
                "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n");
}

TEST(HttpClient, WaitForCloseSeesCloseOrItsAbsence) {
  ScriptedServer server;
  server.accept().expect("\r\n\r\n").pause(300ms).close().start();
  auto client = HttpClient::connect(server.port());
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client->sendRequest("GET", "/").ok());
  auto early = client->waitForClose(50ms);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().kind, ErrorKind::Timeout);
  EXPECT_TRUE(client->waitForClose(2s).ok());
}

TEST(HttpClient, CloseNowIsSeenByTheServerAsCloseOrReset) {
  for (CloseMode mode : {CloseMode::Graceful, CloseMode::Reset}) {
    ScriptedServer server;
    server.accept()
        .expect("\r\n\r\n")
        .send(kChunkedHead + chunk("data: 1\n\n"))
        .expectClose()
        .start();
    auto client = HttpClient::connect(server.port());
    ASSERT_TRUE(client.ok()) << client.error().message;
    ASSERT_TRUE(client->sendRequest("GET", "/").ok());
    ASSERT_TRUE(client->readHead().ok());
    ASSERT_TRUE(client->readBodyPiece().ok());
    client->closeNow(mode);
    EXPECT_FALSE(client->isOpen());
    ASSERT_TRUE(server.finish(2s).ok());
    EXPECT_EQ(server.clientReset(), mode == CloseMode::Reset);
    EXPECT_FALSE(client->sendRaw("x").ok());
  }
}

TEST(HttpClient, ConnectFailsWhenNothingListens) {
  auto client = HttpClient::connect(freePort(), 1s);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().kind, ErrorKind::Connect);
}

TEST(FormatRequest, AddsHostAndContentLengthOnlyWhenMissing) {
  EXPECT_EQ(formatRequest("GET", "/x", {}, "", 8080),
            "GET /x HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
  EXPECT_EQ(formatRequest("POST", "/x", {}, "", 1),
            "POST /x HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Length: 0\r\n\r\n");
  HeaderList headers;
  headers.add("host", "example");
  headers.add("content-length", "99");
  EXPECT_EQ(formatRequest("PUT", "/y", headers, "ab", 1),
            "PUT /y HTTP/1.1\r\nhost: example\r\ncontent-length: 99\r\n\r\nab");
}

}  // namespace
}  // namespace llmux::e2e
