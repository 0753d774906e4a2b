// A reload keeps runtime state for every object that still exists and drops what was learned
// about a route that changed: a weight changed, a channel and a key added and a channel moved to
// another exit, in one SIGHUP.
#include <signal.h>

#include <fstream>
#include <map>
#include <set>

#include "e2e/support/recording_upstream.h"
#include "e2e/support/socket_io.h"
#include "lifecycle_support.h"
#include "resilience_support.h"
#include "routing_support.h"

namespace llmux::e2e {
namespace {

using lifecycle::chatBody;
using lifecycle::chatHeaders;

constexpr char kKey[] = "sk-reload-gateway-0123";
constexpr char kNodeToken[] = "node-token-reload-5b8e0a7c";

class ReloadKeepsState : public E2eTest {
 protected:
  /// The configuration: `main` (two keys, or three with `new_key`) through node-a; `dead-kept`
  /// and `dead-moved` on a port nothing answers, the latter through `moved_exit`; `extra` when
  /// `with_extra`.
  std::string config(std::uint16_t upstream, std::uint16_t dead, int main_weight, bool new_key,
                     std::string const& moved_exit, bool with_extra) const {
    std::string const url = "http://127.0.0.1:" + std::to_string(upstream);
    std::string const dead_url = "http://127.0.0.1:" + std::to_string(dead);
    std::string out =
        "listen: 127.0.0.1:0\n"
        "admin_token: " + std::string(routing_scenarios::kAdminToken) + "\n"
        "gateway_keys: [{name: dev, key: " + kKey + ", strategy: sequential}]\n"
        "proxies:\n"
        "  - {name: node-a, mode: node, url: 'http://127.0.0.1:" + std::to_string(node_a_) +
        "', token_env: NODE_TOKEN}\n"
        "  - {name: node-b, mode: node, url: 'http://127.0.0.1:" + std::to_string(node_b_) +
        "', token_env: NODE_TOKEN}\n"
        "channels:\n"
        "  - {name: main, protocol: openai-chat, base_url: '" + url + "', proxy: node-a, weight: " +
        std::to_string(main_weight) + ", keys: [k-paused, k-main" + (new_key ? ", k-new" : "") +
        "], models: [m]}\n"
        "  - {name: dead-kept, protocol: openai-chat, base_url: '" + dead_url + "', keys: [k-d1], models: [d1]}\n"
        "  - {name: dead-moved, protocol: openai-chat, base_url: '" + dead_url + "', proxy: " +
        moved_exit + ", keys: [k-d2], models: [d2]}\n";
    if (with_extra) {
      out += "  - {name: extra, protocol: openai-chat, base_url: '" + url + "', keys: [k-extra], models: [x]}\n";
    }
    return out;
  }

  std::uint16_t node_a_ = 0;
  std::uint16_t node_b_ = 0;
};

TEST_F(ReloadKeepsState, WhereItsObjectRemainsAndNotWhereItsRouteChanged) {
  // k-paused is told to wait 30 s; every other key is served.
  RecordingUpstream upstream([](RecordedRequest const& request) {
    if (request.header("authorization") == "Bearer k-paused") {
      return RecordingUpstream::jsonResponse(
          R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})",
          429, "retry-after: 30\r\n");
    }
    return RecordingUpstream::jsonResponse(
        R"({"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}})");
  });
  auto node_a = startServer(nodeOptions(binary(), kNodeToken));
  ASSERT_TRUE(node_a.ok()) << node_a.error().message;
  auto node_b = startServer(nodeOptions(binary(), kNodeToken));
  ASSERT_TRUE(node_b.ok()) << node_b.error().message;
  node_a_ = node_a->port;
  node_b_ = node_b->port;
  std::uint16_t const dead = freePort();

  std::string const path = writeTempFile(config(upstream.port(), dead, 1, false, "node-a", false));
  ChildOptions options = gatewayOptions(binary(), path, {});
  options.env.emplace_back("NODE_TOKEN", kNodeToken);
  auto gateway = startServer(std::move(options));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  // One client connection throughout: one worker, one upstream pool.
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto ask = [&](std::string const& model) {
    auto response = client->request("POST", "/v1/chat/completions", chatHeaders(kKey), chatBody(model));
    EXPECT_TRUE(response.ok()) << response.error().message;
    return response.ok() ? response->status() : 0;
  };
  for (int i = 0; i < 2; ++i) EXPECT_EQ(ask("m"), 200);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(ask("d1"), 502);
    EXPECT_EQ(ask("d2"), 502);
  }
  auto before = upstream.requests();
  ASSERT_FALSE(before.empty());
  std::size_t const pooled = before.back().connection;
  auto breakers = resilience::breakers(gateway->port);
  ASSERT_EQ(resilience::stateOf(*resilience::breakerOf(breakers, "dead-kept", "d1"), "failure"), "open");
  ASSERT_EQ(resilience::stateOf(*resilience::breakerOf(breakers, "dead-moved", "d2"), "failure"), "open");

  std::ofstream(path, std::ios::trunc) << config(upstream.port(), dead, 3, true, "node-b", true);
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  ASSERT_TRUE(gateway->process->waitForLineMatching(std::regex(".*configuration reloaded.*"),
                                                    Millis(5000), Stream::Stderr)
                  .ok());

  // The channel that moved to another exit starts afresh; the one that did not stays open.
  breakers = resilience::breakers(gateway->port);
  EXPECT_EQ(resilience::stateOf(*resilience::breakerOf(breakers, "dead-kept", "d1"), "failure"), "open");
  EXPECT_EQ(resilience::stateOf(*resilience::breakerOf(breakers, "dead-moved", "d2"), "failure"), "closed");

  std::size_t const seen = upstream.requests().size();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(ask("m"), 200);
  EXPECT_EQ(ask("x"), 200);  // the added channel serves
  std::map<std::string, int> by_key;
  std::set<std::size_t> connections;
  auto after = upstream.requests();
  for (std::size_t i = seen; i < after.size(); ++i) {
    by_key[after[i].header("authorization")]++;
    if (after[i].header("authorization") != "Bearer k-extra") connections.insert(after[i].connection);
  }
  EXPECT_EQ(by_key.count("Bearer k-paused"), 0u) << "the paused key stayed paused";
  EXPECT_GT(by_key["Bearer k-new"], 0) << "the added key serves";
  EXPECT_GT(by_key["Bearer k-main"], 0);
  EXPECT_EQ(by_key["Bearer k-extra"], 1);
  // main's route did not change (only its weight and keys): its pooled tunnel is still used.
  EXPECT_EQ(connections, std::set<std::size_t>{pooled});
}

}  // namespace
}  // namespace llmux::e2e
