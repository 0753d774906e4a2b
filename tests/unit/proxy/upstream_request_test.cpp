#include "proxy/upstream_request.h"

#include <gtest/gtest.h>

#include <string>

#include "settings_fixture.h"

namespace llmux::proxy {
namespace {

constexpr char kChannels[] = R"(
listen: 127.0.0.1:0
gateway_keys: [{name: dev, key: sk-dev}]
channels:
  - name: oai
    protocol: openai-chat
    base_url: https://api.example.com/relay/v1
    keys: [sk-upstream]
    models: [gpt-x]
    headers: {X-Team: blue, User-Agent: llmux-relay}
  - name: ant
    protocol: anthropic
    base_url: http://127.0.0.1:8081
    keys: [sk-ant]
    models: [claude-x]
  - name: gem
    protocol: gemini
    base_url: https://generativelanguage.googleapis.com
    keys: [AIza-upstream]
    models: [gemini-x]
  - name: q
    protocol: gemini
    base_url: http://127.0.0.1:9000
    keys: [qk]
    models: [gemini-x]
    auth: query:key
)";

HeaderList clientHeaders() {
  HeaderList h;
  h.add("Authorization", "Bearer sk-dev");
  h.add("x-api-key", "sk-dev");
  h.add("x-goog-api-key", "sk-dev");
  h.add("Content-Type", "application/json");
  h.add("Content-Length", "17");
  h.add("Connection", "keep-alive, X-Hop");
  h.add("X-Hop", "1");
  h.add("Accept-Encoding", "gzip");
  h.add("User-Agent", "OpenAI/JS 7.0");
  h.add("anthropic-beta", "tools-2024");
  h.add("X-Request-Id", "client-chosen");
  return h;
}

/// buildUpstreamHead for inputs that must be accepted.
std::string mustBuildHead(std::string_view method, UpstreamTarget const& target,
                          HeaderList const& client_headers, ForwardedHeaders forwarded,
                          HeaderList const& preset_headers, config::Channel const& channel,
                          config::ProtocolRow const& row, config::ChannelKey const& key,
                          std::string_view request_id, std::size_t content_length) {
  auto head = buildUpstreamHead(method, target, client_headers, forwarded, preset_headers, channel,
                                row, key, request_id, content_length);
  EXPECT_TRUE(head.ok()) << head.error().message;
  return head.ok() ? *head : std::string();
}

protocol::Route chatRoute() { return protocol::matchRoute("POST", "/v1/chat/completions").route; }

TEST(UpstreamRequest, TargetJoinsBasePathAndDropsTheClientKeyFromTheQuery) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto const& oai = catalog->settings().channels[0];
  auto target = upstreamTarget(oai, oai.rows[0], oai.keys[0], chatRoute(), "gpt-x", "key=sk-dev&debug=1");
  EXPECT_TRUE(target.peer.tls);
  EXPECT_EQ(target.peer.host, "api.example.com");
  EXPECT_EQ(target.peer.port, 443);
  EXPECT_EQ(target.host_header, "api.example.com");
  EXPECT_EQ(target.path_and_query, "/relay/v1/chat/completions?debug=1");
}

TEST(UpstreamRequest, GeminiModelInPathAndQueryAuth) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto route = protocol::matchRoute("POST", "/v1beta/models/gemini-x:streamGenerateContent").route;
  auto const& q = catalog->settings().channels[3];
  auto target = upstreamTarget(q, q.rows[0], q.keys[0], route, "gemini-x-001", "alt=sse&key=sk-dev");
  EXPECT_EQ(target.path_and_query, "/v1beta/models/gemini-x-001:streamGenerateContent?alt=sse&key=qk");
  EXPECT_EQ(target.host_header, "127.0.0.1:9000");
}

constexpr char kPathChannels[] = R"(
listen: 127.0.0.1:0
gateway_keys: [{name: dev, key: sk-dev}]
channels:
  - name: zhipu
    protocol: openai-chat
    base_url: https://open.bigmodel.cn/not-prepended
    chat_path: /api/paas/v4/chat/completions
    models_path: /api/paas/v4/models
    keys: [sk-zhipu]
    models: [glm-4.6]
  - name: vertex
    protocol: gemini
    base_url: http://127.0.0.1:9000/ignored
    chat_path: "/v1/projects/p1/models/{model}"
    auth: query:key
    keys: [qk]
    models: [gemini-x]
  - name: standard
    protocol: anthropic
    base_url: https://relay.example:8443/anthropic
    keys: [sk-ant]
    models: [claude-x]
)";

