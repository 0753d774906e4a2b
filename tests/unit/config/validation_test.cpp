// Strict validation: every error class, with its exact path, all reported in one pass.

#include <gtest/gtest.h>

#include "config/loader.h"
#include "fake_env.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;

/// The issues of `yaml` as "path: message" lines; also checks that no Settings came out.
std::vector<std::string> issuesOf(std::string const& yaml, EnvLookup const& env = fakeEnv()) {
  auto outcome = parseSettings(yaml, env);
  EXPECT_EQ(outcome.settings, nullptr);
  EXPECT_FALSE(outcome.ok());
  std::vector<std::string> out;
  for (auto const& issue : outcome.issues) out.push_back(issue.text());
  return out;
}

using Lines = std::vector<std::string>;

/// A valid document with `channel` (flow mapping fields) as its only channel.
std::string withChannel(std::string const& fields) {
  return "gateway_keys: [{name: a, key: secret-a}]\nchannels:\n  - {" + fields + "}\n";
}

constexpr char kGoodChannel[] =
    "name: c, protocol: openai-chat, base_url: \"https://x.example\", keys: [k], models: [m]";

TEST(Validation, GoodChannelTemplateIsValid) {
  auto outcome = parseSettings(withChannel(kGoodChannel), fakeEnv());
  EXPECT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
}

TEST(Validation, UnknownKeysAnywhere) {
  std::string yaml = R"(
listne: 127.0.0.1:8080
server: {threds: 2}
log: {levle: info}
gateway_keys:
  - {name: a, key: s, secret: x}
channels:
  - name: c
    protocol: gemini
    base_url: https://g.example
    keys: [k]
    modles: [m]
    models: [m]
    timeouts: {connect: 5}
)";
  EXPECT_EQ(
      issuesOf(yaml),
      (Lines{"listne: unknown key (expected one of listen, admin_listen, metrics_listen, server, "
             "log, state_dir, gateway_keys, channels, admin_token, admin_token_env, admin_tokens, metrics_token, "
             "metrics_token_env, model_groups, fallbacks, freeze_rules, default_freeze_rules, "
             "retry, buckets, redis, database, payloads, prices, racing, proxies, slo, alerts, "
             "probes, retention)",
             "server.threds: unknown key (expected one of threads, max_body_bytes, "
             "max_header_bytes, max_header_count, max_connections, max_buffered_body_bytes, "
             "body_min_rate, body_rate_grace_ms, header_timeout_ms, body_timeout_ms, "
             "keepalive_timeout_ms, lame_duck_ms, drain_timeout_ms, body_limits)",
             "log.levle: unknown key (expected one of access_log, request_log, "
             "request_log_retention_days, level)",
             "gateway_keys[0].secret: unknown key (expected one of name, key, key_env, strategy, "
             "limits, cost_preference)",
             "channels[0].modles: unknown key (expected one of name, protocol, base_url, keys, "
             "models, model_map, auth, headers, timeouts, priority, weight, enabled, tls_ca_file, "
             "protocols, chat_path, models_path, client_preset, model_presets, capabilities, "
             "breaker, model_limits, expose_rate_limit_headers, racing, proxy, exclusive_connections, "
             "media, inspection, probes)",
             "channels[0].timeouts.connect: unknown key (expected one of connect_ms, "
             "first_byte_ms, first_token_ms, first_token_reasoning_ms, idle_ms, total_ms)"}));
}

TEST(Validation, UnknownProtocol) {
  EXPECT_EQ(issuesOf(withChannel(
                "name: c, protocol: openai, base_url: \"https://x.example\", keys: [k], models: [m]")),
            (Lines{"channels[0].protocol: unknown protocol \"openai\" (expected openai-chat, "
                   "openai-responses, anthropic, gemini)"}));
}

TEST(Validation, BadBaseUrl) {
  EXPECT_EQ(issuesOf(withChannel(
                "name: c, protocol: anthropic, base_url: \"ftp://x.example\", keys: [k], models: [m]")),
            (Lines{"channels[0].base_url: not an http(s) URL"}));
  EXPECT_EQ(issuesOf(withChannel(
                "name: c, protocol: anthropic, base_url: \"https://x.example/?a=1\", keys: [k], "
                "models: [m]")),
            (Lines{"channels[0].base_url: must not contain a query (?...)"}));
}

