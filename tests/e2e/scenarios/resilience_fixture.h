#pragma once

// The fixture the resilience scenarios share (resilience_*_test.cpp): a gateway with the admin
// token and an access log in front of per-channel mocks.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e::resilience_scenarios {

using namespace failover;

/// How often `needle` occurs in `text`.
inline std::size_t countOf(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

class Resilience : public E2eTest {
 protected:
  /// Six keys for a channel whose failure breaker a test opens. A key's own failure cooldown
  /// (docs/routing.md, factor 3: two failures in 5 minutes place it last) would otherwise take a
  /// single-key channel out of the order after two failures, before its breaker could count five.
  static std::vector<std::string> primaryKeys() {
    return {"k-p1", "k-p2", "k-p3", "k-p4", "k-p5", "k-p6"};
  }

  std::string accessLog() { return temp().path() + "/access.log"; }

  /// The failover configuration (sequential, access log) with the admin token.
  GatewayConfig config(std::vector<ChannelSpec> channels) {
    GatewayConfig c = gatewayConfig(std::move(channels), accessLog());
    c.extra_yaml += std::string("admin_token: ") + routing_scenarios::kAdminToken + "\n";
    return c;
  }

  /// Sends `call` and expects a 200.
  void expectServed(std::uint16_t port, ClientCall const& call, std::string const& request_id) {
    auto response = callGateway(port, call, request_id);
    ASSERT_TRUE(response.ok()) << request_id << ": " << response.error().message;
    EXPECT_EQ(response->status(), 200) << request_id << ": " << response->body;
  }

  /// The journal's size once it holds at least `at_least` entries (the mock adds one when it has
  /// written its answer, a moment after the client may have read it); 0 when it never does.
  std::size_t journalSize(std::uint16_t mock_port, std::size_t at_least) {
    auto journal = waitForJournal(mock_port, at_least);
    EXPECT_TRUE(journal.ok()) << journal.error().message;
    return journal.ok() ? journal->size() : 0;
  }
};

}  // namespace llmux::e2e::resilience_scenarios
