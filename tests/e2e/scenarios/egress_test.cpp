// Egress (docs/egress.md): upstream connections through real proxies on loopback — tinyproxy
// (HTTP CONNECT and absolute form, with Basic credentials), Dante (SOCKS5), a small SOCKS5
// server with user name and password (egress_socks5_server.h), a url_prefix forwarder, and
// `llmux node` agents — with TLS to the upstream verified through the tunnel.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "e2e/support/recording_upstream.h"
#include "e2e/support/socket_io.h"
#include "egress_socks5_server.h"
#include "failover_helpers.h"
#include "lifecycle_support.h"
#include "tls_support.h"

namespace llmux::e2e {
namespace {

using lifecycle::eventually;
using failover::waitForMetric;

constexpr char kKey[] = "sk-egress-gateway-0123";
constexpr char kProxyUser[] = "alice";
constexpr char kProxyPassword[] = "proxy-pass-6f1c2d";
constexpr char kNodeToken[] = "node-token-5b8e0a7c9d2f4e61";

std::string chatAnswer() {
  return RecordingUpstream::jsonResponse(
      R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"through the exit"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}})");
}

std::string readFile(std::string const& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::size_t occurrences(std::string_view text, std::string_view needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

class EgressTest : public TlsE2eTest {
 protected:
  /// A configuration: the gateway key (strategy sequential: priority first, keys rotating),
  /// `top` (proxies: and the like) and `channels` (YAML list items, indented by two spaces).
  static std::string config(std::string const& top, std::string const& channels) {
    return "listen: 127.0.0.1:0\n"
           "gateway_keys: [{name: dev, key: " + std::string(kKey) + ", strategy: sequential}]\n" +
           top + "channels:\n" + channels;
  }

  /// One chat request for `model` on a fresh client connection.
  static Result<Response> ask(std::uint16_t port, std::string const& model) {
    return lifecycle::chat(port, model, lifecycle::chatHeaders(kKey));
  }

  /// A channel item on `base_url`; `extra` lines go into its mapping.
  static std::string channel(std::string const& name, std::string const& base_url,
                             std::string const& model, std::string const& extra = "",
                             std::string const& keys = "") {
    return "  - name: " + name + "\n    protocol: openai-chat\n    base_url: " + base_url +
           "\n    keys: " + (keys.empty() ? "[upstream-key-" + name + "]" : keys) +
           "\n    models: [" + model + "]\n" + extra;
  }

  /// tinyproxy on a free port (Basic credentials when `with_auth`); its log file's path.
  std::pair<std::uint16_t, std::string> startTinyproxy(bool with_auth) {
    std::uint16_t const port = freePort();
    std::string const log = temp().path() + "/tinyproxy-" + std::to_string(port) + ".log";
    std::string conf = "Port " + std::to_string(port) + "\nListen 127.0.0.1\nTimeout 30\n"
                       "LogFile \"" + log + "\"\nLogLevel Connect\nMaxClients 64\n"
                       "DisableViaHeader Yes\n";
    if (with_auth) conf += "BasicAuth " + std::string(kProxyUser) + " " + kProxyPassword + "\n";
    ChildOptions options;
    options.program = "tinyproxy";
    options.args = {"-d", "-c", writeTempFile(conf, ".conf")};
    auto process = spawn(std::move(options));
    EXPECT_TRUE(process.ok()) << process.error().message;
    EXPECT_TRUE(eventually([&] { return acceptsOnLoopback(port); }))
        << "tinyproxy did not start (scripts/bootstrap installs it)";
    return {port, log};
  }

  /// Dante (danted) without authentication on a free port; its log file's path.
  std::pair<std::uint16_t, std::string> startDante() {
    std::uint16_t const port = freePort();
    std::string const log = temp().path() + "/danted.log";
    std::string conf = "logoutput: " + log + "\ninternal: 127.0.0.1 port = " + std::to_string(port) +
                       "\nexternal: 127.0.0.1\nclientmethod: none\nsocksmethod: none\n"
                       "user.privileged: root\nuser.unprivileged: nobody\n"
                       "client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }\n"
                       "socks pass { from: 127.0.0.0/8 to: 0.0.0.0/0\n command: connect\n"
                       " log: connect\n}\n";
    ChildOptions options;
    options.program = "/usr/sbin/danted";
    options.args = {"-f", writeTempFile(conf, ".conf"), "-p", temp().path() + "/danted.pid"};
    auto process = spawn(std::move(options));
    EXPECT_TRUE(process.ok()) << process.error().message;
    EXPECT_TRUE(eventually([&] { return acceptsOnLoopback(port); }))
        << "danted did not start (scripts/bootstrap installs dante-server)";
    return {port, log};
  }

  /// `llmux node` with the test token; extra arguments after the mandatory ones.
  Result<Server> startNode(std::vector<std::string> extra = {}) {
    return startServer(nodeOptions(binary(), kNodeToken, std::move(extra)));
  }

  /// The mock provider, and nginx serving it over TLS as "localhost" (a certificate of the test
  /// CA: caFile()); their ports.
  std::pair<std::uint16_t, std::uint16_t> startTlsMock() {
    makeCertificates({"localhost"});
    if (HasFatalFailure()) return {};
    auto mock = startMockProvider();
    if (!mock.ok()) {
      [&] { FAIL() << mock.error().message; }();  // fatal: the caller checks HasFatalFailure()
      return {};
    }
    std::uint16_t const tls_port = freePort();
    startTlsFront(mock->port, {{tls_port, "localhost"}});
    return {mock->port, tls_port};
  }

  std::vector<std::pair<std::string, std::string>> const proxy_env_{
      {"PROXY_USER", kProxyUser}, {"PROXY_PASS", kProxyPassword}, {"NODE_TOKEN", kNodeToken}};
};

TEST_F(EgressTest, AnHttpProxyTunnelsTlsToTheUpstreamAndTheTunnelIsPooled) {
  auto [mock_port, tls_port] = startTlsMock();
  if (HasFatalFailure()) return;
  auto [proxy_port, proxy_log] = startTinyproxy(true);

  auto gateway = startGatewayYaml(
      config("proxies:\n  - {name: corp, mode: network, url: 'http://127.0.0.1:" +
                 std::to_string(proxy_port) + "', username_env: PROXY_USER, password_env: PROXY_PASS}\n",
             channel("tls", "https://localhost:" + std::to_string(tls_port), "m",
                     "    proxy: corp\n    tls_ca_file: " + yamlQuote(caFile()) + "\n")),
      {}, proxy_env_);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  // Three requests on one client connection (one worker, one pool): one tunnel.
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  for (int i = 0; i < 3; ++i) {
    auto response = client->request("POST", "/v1/chat/completions", lifecycle::chatHeaders(kKey),
                                    lifecycle::chatBody("m"));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << response->body;
    EXPECT_NE(response->body.find("You said"), std::string::npos) << response->body;
  }
  std::string log = readFile(proxy_log);
  EXPECT_EQ(occurrences(log, "CONNECT localhost:" + std::to_string(tls_port) + " HTTP/1.1"), 1u) << log;
  // nginx saw the TLS connection of the tunnel serve all three.
  std::string access;
  ASSERT_TRUE(eventually([&] {
    access = readFile(temp().path() + "/nginx-access.log");
    return std::count(access.begin(), access.end(), '\n') >= 3;
  })) << access;
  auto connection = access.substr(0, access.find(' '));
  EXPECT_EQ(access, connection + " 1\n" + connection + " 2\n" + connection + " 3\n");
}

TEST_F(EgressTest, APlainHttpUpstreamGoesToAnHttpProxyInAbsoluteForm) {
  RecordingUpstream upstream([](RecordedRequest const&) { return chatAnswer(); });
  auto [proxy_port, proxy_log] = startTinyproxy(true);
  auto gateway = startGatewayYaml(
      config("proxies:\n  - {name: corp, mode: network, url: 'http://127.0.0.1:" +
                 std::to_string(proxy_port) + "', username_env: PROXY_USER, password_env: PROXY_PASS}\n",
             channel("plain", upstream.baseUrl(), "m", "    proxy: corp\n")),
      {}, proxy_env_);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto response = ask(gateway->port, "m");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  EXPECT_NE(readFile(proxy_log).find("POST http://127.0.0.1:" + std::to_string(upstream.port()) +
                                     "/v1/chat/completions HTTP/1.1"),
            std::string::npos)
      << readFile(proxy_log);
  auto requests = upstream.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].header("authorization"), "Bearer upstream-key-plain");
  EXPECT_EQ(requests[0].header("proxy-authorization"), "");  // the proxy's, not the upstream's
}