TEST(Validation, WrongTypes) {
  std::string yaml = R"(
gateway_keys: {name: a, key: b}
channels:
  - name: c
    protocol: [anthropic]
    base_url: https://x.example
    keys: {first: k}
    models: m
    model_map: [a, b]
    headers: [X-A]
    priority: high
    weight: 1.5
    enabled: maybe
)";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"gateway_keys: expected a list, got a mapping",
                   "channels[0].protocol: expected a string, got a list",
                   "channels[0].keys: expected a list, got a mapping",
                   "channels[0].models: expected a list, got a scalar",
                   "channels[0].model_map: expected a mapping, got a list",
                   "channels[0].headers: expected a mapping, got a list",
                   "channels[0].priority: expected an integer from -1000000 to 1000000",
                   "channels[0].weight: expected an integer from 1 to 1000000",
                   "channels[0].enabled: expected true or false"}));
}

TEST(Validation, RootMustBeAMapping) {
  EXPECT_EQ(issuesOf("- a\n- b\n"), (Lines{"expected a mapping, got a list"}));
  EXPECT_EQ(issuesOf(""), (Lines{"the configuration is empty"}));
  EXPECT_EQ(issuesOf("# nothing but a comment\n"), (Lines{"the configuration is empty"}));
  EXPECT_EQ(issuesOf("a: 1\n---\nb: 2\n"), (Lines{"expected one YAML document, found 2"}));
}

TEST(Validation, MissingRequiredFields) {
  std::string yaml = R"(
channels:
  - protocol: gemini
  - name: c2
    keys: []
    models: []
)";
  EXPECT_EQ(issuesOf(yaml), (Lines{"gateway_keys: required field is missing",
                                   "channels[0].name: required field is missing",
                                   "channels[0].base_url: required field is missing",
                                   "channels[0].keys: required field is missing",
                                   "channels[0].models: required field is missing (or give a "
                                   "model_map)",
                                   "channels[1].protocol: required field is missing (or give protocols)",
                                   "channels[1].base_url: required field is missing",
                                   "channels[1].keys: at least one key is required",
                                   "channels[1].models: at least one model is required (or a "
                                   "model_map entry)"}));
  EXPECT_EQ(issuesOf("gateway_keys: [{name: a, key: b}]\n"),
            (Lines{"channels: required field is missing"}));
  EXPECT_EQ(issuesOf("gateway_keys: []\nchannels: []\n"),
            (Lines{"gateway_keys: at least one gateway key is required",
                   "channels: at least one channel is required"}));
}

TEST(Validation, ModelMapAloneIsEnough) {
  auto outcome = parseSettings(
      withChannel("name: c, protocol: anthropic, base_url: \"https://x.example\", keys: [k], "
                  "model_map: {sonnet: claude-sonnet-4-5}"),
      fakeEnv());
  EXPECT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  // An empty model_map does not count.
  EXPECT_EQ(issuesOf(withChannel("name: c, protocol: anthropic, base_url: \"https://x.example\", "
                                 "keys: [k], models: [], model_map: {}")),
            (Lines{"channels[0].models: at least one model is required (or a model_map entry)"}));
}

TEST(Validation, DuplicateNamesAndSecrets) {
  std::string yaml = R"(
gateway_keys:
  - {name: dev, key: sk-dev-123}
  - {name: ci, key: sk-dev-123}
  - {name: dev, key_env: OTHER}
  - {name: env-twin, key_env: SAME_AS_CI}
channels:
  - {name: c, protocol: gemini, base_url: "https://x.example", keys: [k1, k2, k1], models: [m, n, m]}
  - {name: d, protocol: gemini, base_url: "https://x.example", keys: [k1], models: [m]}
  - {name: c, protocol: gemini, base_url: "https://x.example", keys: [k1], models: [m]}
)";
  EXPECT_EQ(issuesOf(yaml, fakeEnv({{"OTHER", "sk-other"}, {"SAME_AS_CI", "sk-dev-123"}})),
            (Lines{"gateway_keys[1].key: duplicate gateway key (same secret as gateway_keys[0])",
                   "gateway_keys[2].name: duplicate gateway key name \"dev\" (also "
                   "gateway_keys[0])",
                   "gateway_keys[3].key_env: duplicate gateway key (same secret as "
                   "gateway_keys[0])",
                   "channels[0].keys[2]: duplicate key (same secret as channels[0].keys[0])",
                   "channels[0].models[2]: duplicate model \"m\"",
                   "channels[2].name: duplicate channel name \"c\" (also channels[0])"}));
}