TEST(UpstreamRequest, TargetTakesTheRowsOwnPath) {
  auto catalog = routing::testing::catalogFrom(kPathChannels);
  auto const& zhipu = catalog->settings().channels[0];
  auto target = upstreamTarget(zhipu, zhipu.rows[0], zhipu.keys[0], chatRoute(), "glm-4.6", "a=1");
  EXPECT_EQ(target.path_and_query, "/api/paas/v4/chat/completions?a=1");
  EXPECT_EQ(target.host_header, "open.bigmodel.cn");

  auto const& vertex = catalog->settings().channels[1];
  auto stream = protocol::matchRoute("POST", "/v1beta/models/g:streamGenerateContent").route;
  target = upstreamTarget(vertex, vertex.rows[0], vertex.keys[0], stream, "gemini-x", "alt=sse");
  EXPECT_EQ(target.path_and_query,
            "/v1/projects/p1/models/gemini-x:streamGenerateContent?alt=sse&key=qk");
}

TEST(UpstreamRequest, RowUrlsForOperatorsCarryNoKey) {
  auto catalog = routing::testing::catalogFrom(kPathChannels);
  auto const& channels = catalog->settings().channels;
  EXPECT_EQ(chatUrl(channels[0].rows[0]), "https://open.bigmodel.cn/api/paas/v4/chat/completions");
  EXPECT_EQ(modelsUrl(channels[0].rows[0]), "https://open.bigmodel.cn/api/paas/v4/models");
  EXPECT_EQ(chatUrl(channels[1].rows[0]),
            "http://127.0.0.1:9000/v1/projects/p1/models/{model}:generateContent");
  EXPECT_EQ(modelsUrl(channels[1].rows[0]), "http://127.0.0.1:9000/ignored/v1beta/models")
      << "no models_path: the standard list behind the base URL's path";
  EXPECT_EQ(chatUrl(channels[2].rows[0]), "https://relay.example:8443/anthropic/v1/messages");
  EXPECT_EQ(modelsUrl(channels[2].rows[0]), "https://relay.example:8443/anthropic/v1/models");
}

TEST(UpstreamRequest, HeadCarriesChannelCredentialsNeverTheClients) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto const& oai = catalog->settings().channels[0];
  auto target = upstreamTarget(oai, oai.rows[0], oai.keys[0], chatRoute(), "gpt-x", "");
  std::string head = mustBuildHead("POST", target, clientHeaders(), ForwardedHeaders::EndToEnd, {}, oai,
                                       oai.rows[0], oai.keys[0], "rid-1", 42);
  EXPECT_EQ(head.rfind("POST /relay/v1/chat/completions HTTP/1.1\r\nHost: api.example.com\r\n", 0), 0u);
  EXPECT_NE(head.find("Authorization: Bearer sk-upstream\r\n"), std::string::npos);
  EXPECT_EQ(head.find("sk-dev"), std::string::npos) << head;
  EXPECT_EQ(head.find("X-Hop"), std::string::npos) << "named in Connection: hop-by-hop";
  EXPECT_EQ(head.find("Accept-Encoding"), std::string::npos);
  EXPECT_EQ(head.find("client-chosen"), std::string::npos);
  EXPECT_NE(head.find("X-Request-Id: rid-1\r\n"), std::string::npos);
  EXPECT_NE(head.find("Content-Length: 42\r\n"), std::string::npos);
  EXPECT_EQ(head.find("Content-Length: 17"), std::string::npos);
  EXPECT_NE(head.find("anthropic-beta: tools-2024\r\n"), std::string::npos) << "end-to-end header";
  EXPECT_NE(head.find("User-Agent: llmux-relay\r\n"), std::string::npos) << "the channel's value wins";
  EXPECT_EQ(head.find("OpenAI/JS"), std::string::npos);
  EXPECT_NE(head.find("X-Team: blue\r\n"), std::string::npos);
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