// A proxy refusing the gateway's credentials is the operator's to fix: the next channel serves,
// and the proxy's channels are not held against (no breaker opens, no key pauses: every request
// tries them again), counted per proxy, logged once per proxy. Refused twice here: a CONNECT
// with a wrong password (tinyproxy answers it with a 401), and a plain-http request to forward
// without credentials (a 407).
TEST_F(EgressTest, AProxyRefusingTheCredentialsIsAConfigurationErrorLoggedOnce) {
  auto [mock_port, tls_port] = startTlsMock();
  if (HasFatalFailure()) return;
  auto [proxy_port, proxy_log] = startTinyproxy(true);
  std::string const proxy_url = "'http://127.0.0.1:" + std::to_string(proxy_port) + "'";

  auto env = proxy_env_;
  env.emplace_back("WRONG_PASS", "wrong-password-for-the-proxy");
  auto gateway = startGatewayYaml(
      config("proxies:\n"
             "  - {name: corp, mode: network, url: " + proxy_url +
                 ", username_env: PROXY_USER, password_env: WRONG_PASS}\n"
             "  - {name: anonymous, mode: network, url: " + proxy_url + "}\n",
             channel("tunnelled", "https://localhost:" + std::to_string(tls_port), "m",
                     "    proxy: corp\n    priority: 20\n    tls_ca_file: " + yamlQuote(caFile()) + "\n") +
                 channel("forwarded", loopbackUrl(mock_port), "m", "    proxy: anonymous\n    priority: 10\n") +
                 channel("direct", loopbackUrl(mock_port), "m")),
      {}, env);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  for (int i = 0; i < 6; ++i) {
    auto response = ask(gateway->port, "m");
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << response->body;
  }
  // Both proxied channels were tried by every request (a breaker opens after 5 failures).
  for (std::string proxy : {"corp", "anonymous"}) {
    EXPECT_EQ(waitForMetric(gateway->port, "llmux_proxy_failures_total",
                            {{"proxy", proxy}, {"reason", "auth_rejected"}}, 6),
              6)
        << proxy;
  }
  std::string const output = gateway->process->output(Stream::Stderr) + gateway->process->output(Stream::Stdout);
  EXPECT_EQ(occurrences(output, "proxy corp refused the gateway's credentials"), 1u) << output;
  EXPECT_EQ(occurrences(output, "proxy anonymous refused the gateway's credentials"), 1u) << output;
  EXPECT_EQ(output.find("wrong-password-for-the-proxy"), std::string::npos);
}

