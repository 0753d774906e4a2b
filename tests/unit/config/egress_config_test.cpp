// The egress fields of the configuration (docs/egress.md): `proxies:`, the `proxy:` bindings of
// channels and keys, `exclusive_connections`, and the proxies the environment names.

#include <gtest/gtest.h>

#include "config/egress_parser.h"
#include "config/loader.h"
#include "fake_env.h"
#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;
using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

/// A document with `proxies` (YAML list items) and one channel on `base_url` bound to `binding`.
std::string document(std::string const& proxies, std::string const& binding = "",
                     std::string const& base_url = "https://api.example.com/v1",
                     std::string const& keys = "[k1]") {
  return "gateway_keys: [{name: a, key: gw-secret}]\n" +
         (proxies.empty() ? std::string() : "proxies:\n" + proxies) +
         "channels:\n  - name: c\n    protocol: openai-chat\n    base_url: \"" + base_url +
         "\"\n    keys: " + keys + "\n    models: [m]\n" + binding;
}


Proxy const* proxyOfTheKey(Settings const& settings, std::size_t key = 0) {
  auto const& channel = settings.channels.at(0);
  return proxyFor(settings, channel, channel.keys.at(key), channel.rows.at(0));
}

TEST(EgressConfig, EachModeIsReadWithWhatItNeeds) {
  auto settings = loaded(
      document("  - {name: corp, mode: network, url: 'http://proxy.corp:3128', username_env: U, password_env: P}\n"
               "  - {name: socks, mode: network, url: 'socks5h://127.0.0.1:7890'}\n"
               "  - {name: cf, mode: url_prefix, url: 'https://proxy.example.com/fwd/'}\n"
               "  - {name: none, mode: direct}\n"
               "  - {name: sg, mode: node, url: 'https://node-sg.example.com:9443', token_env: T}\n",
               "    proxy: corp\n"),
      fakeEnv({{"U", "alice"}, {"P", "s3cret"}, {"T", "node-token-0123456789"}}));
  ASSERT_NE(settings, nullptr);
  ASSERT_EQ(settings->proxies.size(), 5u);
  auto const& corp = settings->proxies[0];
  EXPECT_EQ(corp.mode, ProxyMode::Network);
  ASSERT_NE(corp.egress, nullptr);
  EXPECT_EQ(corp.egress->kind, Egress::Kind::HttpProxy);
  EXPECT_EQ(corp.egress->host, "proxy.corp");
  EXPECT_EQ(corp.egress->port, 3128);
  EXPECT_EQ(corp.egress->authorization, "Basic YWxpY2U6czNjcmV0");  // alice:s3cret
  EXPECT_EQ(corp.url, "http://proxy.corp:3128");
  EXPECT_EQ(corp.egress->identity.find("s3cret"), std::string::npos);

  auto const& socks = settings->proxies[1];
  EXPECT_EQ(socks.egress->kind, Egress::Kind::Socks5);
  EXPECT_TRUE(socks.egress->remote_dns);
  EXPECT_TRUE(socks.egress->authorization.empty());

  auto const& cf = settings->proxies[2];
  EXPECT_EQ(cf.mode, ProxyMode::UrlPrefix);
  EXPECT_EQ(cf.egress, nullptr);
  EXPECT_EQ(cf.prefix.host, "proxy.example.com");
  EXPECT_EQ(cf.prefix.port, 443);
  EXPECT_EQ(cf.prefix.path_prefix, "/fwd");

  EXPECT_EQ(settings->proxies[3].mode, ProxyMode::Direct);

  auto const& sg = settings->proxies[4];
  EXPECT_EQ(sg.egress->kind, Egress::Kind::Node);
  EXPECT_TRUE(sg.egress->tls);
  EXPECT_EQ(sg.egress->authorization, "Bearer node-token-0123456789");

  EXPECT_EQ(proxyOfTheKey(*settings), &corp);
}

TEST(EgressConfig, ProxyPortsDefaultAsCurlsDo) {
  auto settings = loaded(document("  - {name: h, mode: network, url: 'http://p.example'}\n"
                                  "  - {name: s, mode: network, url: 'https://p.example'}\n"
                                  "  - {name: k, mode: network, url: 'socks5://p.example'}\n"));
  ASSERT_NE(settings, nullptr);
  EXPECT_EQ(settings->proxies[0].egress->port, 1080);
  EXPECT_EQ(settings->proxies[1].egress->port, 443);
  EXPECT_TRUE(settings->proxies[1].egress->tls);
  EXPECT_EQ(settings->proxies[2].egress->port, 1080);
}