TEST(UpstreamRequest, ProtocolDefaultAuthStyles) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto const& ant = catalog->settings().channels[1];
  auto route = protocol::matchRoute("POST", "/v1/messages").route;
  std::string head = mustBuildHead("POST", upstreamTarget(ant, ant.rows[0], ant.keys[0], route, "claude-x", ""),
                                       HeaderList{}, ForwardedHeaders::EndToEnd, {}, ant, ant.rows[0],
                                       ant.keys[0], "r", 2);
  EXPECT_NE(head.find("x-api-key: sk-ant\r\n"), std::string::npos);
  EXPECT_NE(head.find("anthropic-version: 2023-06-01\r\n"), std::string::npos) << "added when missing";
  EXPECT_NE(head.find("Host: 127.0.0.1:8081\r\n"), std::string::npos);

  auto const& gem = catalog->settings().channels[2];
  auto groute = protocol::matchRoute("POST", "/v1beta/models/gemini-x:generateContent").route;
  head = mustBuildHead("POST", upstreamTarget(gem, gem.rows[0], gem.keys[0], groute, "gemini-x", ""),
                           HeaderList{}, ForwardedHeaders::EndToEnd, {}, gem, gem.rows[0], gem.keys[0],
                           "r", 2);
  EXPECT_NE(head.find("x-goog-api-key: AIza-upstream\r\n"), std::string::npos);
}

TEST(UpstreamRequest, TranslatedRequestsCarryOnlyGenericClientHeaders) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto const& ant = catalog->settings().channels[1];
  auto route = protocol::matchRoute("POST", "/v1/messages").route;
  std::string head = mustBuildHead("POST", upstreamTarget(ant, ant.rows[0], ant.keys[0], route, "claude-x", ""),
                                       clientHeaders(), ForwardedHeaders::Generic, {}, ant, ant.rows[0],
                                       ant.keys[0], "r", 2);
  EXPECT_NE(head.find("User-Agent: OpenAI/JS 7.0\r\n"), std::string::npos);
  EXPECT_EQ(head.find("anthropic-beta"), std::string::npos) << "the client's protocol-specific headers stay";
  EXPECT_NE(head.find("Content-Type: application/json\r\n"), std::string::npos);
  EXPECT_NE(head.find("anthropic-version: 2023-06-01\r\n"), std::string::npos);
  EXPECT_NE(head.find("x-api-key: sk-ant\r\n"), std::string::npos);
  EXPECT_EQ(head.find("sk-dev"), std::string::npos);
}

TEST(UpstreamRequest, PresetHeadersReplaceTheClientsButNotTheChannels) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto const& ant = catalog->settings().channels[1];
  auto route = protocol::matchRoute("POST", "/v1/messages").route;
  HeaderList preset;
  preset.add("User-Agent", "claude-cli/2.1.332 (external, cli)");
  preset.add("anthropic-version", "2023-06-01");
  preset.add("x-app", "cli");
  config::Channel channel = ant;
  channel.headers.add("x-app", "from-channel");
  std::string head = mustBuildHead(
      "POST", upstreamTarget(channel, channel.rows[0], channel.keys[0], route, "claude-x", ""),
      clientHeaders(), ForwardedHeaders::Generic, preset, channel, channel.rows[0],
      channel.keys[0], "r", 2);
  EXPECT_NE(head.find("User-Agent: claude-cli/2.1.332 (external, cli)\r\n"), std::string::npos);
  EXPECT_EQ(head.find("OpenAI/JS"), std::string::npos) << "the client's User-Agent is replaced";
  EXPECT_NE(head.find("x-app: from-channel\r\n"), std::string::npos);
  EXPECT_EQ(head.find("x-app: cli"), std::string::npos) << "the channel's headers win";
  EXPECT_EQ(head.find("anthropic-version"), head.rfind("anthropic-version")) << "sent once";
}

TEST(UpstreamRequest, ClientResponseHeadersDropFramingAndRenameTheUpstreamId) {
  HeaderList upstream;
  upstream.add("Content-Type", "text/event-stream");
  upstream.add("Transfer-Encoding", "chunked");
  upstream.add("Connection", "keep-alive");
  upstream.add("x-request-id", "req_upstream");
  upstream.add("anthropic-ratelimit-requests-remaining", "99");
  auto out = clientResponseHeaders(upstream, "rid-9", true);
  EXPECT_EQ(out.get("content-type"), "text/event-stream");
  EXPECT_FALSE(out.has("transfer-encoding"));
  EXPECT_FALSE(out.has("connection"));
  EXPECT_EQ(out.get("x-upstream-request-id"), "req_upstream");
  EXPECT_EQ(out.get("x-request-id"), "rid-9");
  EXPECT_EQ(out.get("anthropic-ratelimit-requests-remaining"), "99") << "the channel opted in";
}