TEST_F(EgressTest, Socks5ProxiesTunnelWithAndWithoutCredentials) {
  RecordingUpstream upstream([](RecordedRequest const&) { return chatAnswer(); });
  auto [dante_port, dante_log] = startDante();
  Socks5Server socks(kProxyUser, kProxyPassword);
  std::string const socks_url = "127.0.0.1:" + std::to_string(socks.port());
  std::string const at_localhost = "http://localhost:" + std::to_string(upstream.port());
  auto env = proxy_env_;
  env.emplace_back("WRONG_PASS", "not-the-socks-password");
  auto gateway = startGatewayYaml(
      config("proxies:\n"
             "  - {name: dante, mode: network, url: 'socks5h://127.0.0.1:" + std::to_string(dante_port) + "'}\n"
             "  - {name: named, mode: network, url: 'socks5h://" + socks_url +
                 "', username_env: PROXY_USER, password_env: PROXY_PASS}\n"
             "  - {name: resolved, mode: network, url: 'socks5://" + socks_url +
                 "', username_env: PROXY_USER, password_env: PROXY_PASS}\n"
             "  - {name: refused, mode: network, url: 'socks5://" + socks_url +
                 "', username_env: PROXY_USER, password_env: WRONG_PASS}\n",
             channel("via-dante", at_localhost, "m1", "    proxy: dante\n") +
                 channel("via-named", at_localhost, "m2", "    proxy: named\n") +
                 channel("via-resolved", upstream.baseUrl(), "m3", "    proxy: resolved\n") +
                 channel("via-refused", upstream.baseUrl(), "m4", "    proxy: refused\n")),
      {}, env);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  for (std::string model : {"m1", "m2", "m3"}) {
    auto response = ask(gateway->port, model);
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << model << ": " << response->body;
  }
  EXPECT_TRUE(eventually([&] { return readFile(dante_log).find("tcp/connect") != std::string::npos; }))
      << readFile(dante_log);
  // socks5h sends the name (the proxy resolves it); socks5 the address the gateway resolved.
  auto targets = socks.targets();
  std::string const port = std::to_string(upstream.port());
  EXPECT_NE(std::find(targets.begin(), targets.end(), "name:localhost:" + port), targets.end());
  EXPECT_NE(std::find(targets.begin(), targets.end(), "ip:127.0.0.1:" + port), targets.end());

  auto refused = ask(gateway->port, "m4");
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status(), 502) << refused->body;
  EXPECT_EQ(refused->body.find("not-the-socks-password"), std::string::npos);
  EXPECT_EQ(socks.refusedLogins(), 1);
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_proxy_failures_total",
                          {{"proxy", "refused"}, {"reason", "auth_rejected"}}, 1),
            1);
  EXPECT_EQ(upstream.requests().size(), 3u);
}