TEST(Validation, GatewayKeySecretSources) {
  std::string yaml = R"(
gateway_keys:
  - {name: both, key: a, key_env: B}
  - {name: neither}
  - {name: empty, key: ""}
  - {name: unset, key_env: NOT_SET}
  - {name: blank, key_env: BLANK}
  - {name: badvar, key_env: "1-x"}
  - {name: "bad name!", key: z}
channels:
  - {name: c, protocol: gemini, base_url: "https://x.example", keys: ["", "${ALSO_UNSET}"], models: [m]}
)";
  EXPECT_EQ(issuesOf(yaml, fakeEnv({{"B", "b"}, {"BLANK", ""}})),
            (Lines{"gateway_keys[0]: set either key or key_env, not both",
                   "gateway_keys[1]: one of key or key_env is required",
                   "gateway_keys[2].key: empty secret",
                   "gateway_keys[3].key_env: environment variable NOT_SET is not set",
                   "gateway_keys[4].key_env: empty secret",
                   "gateway_keys[5].key_env: not an environment variable name",
                   "gateway_keys[6].name: must be 1 to 64 letters, digits, '.', '_' or '-'",
                   "channels[0].keys[0]: empty secret",
                   "channels[0].keys[1]: environment variable ALSO_UNSET is not set"}));
}

TEST(Validation, SecretsThatCouldBreakAHeaderOrAUrlAreRefused) {
  std::string yaml = R"(
admin_token_env: TOKEN
gateway_keys:
  - {name: nl, key_env: WITH_NEWLINE}
  - {name: cr, key_env: WITH_CR}
  - {name: sp, key: "sk gw"}
channels:
  - name: c
    protocol: gemini
    base_url: "https://x.example"
    keys: ["${WITH_NEWLINE}", {key_env: WITH_CONTROL}, " padded"]
    models: [m]
    headers: {X-Team: "${WITH_NEWLINE}"}
)";
  auto env = fakeEnv({{"WITH_NEWLINE", "sk-topsecret\n"},
                      {"WITH_CR", "sk-topsecret\r\nX-Injected: 1"},
                      {"WITH_CONTROL", std::string("sk-top\0secret", 13)},
                      {"TOKEN", "tok-topsecret\n"}});
  auto issues = issuesOf(yaml, env);
  EXPECT_EQ(issues,
            (Lines{"gateway_keys[0].key_env: the secret ends with a line break (read from a file or a variable with its newline?)",
                   "gateway_keys[1].key_env: the secret contains a control character or a non-ASCII byte",
                   "gateway_keys[2].key: the secret contains whitespace",
                   "channels[0].keys[0]: the secret ends with a line break (read from a file or a variable with its newline?)",
                   "channels[0].keys[1].key_env: the secret contains a control character or a non-ASCII byte",
                   "channels[0].keys[2]: the secret starts or ends with whitespace",
                   "channels[0].headers.X-Team: header value must not contain control characters",
                   "admin_token_env: the secret ends with a line break (read from a file or a variable with its newline?)"}));
  for (auto const& line : issues) EXPECT_EQ(line.find("topsecret"), std::string::npos) << line;
}