TEST(UpstreamRequest, ClientResponseHeadersHideWhatTenantsMustNotSee) {
  HeaderList upstream;
  upstream.add("Content-Type", "application/json");
  upstream.add("Set-Cookie", "__cf_bm=abc; path=/");
  upstream.add("set-cookie", "_cfuvid=def");
  upstream.add("Alt-Svc", "h3=\":443\"");
  upstream.add("Strict-Transport-Security", "max-age=31536000");
  upstream.add("openai-organization", "org-operator");
  upstream.add("OpenAI-Project", "proj_operator");
  upstream.add("anthropic-organization-id", "0f2c-operator");
  upstream.add("X-LLMux-Attempts", "99");
  upstream.add("x-ratelimit-remaining-requests", "4999");
  upstream.add("anthropic-ratelimit-tokens-remaining", "80000");
  upstream.add("RateLimit-Policy", "100;w=60");
  upstream.add("retry-after", "7");
  upstream.add("openai-processing-ms", "120");
  auto out = clientResponseHeaders(upstream, "rid-1", false);
  HeaderList expected;
  expected.add("Content-Type", "application/json");
  expected.add("retry-after", "7");
  expected.add("openai-processing-ms", "120");
  expected.add("X-Request-Id", "rid-1");
  ASSERT_EQ(out.size(), expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].name, expected[i].name);
    EXPECT_EQ(out[i].value, expected[i].value);
  }
}


TEST(UpstreamRequest, LongHeaderNamesAreScreenedByTheirStartAndNeverTakenForListedOnes) {
  // Names longer than any listed one: prefixes still hide them, a listed name with more after it
  // is another header.
  std::string const padding(60, 'z');
  HeaderList upstream;
  upstream.add("X-LLMUX-" + padding, "1");
  upstream.add("X-RateLimit-" + padding, "2");
  upstream.add("Anthropic-RateLimit-" + padding, "3");
  upstream.add("Strict-Transport-Security" + padding, "4");
  upstream.add("Set-Cookie" + padding, "5");
  auto out = clientResponseHeaders(upstream, "rid-1", false);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].name, "Strict-Transport-Security" + padding);
  EXPECT_EQ(out[1].name, "Set-Cookie" + padding);
  EXPECT_EQ(out[2].name, "X-Request-Id");
  auto exposed = clientResponseHeaders(upstream, "rid-1", true);
  EXPECT_EQ(exposed.size(), 5u);  // the rate limits, when the channel opts in; never x-llmux-*
  EXPECT_FALSE(exposed.has("X-LLMUX-" + padding));
}

// --- the wire choke point: nothing that could end a header line early goes out ---

/// Injections a hostile value may try: a header line, a whole second request, a NUL.
constexpr std::string_view kInjections[] = {
    "abc\r\n\r\nPOST /v1/smuggled HTTP/1.1\r\nHost: evil\r\nX-Pad: ",
    "abc\nX-Injected: 1",
    "abc\rX-Injected: 1",
    std::string_view("abc\0def", 7),
    "abc\x7f",
};

TEST(UpstreamRequestWire, AClientHeaderValueWithAControlCharacterIsTheClientsError) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto const& ant = catalog->settings().channels[1];
  auto route = protocol::matchRoute("POST", "/v1/messages").route;
  auto target = upstreamTarget(ant, ant.rows[0], ant.keys[0], route, "claude-x", "");
  for (std::string_view injection : kInjections) {
    HeaderList client;
    client.add("anthropic-beta", injection);
    auto head = buildUpstreamHead("POST", target, client, ForwardedHeaders::EndToEnd, {}, ant,
                                  ant.rows[0], ant.keys[0], "r", 2);
    ASSERT_FALSE(head.ok());
    EXPECT_EQ(head.error().kind, ErrorKind::InvalidRequest);
    EXPECT_NE(head.error().message.find("anthropic-beta"), std::string::npos) << head.error().message;
    EXPECT_EQ(head.error().message.find("smuggled"), std::string::npos) << "never the value";
  }
}

