#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include "e2e/support/socket_io.h"
#include "http/upstream_connection.h"
#include "http/upstream_exchange.h"
#include "net/resolver.h"
#include "net/tls.h"
#include "support/blocking_lookup.h"
#include "support/run_task.h"

namespace llmux::http::testing {

using e2e::UniqueFd;
using test_support::run;
using test_support::runUntil;
using test_support::spawnInto;
using Connection = Result<std::unique_ptr<UpstreamConnection>>;

inline MonoTime in(Millis delay) { return MonoClock::now() + delay; }

inline std::string jsonAnswer(std::string_view body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

/// A pool on the test's io_context, a loopback listener for its peer (plain POSIX: the peer's
/// side shares no code with what is tested), and a resolver whose lookups the test controls.
class UpstreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = e2e::listenLoopback(0);
    ASSERT_TRUE(made.ok()) << made.error().message;
    listener = std::move(*made);
  }

  PeerAddress peer() const {
    return PeerAddress{false, "127.0.0.1", e2e::localPort(listener.get()), ""};
  }

  /// The peer's side of the next connection the pool made.
  UniqueFd acceptPeer() {
    auto fd = e2e::acceptOne(listener.get(), in(Millis(2'000)));
    EXPECT_TRUE(fd.ok()) << fd.error().message;
    return fd.ok() ? std::move(*fd) : UniqueFd();
  }

  /// A request (head and a small body) as the forwarder hands it over.
  std::array<std::string_view, UpstreamExchange::kMaxPieces> request() const {
    return {kRequestHead, "{}", {}, {}, {}, {}};
  }

  /// The whole body of an exchange whose head is in.
  std::string readAll(UpstreamExchange& exchange) {
    std::string body;
    while (!exchange.done()) {
      auto piece = run(io, exchange.readBody(in(Millis(2'000))));
      EXPECT_TRUE(piece.ok()) << piece.error().message;
      if (!piece.ok()) break;
      body += *piece;
    }
    return body;
  }

  static std::unique_ptr<boost::asio::ssl::context> clientTls() {
    auto made = net::makeClientTlsContext();
    if (!made) throw std::runtime_error(made.error().message);
    return std::move(*made);
  }

  static constexpr std::string_view kRequestHead =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: upstream\r\nContent-Length: 2\r\n\r\n";

  // Declared first so it is destroyed last: connections and coroutine frames die before it.
  boost::asio::io_context io;
  test_support::BlockingLookup lookup;
  net::CachingResolver resolver{lookup.function()};
  std::unique_ptr<boost::asio::ssl::context> tls = clientTls();
  UpstreamPool pool{io, *tls, resolver};
  UniqueFd listener;
};

}  // namespace llmux::http::testing