TEST_F(EgressTest, TheEnvironmentsProxyIsHonouredUnlessNoProxyOrDirectSaysOtherwise) {
  RecordingUpstream upstream([](RecordedRequest const&) { return chatAnswer(); });
  auto [proxy_port, proxy_log] = startTinyproxy(false);
  std::string const channels =
      channel("from-env", upstream.baseUrl(), "e") +
      channel("forced-direct", upstream.baseUrl(), "d", "    proxy: none\n");
  std::string const direct = "proxies:\n  - {name: none, mode: direct}\n";
  std::string const target = "POST http://127.0.0.1:" + std::to_string(upstream.port());

  auto through_env = startGatewayYaml(config(direct, channels), {},
                                      {{"HTTP_PROXY", "127.0.0.1:" + std::to_string(proxy_port)}});
  ASSERT_TRUE(through_env.ok()) << through_env.error().message;
  auto proxied = ask(through_env->port, "e");
  ASSERT_TRUE(proxied.ok()) << proxied.error().message;
  EXPECT_EQ(proxied->status(), 200) << proxied->body;
  EXPECT_EQ(occurrences(readFile(proxy_log), target), 1u) << readFile(proxy_log);
  // `direct` wins over the environment.
  auto forced = ask(through_env->port, "d");
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(forced->status(), 200) << forced->body;
  EXPECT_EQ(occurrences(readFile(proxy_log), target), 1u) << readFile(proxy_log);

  // NO_PROXY exempts the upstream's host: no proxy is tried, even a dead one.
  auto exempt = startGatewayYaml(config(direct, channels), {},
                                 {{"http_proxy", "http://127.0.0.1:" + std::to_string(freePort())},
                                  {"NO_PROXY", "example.com, 127.0.0.1"}});
  ASSERT_TRUE(exempt.ok()) << exempt.error().message;
  auto response = ask(exempt->port, "e");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  EXPECT_EQ(upstream.requests().size(), 3u);
}

TEST_F(EgressTest, AUrlPrefixForwarderGetsTheWholeUpstreamUrl) {
  RecordingUpstream forwarder([](RecordedRequest const&) { return chatAnswer(); });
  auto gateway = startGatewayYaml(config(
      "proxies:\n  - {name: worker, mode: url_prefix, url: '" + forwarder.baseUrl() + "/relay/'}\n",
      channel("far", "https://api.example.com/v1", "m", "    proxy: worker\n")));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto response = ask(gateway->port, "m");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  auto requests = forwarder.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].request_line,
            "POST /relay/https://api.example.com/v1/chat/completions HTTP/1.1");
  EXPECT_EQ(requests[0].header("host"), "127.0.0.1:" + std::to_string(forwarder.port()));
  EXPECT_EQ(requests[0].header("authorization"), "Bearer upstream-key-far");
}