TEST(UpstreamRequestWire, PresetHeadersCarryTheClientsValuesAndAreCheckedAsSuch) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto const& ant = catalog->settings().channels[1];
  auto route = protocol::matchRoute("POST", "/v1/messages").route;
  HeaderList preset;
  preset.add("x-claude-code-session-id", kInjections[0]);
  auto head = buildUpstreamHead("POST", upstreamTarget(ant, ant.rows[0], ant.keys[0], route, "claude-x", ""),
                                HeaderList{}, ForwardedHeaders::Generic, preset, ant, ant.rows[0],
                                ant.keys[0], "r", 2);
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.error().kind, ErrorKind::InvalidRequest);
  EXPECT_NE(head.error().message.find("x-claude-code-session-id"), std::string::npos);
}

TEST(UpstreamRequestWire, ChannelHeadersAndSecretsWithControlCharactersAreConfigurationErrors) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto route = protocol::matchRoute("POST", "/v1/messages").route;
  for (std::string_view injection : kInjections) {
    config::Channel channel = catalog->settings().channels[1];  // the loader refuses these:
    channel.headers.add("X-Team", injection);                   // built by hand
    auto head = buildUpstreamHead("POST", upstreamTarget(channel, channel.rows[0], channel.keys[0], route, "claude-x", ""),
                                  HeaderList{}, ForwardedHeaders::EndToEnd, {}, channel,
                                  channel.rows[0], channel.keys[0], "r", 2);
    ASSERT_FALSE(head.ok());
    EXPECT_EQ(head.error().kind, ErrorKind::Internal);
    EXPECT_NE(head.error().message.find("X-Team"), std::string::npos);

    channel = catalog->settings().channels[1];
    channel.keys[0].secret = "sk-ant" + std::string(injection);
    head = buildUpstreamHead("POST", upstreamTarget(channel, channel.rows[0], channel.keys[0], route, "claude-x", ""),
                             HeaderList{}, ForwardedHeaders::EndToEnd, {}, channel, channel.rows[0],
                             channel.keys[0], "r", 2);
    ASSERT_FALSE(head.ok());
    EXPECT_EQ(head.error().kind, ErrorKind::Internal);
    EXPECT_EQ(head.error().message.find("sk-ant"), std::string::npos) << "never the secret";
  }
}

TEST(UpstreamRequestWire, AQuerySecretIsPercentEncodedAndTheClientsQueryEscaped) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto route = protocol::matchRoute("POST", "/v1beta/models/gemini-x:generateContent").route;
  config::Channel q = catalog->settings().channels[3];
  q.keys[0].secret = "a&b=c/d+e%f";
  auto target = upstreamTarget(q, q.rows[0], q.keys[0], route, "gemini-x", "alt=sse&x=\x01 #\xff");
  EXPECT_EQ(target.path_and_query,
            "/v1beta/models/gemini-x:generateContent?alt=sse&x=%01%20%23%FF&key=a%26b%3Dc%2Fd%2Be%25f");
  auto head = buildUpstreamHead("POST", target, HeaderList{}, ForwardedHeaders::EndToEnd, {}, q,
                                q.rows[0], q.keys[0], "r", 2);
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->find("\r\n"), head->find(" HTTP/1.1\r\n") + 9) << "one request line";
}

TEST(UpstreamRequestWire, AnUnsafeTargetFromTheConfigurationIsRefused) {
  auto catalog = routing::testing::catalogFrom(kChannels);
  auto const& oai = catalog->settings().channels[0];
  UpstreamTarget target = upstreamTarget(oai, oai.rows[0], oai.keys[0], chatRoute(), "gpt-x", "");
  target.path_and_query = "/v1/chat/completions HTTP/1.1\r\nX: y";
  auto head = buildUpstreamHead("POST", target, HeaderList{}, ForwardedHeaders::EndToEnd, {}, oai,
                                oai.rows[0], oai.keys[0], "r", 2);
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.error().kind, ErrorKind::Internal);
}

}  // namespace
}  // namespace llmux::proxy

