#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "e2e/support/child_process.h"
#include "e2e/support/config_writer.h"
#include "e2e/support/llmux_processes.h"
#include "e2e/support/temp_dir.h"

namespace llmux::e2e {

/// A process started through the fixture and the port it listens on.
struct Server {
  ChildProcess* process = nullptr;  ///< owned by the fixture until the test ends
  std::uint16_t port = 0;

  std::string baseUrl() const { return loopbackUrl(port); }
};

/// Base fixture of end-to-end scenarios. Gives each test a temporary directory and starts llmux
/// processes that live until the test ends (then they are killed and reaped). When a test fails,
/// the output of every process it started is printed. Tests are skipped when the llmux binary is
/// unknown (see `llmuxBinary()`).
///
///   TEST_F(E2eTest, Example) {
///     auto mock = startMockProvider();
///     ASSERT_TRUE(mock.ok()) << mock.error().message;
///     GatewayConfig config;
///     config.gateway_keys = {{"dev", "sk-dev-123"}};
///     config.channels = {{.name = "a", .protocol = Protocol::Anthropic,
///                         .base_url = mock->baseUrl(), .keys = {"k1"}, .models = {"m"}}};
///     auto gateway = startGateway(config);
///     ASSERT_TRUE(gateway.ok()) << gateway.error().message;
///     auto client = HttpClient::connect(gateway->port);
///     ...
///   }
class E2eTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  TempDir& temp() { return temp_; }
  std::string writeTempFile(std::string_view contents, std::string_view suffix = ".yaml") {
    return temp_.writeTempFile(contents, suffix);
  }
  std::string const& binary() const { return binary_; }

  /// `llmux mock-provider --listen 127.0.0.1:0 <extra_args...>`.
  Result<Server> startMockProvider(std::vector<std::string> extra_args = {});
  /// Writes `config` to a file and runs `llmux serve --config <file> <extra_args...>`.
  Result<Server> startGateway(GatewayConfig const& config,
                              std::vector<std::string> extra_args = {});
  /// Same, for a configuration written by hand, with `env` set in the gateway's environment
  /// (its secrets are swept for too).
  Result<Server> startGatewayYaml(std::string_view yaml, std::vector<std::string> extra_args = {},
                                  std::vector<std::pair<std::string, std::string>> env = {});
  /// Starts any process that prints a listening line. Unless `options` says otherwise it runs in
  /// the test's temporary directory with LLMUX_HOME there, so no state outlives the test.
  Result<Server> startServer(ChildOptions options);
  /// Starts a process without waiting for a listening line (a CLI verb expected to fail, say).
  Result<ChildProcess*> spawn(ChildOptions options);
  /// Turns the end-of-test secret sweep off: only for a stand-in binary that echoes its
  /// configuration on purpose (the harness's own tests).
  void sweepNoSecrets() { sweep_secrets_ = false; }

 private:
  /// A gateway started from a configuration, and what must never leak from it.
  struct SweptGateway {
    ChildProcess* process = nullptr;
    std::uint16_t port = 0;
    std::vector<std::string> secrets;  ///< see secret_sweep.h
    std::string access_log;            ///< path relative to the temp dir, "" when none
  };

  void placeInTempDir(ChildOptions& options);
  /// Fails the test when a configured secret shows in a gateway's output, access log, state
  /// directory (the request log) or /metrics.
  void sweepSecrets();

  TempDir temp_;  // declared first: the processes below die before their directory goes
  std::string binary_;
  std::deque<ChildProcess> processes_;  // a deque keeps handed-out pointers valid
  std::vector<SweptGateway> swept_;
  bool sweep_secrets_ = true;
};

}  // namespace llmux::e2e