TEST_F(EgressTest, ANodeIsWhereTheUpstreamSeesTheConnectionComeFrom) {
  RecordingUpstream upstream([](RecordedRequest const&) { return chatAnswer(); });
  auto node = startNode({"--source-address", "127.0.0.2"});
  ASSERT_TRUE(node.ok()) << node.error().message;
  auto env = proxy_env_;
  env.emplace_back("BAD_TOKEN", "not-the-node-token-at-all");
  std::string const node_url = "http://127.0.0.1:" + std::to_string(node->port);
  auto gateway = startGatewayYaml(
      config("proxies:\n  - {name: sg, mode: node, url: '" + node_url + "', token_env: NODE_TOKEN}\n"
             "  - {name: impostor, mode: node, url: '" + node_url + "', token_env: BAD_TOKEN}\n",
             channel("via-node", upstream.baseUrl(), "m", "    proxy: sg\n") +
                 channel("via-impostor", upstream.baseUrl(), "x", "    proxy: impostor\n")),
      {}, env);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto response = ask(gateway->port, "m");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  auto requests = upstream.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].peer_address, "127.0.0.2");

  auto refused = ask(gateway->port, "x");
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status(), 502) << refused->body;
  EXPECT_EQ(upstream.requests().size(), 1u);
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_proxy_failures_total",
                          {{"proxy", "impostor"}, {"reason", "auth_rejected"}}, 1),
            1);
  std::string const node_output = node->process->output(Stream::Stderr) + node->process->output(Stream::Stdout);
  EXPECT_EQ(node_output.find(kNodeToken), std::string::npos);
  EXPECT_EQ(node_output.find("not-the-node-token-at-all"), std::string::npos);
}

TEST_F(EgressTest, ANodeOverTlsCarriesTheUpstreamsTlsInsideItsOwn) {
  auto [mock_port, tls_port] = startTlsMock();
  if (HasFatalFailure()) return;
  std::string const dir = temp().path();
  auto node = startNode({"--tls-cert", dir + "/localhost.pem", "--tls-key", dir + "/localhost.key"});
  ASSERT_TRUE(node.ok()) << node.error().message;

  auto gateway = startGatewayYaml(
      config("proxies:\n  - {name: sg, mode: node, url: 'https://localhost:" + std::to_string(node->port) +
                 "', token_env: NODE_TOKEN, tls_ca_file: " + yamlQuote(caFile()) + "}\n",
             channel("far", "https://localhost:" + std::to_string(tls_port), "m",
                     "    proxy: sg\n    tls_ca_file: " + yamlQuote(caFile()) + "\n")),
      {}, proxy_env_);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (int i = 0; i < 2; ++i) {
    auto response = ask(gateway->port, "m");
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << response->body;
    EXPECT_NE(response->body.find("You said"), std::string::npos) << response->body;
  }
}