namespace llmux::proxy {
namespace {

// Egress (docs/egress.md): how an exit changes where a request goes and what its head says.
constexpr char kExits[] = R"(
listen: 127.0.0.1:0
gateway_keys: [{name: dev, key: sk-dev}]
proxies:
  - {name: corp, mode: network, url: 'http://alice:s3cret@proxy.corp:3128'}
  - {name: cf, mode: url_prefix, url: 'https://forwarder.example/fwd'}
  - {name: sg, mode: node, url: 'https://node.example:9443', token_env: NODE_TOKEN}
channels:
  - {name: plain, protocol: openai-chat, base_url: 'http://10.0.0.5:8000/v1', keys: [k-plain], models: [m], proxy: corp}
  - {name: tls, protocol: openai-chat, base_url: 'https://api.example.com', keys: [k-tls], models: [m], proxy: corp}
  - {name: far, protocol: openai-chat, base_url: 'https://api.example.com/v1', keys: [k-far], models: [m], proxy: cf}
  - name: own
    protocol: openai-chat
    base_url: https://api.example.com
    exclusive_connections: true
    keys: [k-one, {key: k-two, proxy: sg}]
    models: [m]
)";

struct ExitCase {
  config::SettingsPtr settings;
  UpstreamTarget target;
  std::string head;
};

ExitCase routed(std::size_t channel_index, std::size_t key_index = 0) {
  auto catalog = routing::testing::catalogFrom(kExits, {{"NODE_TOKEN", "node-token-0123456789"}});
  ExitCase out;
  out.settings = catalog->settingsPtr();
  auto const& settings = *out.settings;
  auto const& channel = settings.channels.at(channel_index);
  auto const& key = channel.keys.at(key_index);
  auto const& row = channel.rows.at(0);
  out.target = upstreamTarget(channel, row, key, chatRoute(), "m", "");
  routeThroughExit(out.target, config::proxyFor(settings, channel, key, row), channel, row, key);
  out.head = mustBuildHead("POST", out.target, HeaderList{}, ForwardedHeaders::EndToEnd, {},
                           channel, row, key, "rid", 2);
  return out;
}

TEST(UpstreamRequestExit, APlainUpstreamGoesToAnHttpProxyInAbsoluteFormWithItsCredentials) {
  auto c = routed(0);
  EXPECT_EQ(c.target.path_and_query, "http://10.0.0.5:8000/v1/chat/completions");
  EXPECT_TRUE(forwardedByProxy(c.target));
  EXPECT_TRUE(c.head.starts_with("POST http://10.0.0.5:8000/v1/chat/completions HTTP/1.1\r\n"));
  EXPECT_NE(c.head.find("\r\nProxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n"), std::string::npos);
  EXPECT_NE(c.target.peer.poolKey().find("|via=corp@http://proxy.corp:3128#"), std::string::npos);
}

TEST(UpstreamRequestExit, ATlsUpstreamGoesThroughATunnelAndTheProxyNeverSeesTheHead) {
  auto c = routed(1);
  EXPECT_EQ(c.target.path_and_query, "/v1/chat/completions");
  EXPECT_FALSE(forwardedByProxy(c.target));
  EXPECT_EQ(c.head.find("Proxy-Authorization"), std::string::npos);
  ASSERT_NE(c.target.peer.egress, nullptr);
  EXPECT_EQ(c.target.peer.egress->name, "corp");
  EXPECT_EQ(c.target.peer.host, "api.example.com");
}

TEST(UpstreamRequestExit, AUrlPrefixExitPutsTheWholeUrlAfterTheForwardersPath) {
  auto c = routed(2);
  EXPECT_EQ(c.target.path_and_query, "/fwd/https://api.example.com/v1/chat/completions");
  EXPECT_EQ(c.target.host_header, "forwarder.example");
  EXPECT_EQ(c.target.peer.host, "forwarder.example");
  EXPECT_TRUE(c.target.peer.tls);
  EXPECT_EQ(c.target.peer.egress, nullptr);
  EXPECT_TRUE(c.head.starts_with("POST /fwd/https://api.example.com/v1/chat/completions HTTP/1.1\r\n"));
}

TEST(UpstreamRequestExit, ExclusiveConnectionsAndExitsKeyThePool) {
  auto one = routed(3, 0);
  auto two = routed(3, 1);
  EXPECT_EQ(one.target.peer.egress, nullptr);
  ASSERT_NE(two.target.peer.egress, nullptr);
  EXPECT_EQ(two.target.peer.egress->kind, Egress::Kind::Node);
  EXPECT_NE(one.target.peer.poolKey(), two.target.peer.poolKey());
  EXPECT_NE(one.target.peer.poolKey().find("|for=" + one.settings->channels[3].keys[0].id),
            std::string::npos);
  // The pool key names no secret.
  EXPECT_EQ(two.target.peer.poolKey().find("node-token"), std::string::npos);
  EXPECT_EQ(routed(0).target.peer.poolKey().find("s3cret"), std::string::npos);
}

}  // namespace
}  // namespace llmux::proxy