TEST(EgressConfig, AKeysOwnExitWinsOverItsChannels) {
  auto settings = loaded(document("  - {name: a, mode: network, url: 'http://a.example:3128'}\n"
                                  "  - {name: b, mode: network, url: 'http://b.example:3128'}\n"
                                  "  - {name: none, mode: direct}\n",
                                  "    proxy: a\n",
                                  "https://api.example.com",
                                  "\n      - {key: k1}\n      - {key: k2, proxy: b}\n      - {key: k3, proxy: none}"));
  ASSERT_NE(settings, nullptr);
  EXPECT_EQ(proxyOfTheKey(*settings, 0)->name, "a");
  EXPECT_EQ(proxyOfTheKey(*settings, 1)->name, "b");
  EXPECT_EQ(proxyOfTheKey(*settings, 2), nullptr);  // direct
}

TEST(EgressConfig, CredentialsInTheUrlAreSecretsAndNeverShown) {
  auto settings = loaded(document("  - {name: u, mode: network, url: 'socks5://bob:pa55@127.0.0.1:1080'}\n"));
  ASSERT_NE(settings, nullptr);
  auto const& egress = *settings->proxies[0].egress;
  EXPECT_EQ(egress.username, "bob");
  EXPECT_EQ(egress.password, "pa55");
  EXPECT_EQ(settings->proxies[0].url, "socks5://127.0.0.1:1080");
  EXPECT_EQ(egress.identity.find("pa55"), std::string::npos);
}

TEST(EgressConfig, MistakesAreReportedWithTheirPaths) {
  EXPECT_EQ(issuesOf(document("  - {name: x, mode: tunnel, url: 'http://p:1'}\n")),
            (Lines{"proxies[0].mode: unknown mode \"tunnel\" (expected network, url_prefix, direct or node)"}));
  EXPECT_EQ(issuesOf(document("  - {name: x, mode: network, url: 'ftp://p:1'}\n")),
            (Lines{"proxies[0].url: scheme ftp:// is not supported here (expected http://, https://, "
                   "socks5://, socks5h://)"}));
  EXPECT_EQ(issuesOf(document("  - {name: x, mode: network, url: 'http://p:1/path'}\n")),
            (Lines{"proxies[0].url: must not contain a path"}));
  EXPECT_EQ(issuesOf(document("  - {name: x, mode: direct, url: 'http://p:1'}\n")),
            (Lines{"proxies[0].url: a direct proxy has no url"}));
  EXPECT_EQ(issuesOf(document("  - {name: x, mode: node, url: 'https://n:1'}\n")),
            (Lines{"proxies[0].token_env: required field is missing (the node's token)"}));
  EXPECT_EQ(issuesOf(document("  - {name: x, mode: url_prefix, url: 'https://u:p@f.example'}\n")),
            (Lines{"proxies[0].url: must not contain credentials"}));
  EXPECT_EQ(issuesOf(document("  - {name: x, mode: node, url: 'https://n:1', token_env: NOPE}\n")),
            (Lines{"proxies[0].token_env: environment variable NOPE is not set"}));
  EXPECT_EQ(issuesOf(document("  - {name: x, mode: direct}\n  - {name: x, mode: direct}\n")),
            (Lines{"proxies[1].name: duplicate proxy name \"x\""}));
  EXPECT_EQ(issuesOf(document("", "    proxy: nowhere\n")),
            (Lines{"channels[0].proxy: no proxy named \"nowhere\" in proxies:"}));
}

TEST(EgressConfig, AUrlPrefixExitRefusesAKeyInTheQuery) {
  std::string yaml = "gateway_keys: [{name: a, key: gw-secret}]\n"
                     "proxies: [{name: cf, mode: url_prefix, url: 'https://f.example'}]\n"
                     "channels:\n  - {name: g, protocol: gemini, base_url: 'https://g.example', "
                     "keys: [k1], models: [m], auth: 'query:key', proxy: cf}\n";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"channels[0]: proxy \"cf\" (url_prefix) would carry the key of g#0 in the "
                   "forwarder's URL; authenticate with a header (auth: header:NAME) instead of a "
                   "query parameter"}));
}

