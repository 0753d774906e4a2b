// The HTTP server's own books on its unhappy paths: a handler that fails with an exception still
// answers its client (500), and the in-flight and connection counts come back down.
#include "http/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>

#include "net/worker_pool.h"

namespace llmux::http {
namespace {

/// Fails every request with an exception, as a bug would.
class ThrowingHandler final : public RequestHandler {
 public:
  bool screenHead(ServerRequest&) override { return true; }
  net::Task<void> handle(ServerRequest&, ResponseWriter&) override {
    throw std::runtime_error("a bug in the handler");
    co_return;
  }
  PlainAnswer rejection(int status, std::string_view, std::string_view message) override {
    return {"application/json", "{\"status\":" + std::to_string(status) + ",\"message\":\"" +
                                    std::string(message) + "\"}"};
  }
};

/// One request on a fresh blocking connection; the raw answer (until the server closes).
std::string exchange(std::uint16_t port, std::string const& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return {};
  }
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    answer.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return answer;
}

TEST(HttpServer, AHandlerExceptionIsAnswered500AndTheBooksBalance) {
  net::WorkerPool workers(1);
  ThrowingHandler handler;
  HttpServer server(workers, {&handler}, ServerLimits{});
  auto port = server.listen(net::HostPort{"127.0.0.1", 0});
  ASSERT_TRUE(port.ok()) << port.error().message;
  workers.start();

  std::string answer = exchange(*port, "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}");
  EXPECT_EQ(answer.rfind("HTTP/1.1 500 ", 0), 0u) << answer;
  EXPECT_NE(answer.find("internal error in the gateway"), std::string::npos) << answer;
  // A second connection is served the same way: the first left nothing behind.
  answer = exchange(*port, "GET /y HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(answer.rfind("HTTP/1.1 500 ", 0), 0u) << answer;

  for (int i = 0; i < 100 && (server.inFlight() != 0 || server.openConnections() != 0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server.inFlight(), 0u);
  EXPECT_EQ(server.openConnections(), 0u);
  server.beginDrain();
  workers.stop();
}

}  // namespace
}  // namespace llmux::http