TEST(Validation, OperatorAddressesAndTokens) {
  std::string yaml = R"(
listen: 127.0.0.1:8080
admin_listen: 127.0.0.1:8080
metrics_listen: nowhere
metrics_token: secret-a
gateway_keys: [{name: a, key: secret-a}]
channels:
  - {name: c, protocol: gemini, base_url: "https://x.example", keys: [k], models: [m]}
)";
  auto issues = issuesOf(yaml);
  ASSERT_EQ(issues.size(), 3u) << formatIssues(parseSettings(yaml, fakeEnv()).issues);
  EXPECT_TRUE(issues[0].starts_with("metrics_listen: ")) << issues[0];
  EXPECT_EQ(issues[1], "admin_listen: must differ from listen");
  EXPECT_EQ(issues[2], "metrics_token: must differ from every gateway key (same secret as gateway_keys[0])");

  auto good = parseSettings(R"(
admin_listen: 127.0.0.1:9090
metrics_listen: 127.0.0.1:9090
metrics_token_env: TOKEN
gateway_keys: [{name: a, key: secret-a}]
channels:
  - {name: c, protocol: gemini, base_url: "https://x.example", keys: [k], models: [m]}
)", fakeEnv({{"TOKEN", "met-token"}}));
  ASSERT_TRUE(good.ok()) << formatIssues(good.issues);
  EXPECT_EQ(good.settings->server.admin_listen, "127.0.0.1:9090");
  EXPECT_EQ(good.settings->server.metrics_listen, "127.0.0.1:9090");
  EXPECT_EQ(good.settings->metrics_token, "met-token");
}

TEST(Validation, InvalidListenAddresses) {
  struct Case {
    std::string listen;
    std::string message;
  };
  std::vector<Case> const cases = {
      {"127.0.0.1", "expected host:port"},
      {"127.0.0.1:65536", "port must be a number from 0 to 65535"},
      {"127.0.0.1:-1", "port must be a number from 0 to 65535"},
      {"127.0.0.1:http", "port must be a number from 0 to 65535"},
      {"300.1.1.1:80", "invalid IPv4 address"},
      {"::1:8080", "an IPv6 address must be written in brackets: [addr]:port"},
      {"[::1", "expected host:port ('[' without ']')"},
      {"[zz::1]:80", "invalid IPv6 address"},
      {"[::1]8080", "expected [IPv6]:port"},
      {":8080", "expected host:port (host is empty)"},
      {"bad_host!:80", "invalid host name"},
  };
  for (auto const& test_case : cases) {
    std::string yaml = "listen: \"" + test_case.listen + "\"\n" + withChannel(kGoodChannel);
    EXPECT_EQ(issuesOf(yaml), (Lines{"listen: " + test_case.message})) << test_case.listen;
  }
}

TEST(Validation, ValueRanges) {
  std::string yaml = R"(
server: {threads: 5000, max_body_bytes: 0, header_timeout_ms: -1, max_header_bytes: 10}
log: {level: verbose, access_log: "", request_log_retention_days: -1}
gateway_keys: [{name: a, key: b}]
channels:
  - name: c
    protocol: gemini
    base_url: https://x.example
    keys: [k]
    models: [m, ""]
    model_map: {alias: ""}
    weight: 0
    priority: 2000000
    timeouts: {total_ms: 0}
    auth: "basic"
    headers: {"Bad Header": x, Host: y, X-Ok: "a\nb"}
)";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"server.threads: must be from 0 to 1024",
                   "server.max_body_bytes: must be from 1 to 1099511627776",
                   "server.max_header_bytes: must be from 1024 to 16777216",
                   "server.header_timeout_ms: must be from 1 to 86400000",
                   "log.access_log: must not be empty (use off to disable the access log)",
                   "log.request_log_retention_days: must be from 0 to 36500",
                   "log.level: unknown level \"verbose\" (expected debug, info, warn, error)",
                   "channels[0].auth: unknown auth style \"basic\" (expected default, bearer, "
                   "x-api-key, header:NAME or query:NAME)",
                   "channels[0].models[1]: must not be empty",
                   "channels[0].model_map.alias: must not be empty",
                   "channels[0].headers[\"Bad Header\"]: not a valid HTTP header name",
                   "channels[0].headers.Host: header is managed by llmux and cannot be set",
                   "channels[0].headers.X-Ok: header value must not contain control characters",
                   "channels[0].timeouts.total_ms: must be from 1 to 86400000",
                   "channels[0].priority: must be from -1000000 to 1000000",
                   "channels[0].weight: must be from 1 to 1000000"}));
}