TEST(EgressConfig, TheEnvironmentsProxiesAreReadAsCurlReadsThem) {
  auto env = fakeEnv({{"https_proxy", "http://secure.example:3128"},
                      {"HTTP_PROXY", "plain.example:8080"},
                      {"NO_PROXY", "internal.example"}});
  auto https = loaded(document(""), env);
  ASSERT_NE(https, nullptr);
  Proxy const* chosen = proxyOfTheKey(*https);
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen->name, "$https_proxy");
  EXPECT_EQ(chosen->egress->host, "secure.example");

  auto plain = loaded(document("", "", "http://api.example.com"), env);
  ASSERT_NE(plain, nullptr);
  chosen = proxyOfTheKey(*plain);
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen->name, "$HTTP_PROXY");
  EXPECT_EQ(chosen->egress->port, 8080);  // no scheme: an HTTP proxy

  auto exempt = loaded(document("", "", "https://api.internal.example"), env);
  ASSERT_NE(exempt, nullptr);
  EXPECT_EQ(proxyOfTheKey(*exempt), nullptr);

  // A configured exit (direct included) wins over the environment.
  auto direct = loaded(document("  - {name: none, mode: direct}\n", "    proxy: none\n"), env);
  ASSERT_NE(direct, nullptr);
  EXPECT_EQ(proxyOfTheKey(*direct), nullptr);

  EXPECT_EQ(issuesOf(document(""), fakeEnv({{"ALL_PROXY", "socks4://p.example:1080"}})),
            (Lines{"(environment) ALL_PROXY: scheme socks4:// is not supported here (expected "
                   "http://, https://, socks5://, socks5h://)"}));
}

TEST(NoProxy, MatchesAsCurlDoes) {
  using detail::noProxyExempts;
  EXPECT_TRUE(noProxyExempts("*", "anything.example"));
  EXPECT_TRUE(noProxyExempts("example.com", "example.com"));
  EXPECT_TRUE(noProxyExempts("example.com", "api.example.com"));
  EXPECT_TRUE(noProxyExempts(".example.com", "api.example.com"));
  EXPECT_FALSE(noProxyExempts("example.com", "badexample.com"));
  EXPECT_TRUE(noProxyExempts("other.org, EXAMPLE.com:443", "api.example.com"));
  EXPECT_TRUE(noProxyExempts("10.0.0.0/8", "10.1.2.3"));
  EXPECT_FALSE(noProxyExempts("10.0.0.0/8", "11.1.2.3"));
  EXPECT_TRUE(noProxyExempts("127.0.0.1", "127.0.0.1"));
  EXPECT_TRUE(noProxyExempts("[::1]", "::1"));
  EXPECT_FALSE(noProxyExempts("", "example.com"));
  EXPECT_FALSE(noProxyExempts("10.0.0.0/33", "10.0.0.1"));
}

TEST(EgressConfig, ExclusiveConnectionsAreReadPerChannel) {
  auto settings = loaded(document("", "    exclusive_connections: true\n"));
  ASSERT_NE(settings, nullptr);
  EXPECT_TRUE(settings->channels[0].exclusive_connections);
}

}  // namespace
}  // namespace llmux::config

namespace llmux::config {
namespace {

// What a reload compares to keep or drop what was learned about a channel's route.
TEST(ChannelRoute, ChangesWithTheUpstreamOrTheExitNotWithWeightsOrKeysOnTheSameExit) {
  std::string const proxies = "  - {name: a, mode: network, url: 'http://a.example:3128'}\n"
                              "  - {name: b, mode: network, url: 'http://b.example:3128'}\n";
  auto route = [&](std::string const& binding, std::string const& base_url, std::string const& keys) {
    auto settings = loaded(document(proxies, binding, base_url, keys));
    return settings ? channelRoute(*settings, settings->channels[0]) : std::string("(invalid)");
  };
  std::string const base = route("    proxy: a\n", "https://api.example.com", "[k1]");
  EXPECT_EQ(route("    proxy: a\n    weight: 3\n", "https://api.example.com", "[k1, k2]"), base);
  EXPECT_NE(route("    proxy: b\n", "https://api.example.com", "[k1]"), base);
  EXPECT_NE(route("    proxy: a\n", "https://api2.example.com", "[k1]"), base);
  EXPECT_NE(route("    proxy: a\n", "https://api.example.com", "[k1, {key: k2, proxy: b}]"), base);
}

}  // namespace
}  // namespace llmux::config
