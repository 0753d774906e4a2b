#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "shared_state/redis_client.h"
#include "support/redis_server.h"
#include "support/run_task.h"

namespace llmux::shared_state::testing {

using test_support::freeLoopbackPort;
using test_support::RedisServer;
using test_support::run;
using test_support::runUntil;
using test_support::spawnInto;

/// A test with its own redis-server. A missing redis-server FAILS the test (never a skip: the
/// shared limits would otherwise ship untested).
class RedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    server = RedisServer::start(serverArgs(), error);
    ASSERT_NE(server, nullptr) << error;
  }

  /// Extra redis-server arguments of a test suite.
  virtual std::vector<std::string> serverArgs() const { return {}; }

  /// Options for a client of this test's server. The timeout is generous: these tests are about
  /// answers, not speed, and the machine may be loaded (the fallback tests set their own).
  RedisConnectOptions connectOptions(Millis timeout = Millis(5'000)) const {
    RedisConnectOptions options;
    options.host = "127.0.0.1";
    options.port = server->port();
    options.timeout = timeout;
    return options;
  }

  // Declared first so it is destroyed last: clients and coroutine frames die before it.
  boost::asio::io_context io;
  std::unique_ptr<RedisServer> server;
};

}  // namespace llmux::shared_state::testing