TEST(Validation, AuthWithoutAName) {
  EXPECT_EQ(issuesOf(withChannel(std::string(kGoodChannel) + ", auth: \"header:\"")),
            (Lines{"channels[0].auth: header:NAME needs a valid HTTP header name"}));
  EXPECT_EQ(issuesOf(withChannel(std::string(kGoodChannel) + ", auth: \"query:a b\"")),
            (Lines{"channels[0].auth: query:NAME needs a parameter name of letters, digits, '-', "
                   "'.', '_', '~'"}));
}

TEST(Validation, UpstreamPathsMustBePlainAbsolutePaths) {
  // Each bad chat_path, written in a YAML double-quoted scalar (so "\\r" is a YAML escape), with
  // the message it gets.
  struct Case {
    std::string_view path;
    std::string_view message;
  };
  Case const cases[] = {
      {"api/v3/chat/completions", "must start with '/' (an absolute path on the base URL's host)"},
      {"", "must start with '/' (an absolute path on the base URL's host)"},
      {"/v1/chat\\r\\n/completions", "must not contain control characters (CR, LF, NUL, ...)"},
      {"/v1/chat\\t", "must not contain control characters (CR, LF, NUL, ...)"},
      {"/v1/chat completions", "must not contain spaces (percent-encode them as %20)"},
      {"/v1/chat/completions?beta=true",
       "must not contain '?' or '#': the query string is the gateway's (client query, query auth)"},
      {"/v1/chat#x",
       "must not contain '?' or '#': the query string is the gateway's (client query, query auth)"},
      {"/v1/caf\\u00e9", "must be ASCII (percent-encode other bytes as %XX)"},
      {"/v1/100%", "'%' must start a percent-encoded byte (%XX)"},
      {"/v1/a%2", "'%' must start a percent-encoded byte (%XX)"},
      {"/v1/a%zz", "'%' must start a percent-encoded byte (%XX)"},
      {"/v1/a|b", "character '|' is not allowed in a URL path (percent-encode it)"},
      {"/v1/{model}/chat", "{model} is only allowed in the chat_path of a gemini row"},
  };
  for (Case const& c : cases) {
    std::string yaml = withChannel(std::string(kGoodChannel) + ", chat_path: \"" +
                                   std::string(c.path) + "\"");
    EXPECT_EQ(issuesOf(yaml), (Lines{"channels[0].chat_path: " + std::string(c.message)}))
        << c.path;
  }
  EXPECT_EQ(issuesOf(withChannel(std::string(kGoodChannel) + ", models_path: models")),
            (Lines{"channels[0].models_path: must start with '/' (an absolute path on the base "
                   "URL's host)"}));
  EXPECT_EQ(issuesOf(withChannel(std::string(kGoodChannel) + ", chat_path: [/a]")),
            (Lines{"channels[0].chat_path: expected a string, got a list"}));
}

TEST(Validation, GeminiChatPathEndsWithTheModelPlaceholder) {
  auto gemini = [](std::string const& paths) {
    return withChannel(
        "name: g, protocol: gemini, base_url: \"https://g.example\", keys: [k], models: [m], " +
        paths);
  };
  std::string const must_end =
      "a gemini row's chat_path must end with {model} (the gateway puts the model there and "
      "appends :generateContent or :streamGenerateContent)";
  EXPECT_EQ(issuesOf(gemini("chat_path: /v1beta/models/gemini-pro")),
            (Lines{"channels[0].chat_path: " + must_end}));
  EXPECT_EQ(issuesOf(gemini("chat_path: \"/v1/models/{model}:generateContent\"")),
            (Lines{"channels[0].chat_path: " + must_end}));
  EXPECT_EQ(issuesOf(gemini("chat_path: \"/{model}/models/{model}\"")),
            (Lines{"channels[0].chat_path: {model} may appear only once, at the end"}));
  EXPECT_EQ(issuesOf(gemini("chat_path: \"/v1/mod els/{model}\"")),
            (Lines{"channels[0].chat_path: must not contain spaces (percent-encode them as %20)"}));
  EXPECT_EQ(issuesOf(gemini("models_path: \"/v1/models/{model}\"")),
            (Lines{"channels[0].models_path: {model} is only allowed in the chat_path of a "
                   "gemini row"}));
}