// Two keys of one channel bound to two nodes leave from two addresses; with
// exclusive_connections, a key's pooled connections never carry another key's requests.
TEST_F(EgressTest, KeysLeaveThroughTheirOwnExitsAndExclusiveConnectionsAreNeverShared) {
  RecordingUpstream upstream([](RecordedRequest const&) { return chatAnswer(); });
  auto node_a = startNode({"--source-address", "127.0.0.2"});
  ASSERT_TRUE(node_a.ok()) << node_a.error().message;
  auto node_b = startNode({"--source-address", "127.0.0.3"});
  ASSERT_TRUE(node_b.ok()) << node_b.error().message;
  auto gateway = startGatewayYaml(
      config("proxies:\n"
             "  - {name: node-a, mode: node, url: 'http://127.0.0.1:" + std::to_string(node_a->port) +
                 "', token_env: NODE_TOKEN}\n"
             "  - {name: node-b, mode: node, url: 'http://127.0.0.1:" + std::to_string(node_b->port) +
                 "', token_env: NODE_TOKEN}\n",
             channel("bound", upstream.baseUrl(), "bound-model", "",
                     "\n      - {key: up-key-a, proxy: node-a}\n      - {key: up-key-b, proxy: node-b}") +
                 channel("exclusive", upstream.baseUrl(), "exclusive-model", "    exclusive_connections: true\n",
                         "[up-key-c, up-key-d]")),
      {}, proxy_env_);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  // One client connection: one worker, one upstream pool.
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  for (std::string model : {"bound-model", "exclusive-model"}) {
    for (int i = 0; i < 12; ++i) {
      auto response = client->request("POST", "/v1/chat/completions", lifecycle::chatHeaders(kKey),
                                      lifecycle::chatBody(model));
      ASSERT_TRUE(response.ok()) << response.error().message;
      ASSERT_EQ(response->status(), 200) << response->body;
    }
  }
  std::map<std::string, std::set<std::string>> addresses_by_key;
  std::map<std::size_t, std::set<std::string>> keys_by_connection;
  for (auto const& request : upstream.requests()) {
    std::string key = request.header("authorization");
    addresses_by_key[key].insert(request.peer_address);
    keys_by_connection[request.connection].insert(key);
  }
  EXPECT_EQ(addresses_by_key["Bearer up-key-a"], std::set<std::string>{"127.0.0.2"});
  EXPECT_EQ(addresses_by_key["Bearer up-key-b"], std::set<std::string>{"127.0.0.3"});
  EXPECT_EQ(addresses_by_key["Bearer up-key-c"].size(), 1u) << "key c was never used";
  EXPECT_EQ(addresses_by_key["Bearer up-key-d"].size(), 1u) << "key d was never used";
  for (auto const& [connection, keys] : keys_by_connection) {
    EXPECT_EQ(keys.size(), 1u) << "connection " << connection << " carried several keys";
  }
}

/// What the node answers `request` with on a raw connection (until it closes).
std::string rawExchange(std::uint16_t port, std::string const& request) {
  auto connection = connectLoopback(port, Millis(2'000));
  if (!connection) return "connect failed: " + connection.error().message;
  if (!sendAll(connection->get(), request, MonoClock::now() + Millis(2'000))) return "send failed";
  std::string answer;
  MonoTime const deadline = MonoClock::now() + Millis(5'000);
  for (;;) {
    auto n = receiveSome(connection->get(), answer, deadline);
    if (!n || *n == 0) return answer;
  }
}

// The node is reachable by whoever finds its address: everything but an authenticated CONNECT to
// a reachable host is refused, and its head is bounded.
TEST_F(EgressTest, ANodeRefusesWhatIsNotAnAuthenticatedTunnel) {
  auto node = startNode();
  ASSERT_TRUE(node.ok()) << node.error().message;
  std::string const bearer = "Proxy-Authorization: Bearer " + std::string(kNodeToken) + "\r\n";
  auto status = [&](std::string const& request) {
    std::string answer = rawExchange(node->port, request);
    return answer.substr(0, answer.find("\r\n"));
  };
  EXPECT_EQ(status("GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: x\r\n\r\n"),
            "HTTP/1.1 405 Method Not Allowed");
  EXPECT_EQ(status("CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n"), "HTTP/1.1 407 Proxy Authentication Required");
  EXPECT_EQ(status("CONNECT 127.0.0.1:443 HTTP/1.1\r\nProxy-Authorization: Bearer " +
                   std::string(kNodeToken) + "x\r\n\r\n"),
            "HTTP/1.1 407 Proxy Authentication Required");
  EXPECT_EQ(status("CONNECT 127.0.0.1 HTTP/1.1\r\n" + bearer + "\r\n"), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(status("CONNECT 127.0.0.1:" + std::to_string(freePort()) + " HTTP/1.1\r\n" + bearer + "\r\n"),
            "HTTP/1.1 502 Bad Gateway");
  EXPECT_EQ(status("CONNECT 127.0.0.1:443 HTTP/1.1\r\nX-Padding: " + std::string(9'000, 'a') + "\r\n\r\n"),
            "HTTP/1.1 431 Request Header Fields Too Large");
  std::string const output = node->process->output(Stream::Stderr) + node->process->output(Stream::Stdout);
  EXPECT_EQ(output.find(kNodeToken), std::string::npos) << output;
}

}  // namespace
}  // namespace llmux::e2e