TEST(Validation, UpstreamPathsBelongToOneProtocolRow) {
  std::string yaml = R"(
gateway_keys: [{name: a, key: secret-a}]
channels:
  - name: relay
    base_url: https://relay.example
    chat_path: /api/v3/chat/completions
    models_path: /api/v3/models
    protocols:
      - {protocol: openai-chat, chat_path: /api/v3/chat/completions}
      - {protocol: gemini, chat_path: /gemini/models/pro}
      - {protocol: anthropic, models_path: "/anthropic?x"}
    keys: [k]
    models: [m]
)";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"channels[0].chat_path: set it on each protocols row (a path belongs to one "
                   "protocol)",
                   "channels[0].models_path: set it on each protocols row (a path belongs to one "
                   "protocol)",
                   "channels[0].protocols[1].chat_path: a gemini row's chat_path must end with "
                   "{model} (the gateway puts the model there and appends :generateContent or "
                   ":streamGenerateContent)",
                   "channels[0].protocols[2].models_path: must not contain '?' or '#': the query "
                   "string is the gateway's (client query, query auth)"}));
}

TEST(Validation, DuplicateYamlKeys) {
  std::string yaml = withChannel(std::string(kGoodChannel) + ", priority: 1, priority: 2");
  EXPECT_EQ(issuesOf(yaml), (Lines{"channels[0].priority: duplicate key"}));
}

TEST(Validation, YamlSyntaxErrorHasLineAndColumn) {
  auto issues = issuesOf("gateway_keys:\n  - {name: a, key: b\nchannels: []\n");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].rfind("YAML syntax error at line ", 0), 0u) << issues[0];
  EXPECT_NE(issues[0].find(", column "), std::string::npos) << issues[0];

  auto tab = issuesOf("listen: 127.0.0.1:1\nserver:\n\tthreads: 1\n");
  ASSERT_EQ(tab.size(), 1u);
  EXPECT_EQ(tab[0].rfind("YAML syntax error at line 3, column", 0), 0u) << tab[0];
}

TEST(Validation, ManyErrorsAreReportedAtOnce) {
  std::string yaml = R"(
listen: localhost
gateway_keys:
  - {name: dev, key: sk-dev-123}
  - {name: dev2, key: sk-dev-123}
channels:
  - {name: a, protocol: anthropic, base_url: "https://x.example", keys: ["${ANTHROPIC_API_KEY}"], models: [m]}
  - {name: b, protocol: openai, base_url: "https://x.example", keys: [k], models: [m]}
  - {name: c, protocol: gemini, base_url: "gopher://x.example", keys: [k], models: [m], extra: 1}
)";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"listen: expected host:port",
                   "gateway_keys[1].key: duplicate gateway key (same secret as gateway_keys[0])",
                   "channels[0].keys[0]: environment variable ANTHROPIC_API_KEY is not set",
                   "channels[1].protocol: unknown protocol \"openai\" (expected openai-chat, "
                   "openai-responses, anthropic, gemini)",
                   "channels[2].extra: unknown key (expected one of name, protocol, base_url, "
                   "keys, models, model_map, auth, headers, timeouts, priority, weight, enabled, tls_ca_file, protocols, chat_path, models_path, client_preset, model_presets, capabilities, breaker, "
      "model_limits, expose_rate_limit_headers, racing, proxy, exclusive_connections, media, "
      "inspection, probes)",
                   "channels[2].base_url: not an http(s) URL"}));
}

TEST(Validation, MessagesNeverContainSecrets) {
  std::string yaml = R"(
gateway_keys:
  - {name: a, key: "topsecret-gw"}
  - {name: b, key: "topsecret-gw"}
channels:
  - {name: c, protocol: gemini, base_url: "https://user:topsecret-url@x.example", keys: ["topsecret-k", "topsecret-k", "${BROKEN"], models: [m]}
)";
  auto issues = issuesOf(yaml);
  EXPECT_EQ(issues.size(), 4u);
  for (auto const& line : issues) EXPECT_EQ(line.find("topsecret"), std::string::npos) << line;
}

}  // namespace
}  // namespace llmux::config
