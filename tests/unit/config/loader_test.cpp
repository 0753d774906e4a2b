// Parsing valid configurations into Settings.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "config/loader.h"
#include "fake_env.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;

constexpr char kMinimal[] = R"(
listen: 127.0.0.1:8080
gateway_keys:
  - name: dev
    key: sk-dev-123
channels:
  - name: anthropic-main
    protocol: anthropic
    base_url: https://api.anthropic.com
    keys: ["${ANTHROPIC_API_KEY}", "sk-literal"]
    models: [claude-sonnet-4-5, claude-haiku-4-5]
    model_map: {sonnet: claude-sonnet-4-5}
)";

TEST(Loader, MinimalContractParsesIntoSettings) {
  auto outcome = parseSettings(kMinimal, fakeEnv({{"ANTHROPIC_API_KEY", "sk-ant-secret"}}));
  ASSERT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  Settings const& s = *outcome.settings;

  EXPECT_EQ(s.server.listen, "127.0.0.1:8080");
  ASSERT_EQ(s.gateway_keys.size(), 1u);
  EXPECT_EQ(s.gateway_keys[0].name, "dev");
  EXPECT_EQ(s.gateway_keys[0].secret, "sk-dev-123");

  ASSERT_EQ(s.channels.size(), 1u);
  Channel const& c = s.channels[0];
  EXPECT_EQ(c.name, "anthropic-main");
  EXPECT_EQ(c.protocol, Protocol::Anthropic);
  EXPECT_EQ(c.base_url, "https://api.anthropic.com");
  EXPECT_EQ(c.url, (UpstreamUrl{true, "api.anthropic.com", 443, ""}));
  ASSERT_EQ(c.keys.size(), 2u);
  EXPECT_EQ(c.keys[0].secret, "sk-ant-secret");
  EXPECT_EQ(c.keys[0].label, "anthropic-main#0");
  EXPECT_EQ(c.keys[1].secret, "sk-literal");
  EXPECT_EQ(c.keys[1].label, "anthropic-main#1");
  EXPECT_EQ(c.keys[0].id.rfind("anthropic-main/", 0), 0u);
  EXPECT_NE(c.keys[0].id, c.keys[1].id);
  EXPECT_EQ(c.models, (std::vector<std::string>{"claude-sonnet-4-5", "claude-haiku-4-5"}));
  EXPECT_EQ(c.model_map, (std::map<std::string, std::string>{{"sonnet", "claude-sonnet-4-5"}}));
  EXPECT_TRUE(c.serves("sonnet"));
  EXPECT_EQ(c.upstreamModel("sonnet"), "claude-sonnet-4-5");

  // Everything not written keeps its documented default.
  EXPECT_EQ(c.auth.style, AuthStyle::Default);
  EXPECT_EQ(c.headers.size(), 0u);
  EXPECT_EQ(c.timeouts.connect, Millis(5'000));
  EXPECT_EQ(c.timeouts.total, Millis(600'000));
  EXPECT_EQ(c.priority, 0);
  EXPECT_EQ(c.weight, 1);
  EXPECT_TRUE(c.enabled);
  EXPECT_EQ(s.server.threads, 0u);
  EXPECT_EQ(s.server.max_body_bytes, 32u << 20);
  EXPECT_EQ(s.log.access_log, "stdout");
  EXPECT_TRUE(s.log.request_log);
  EXPECT_EQ(s.retention.request_log_days, 30);
  EXPECT_EQ(s.log.level, "info");
  EXPECT_EQ(s.state_dir, "");
}

TEST(Loader, EveryOptionalFieldIsRead) {
  constexpr char kFull[] = R"(
listen: "[::1]:9000"
server:
  threads: 4
  max_body_bytes: 1048576
  max_header_bytes: 16384
  header_timeout_ms: 1000
  body_timeout_ms: 2000
  keepalive_timeout_ms: 3000
  drain_timeout_ms: 4000
log:
  access_log: /var/log/llmux/access.log
  request_log: false
  request_log_retention_days: 0
  level: debug
state_dir: ${HOME_DIR}/state
gateway_keys:
  - name: env-key
    key_env: GW_SECRET
channels:
  - name: relay
    protocol: openai-chat
    base_url: http://relay.internal:8081/relay/
    keys: [k1]
    model_map: {fast: gpt-4o-mini}
    auth: header:api-key
    headers:
      OpenAI-Organization: org-1
      X-Trace: "${TRACE_TAG}-x"
    timeouts: {connect_ms: 100, first_byte_ms: 200, idle_ms: 300, total_ms: 400}
    priority: -5
    weight: 7
    enabled: false
)";
  auto outcome = parseSettings(
      kFull, fakeEnv({{"HOME_DIR", "/srv"}, {"GW_SECRET", "gw-s3cret"}, {"TRACE_TAG", "t1"}}));
  ASSERT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  Settings const& s = *outcome.settings;
  EXPECT_EQ(s.server.listen, "[::1]:9000");
  EXPECT_EQ(s.server.threads, 4u);
  EXPECT_EQ(s.server.max_body_bytes, 1048576u);
  EXPECT_EQ(s.server.max_header_bytes, 16384u);
  EXPECT_EQ(s.server.header_timeout, Millis(1000));
  EXPECT_EQ(s.server.body_timeout, Millis(2000));
  EXPECT_EQ(s.server.keepalive_timeout, Millis(3000));
  EXPECT_EQ(s.server.drain_timeout, Millis(4000));
  EXPECT_EQ(s.log.access_log, "/var/log/llmux/access.log");
  EXPECT_EQ(s.log.level, "debug");
  EXPECT_FALSE(s.log.request_log);
  EXPECT_EQ(s.retention.request_log_days, 0);
  EXPECT_EQ(s.state_dir, "/srv/state");
  ASSERT_EQ(s.gateway_keys.size(), 1u);
  EXPECT_EQ(s.gateway_keys[0].secret, "gw-s3cret");

  ASSERT_EQ(s.channels.size(), 1u);
  Channel const& c = s.channels[0];
  EXPECT_EQ(c.url, (UpstreamUrl{false, "relay.internal", 8081, "/relay"}));
  EXPECT_TRUE(c.models.empty());
  EXPECT_TRUE(c.serves("fast"));
  EXPECT_FALSE(c.serves("gpt-4o-mini"));
  EXPECT_EQ(c.auth, (AuthSpec{AuthStyle::Header, "api-key"}));
  ASSERT_EQ(c.headers.size(), 2u);
  EXPECT_EQ(c.headers.get("openai-organization"), "org-1");
  EXPECT_EQ(c.headers.get("X-Trace"), "t1-x");
  EXPECT_EQ(c.timeouts.connect, Millis(100));
  EXPECT_EQ(c.timeouts.first_byte, Millis(200));
  EXPECT_EQ(c.timeouts.idle, Millis(300));
  EXPECT_EQ(c.timeouts.total, Millis(400));
  EXPECT_EQ(c.priority, -5);
  EXPECT_EQ(c.weight, 7);
  EXPECT_FALSE(c.enabled);
}

TEST(Loader, TlsCaFileMustBeReadableAndOnlyForHttps) {
  std::string ca = std::string(LLMUX_TEST_DATA_DIR) + "/protocol/README.md";  // any readable file
  auto yaml = [&](std::string const& url, std::string const& file) {
    return "gateway_keys: [{name: a, key: b}]\nchannels:\n  - {name: c, protocol: anthropic, "
           "base_url: \"" + url + "\", keys: [k], models: [m], tls_ca_file: \"" + file + "\"}\n";
  };
  auto good = parseSettings(yaml("https://relay.example", ca), fakeEnv());
  ASSERT_TRUE(good.ok()) << formatIssues(good.issues);
  EXPECT_EQ(good.settings->channels[0].tls_ca_file, ca);
  EXPECT_EQ(formatIssues(parseSettings(yaml("https://relay.example", "/no/such/ca.pem"), fakeEnv()).issues),
            "channels[0].tls_ca_file: cannot read the CA file\n");
  EXPECT_EQ(formatIssues(parseSettings(yaml("http://relay.example", ca), fakeEnv()).issues),
            "channels[0].tls_ca_file: only applies to an https base_url\n");
}

TEST(Loader, ProtocolRowsForAMultiProtocolRelay) {
  constexpr char kRelay[] = R"(
gateway_keys: [{name: a, key: b}]
channels:
  - name: relay
    base_url: https://relay.example/openai
    auth: bearer
    protocols:
      - {protocol: openai-chat}
      - {protocol: anthropic, base_url: "https://relay.example/anthropic", auth: x-api-key}
    keys: [k]
    models: [m]
)";
  auto outcome = parseSettings(kRelay, fakeEnv());
  ASSERT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  Channel const& c = outcome.settings->channels[0];
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.protocol, Protocol::OpenAiChat) << "the first row is the channel's own protocol";
  EXPECT_EQ(c.rows[0].url.path_prefix, "/openai");
  EXPECT_EQ(c.rows[0].auth.style, AuthStyle::Bearer);
  ASSERT_NE(c.rowFor(Protocol::Anthropic), nullptr);
  EXPECT_EQ(c.rowFor(Protocol::Anthropic)->url.path_prefix, "/anthropic");
  EXPECT_EQ(c.rowFor(Protocol::Anthropic)->auth.style, AuthStyle::XApiKey);
  EXPECT_EQ(c.rowFor(Protocol::Gemini), nullptr);

  auto single = parseSettings(kMinimal, fakeEnv({{"ANTHROPIC_API_KEY", "x"}}));
  ASSERT_TRUE(single.ok());
  ASSERT_EQ(single.settings->channels[0].rows.size(), 1u);
  EXPECT_EQ(single.settings->channels[0].rows[0].protocol, Protocol::Anthropic);

  constexpr char kBad[] = R"(
gateway_keys: [{name: a, key: b}]
channels:
  - name: both
    protocol: anthropic
    protocols: [{protocol: gemini}]
    base_url: https://x.example
    keys: [k]
    models: [m]
  - name: rows
    protocols: [{protocol: gemini}, {protocol: gemini, base_url: "https://y.example"}, {protocol: openai}]
    keys: [k]
    models: [m]
)";
  EXPECT_EQ(formatIssues(parseSettings(kBad, fakeEnv()).issues),
            "channels[0].protocols: give either protocol or protocols, not both\n"
            "channels[1].protocols[0].base_url: required when the channel has no base_url\n"
            "channels[1].protocols[1].protocol: duplicate protocol row \"gemini\"\n"
            "channels[1].protocols[2].protocol: unknown protocol \"openai\" (expected openai-chat, "
            "openai-responses, anthropic, gemini)\n");
}

TEST(Loader, ClientPresetsChooseTheRowTheirProtocolSpeaks) {
  constexpr char kPresets[] = R"(
gateway_keys: [{name: a, key: b}]
channels:
  - name: codex-relay
    protocol: openai-chat
    base_url: https://relay.example/v1
    client_preset: codex-cli
    keys: [k]
    models: [gpt-5-codex, gpt-4o]
    model_presets: {gpt-4o: cline}
  - name: plain
    protocols:
      - {protocol: openai-chat, base_url: "https://p.example"}
      - {protocol: anthropic, base_url: "https://p.example/anthropic"}
    model_presets: {claude-x: claude-code}
    keys: [k]
    models: [claude-x, other]
)";
  auto outcome = parseSettings(kPresets, fakeEnv());
  ASSERT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  Channel const& relay = outcome.settings->channels[0];
  EXPECT_EQ(relay.client_preset, ClientPreset::CodexCli);
  EXPECT_EQ(relay.presetFor("gpt-5-codex"), ClientPreset::CodexCli);
  EXPECT_EQ(relay.presetFor("gpt-4o"), ClientPreset::Cline) << "the model's preset wins";
  // The preset decides the protocol: a Responses row on the channel's address is made for it.
  ASSERT_EQ(relay.rows.size(), 2u);
  EXPECT_EQ(relay.rows[1].protocol, Protocol::OpenAiResponses);
  EXPECT_TRUE(relay.rows[1].preset_only);
  EXPECT_EQ(relay.rows[1].url.path_prefix, "/v1");
  EXPECT_EQ(relay.rowFor(Protocol::OpenAiResponses), nullptr) << "not a row for other requests";
  EXPECT_EQ(relay.rowIndexFor(Protocol::OpenAiResponses, "gpt-5-codex"), 1u);
  EXPECT_EQ(relay.rowIndexFor(Protocol::Anthropic, "gpt-5-codex"), 1u);
  EXPECT_EQ(relay.rowIndexFor(Protocol::OpenAiChat, "gpt-4o"), 0u) << "cline speaks Chat";

  Channel const& plain = outcome.settings->channels[1];
  ASSERT_EQ(plain.rows.size(), 2u) << "the written Anthropic row serves the claude-code preset";
  EXPECT_EQ(plain.rowIndexFor(Protocol::OpenAiChat, "claude-x"), 1u);
  EXPECT_EQ(plain.rowIndexFor(Protocol::OpenAiChat, "other"), 0u) << "no preset: passthrough";
  EXPECT_EQ(plain.rowIndexFor(Protocol::Gemini, "other"), 0u) << "no row of its own: the first";

  constexpr char kBad[] = R"(
gateway_keys: [{name: a, key: b}]
channels:
  - name: c
    protocol: openai-chat
    base_url: https://x.example
    client_preset: claude
    model_presets: {gpt-9: cursor, m: [cline]}
    keys: [k]
    models: [m]
)";
  EXPECT_EQ(formatIssues(parseSettings(kBad, fakeEnv()).issues),
            "channels[0].client_preset: unknown client preset \"claude\" (expected one of "
            "claude-code, codex-cli, gemini-cli, cursor, cline, roo-code, opencode, workbuddy)\n"
            "channels[0].model_presets.gpt-9: the channel does not serve model \"gpt-9\"\n"
            "channels[0].model_presets.m: expected a string, got a list\n");
}

TEST(Loader, ProtocolRowsKeepTheirOwnPaths) {
  constexpr char kPaths[] = R"(
gateway_keys: [{name: a, key: b}]
channels:
  - name: zhipu
    protocol: openai-chat
    base_url: https://open.bigmodel.cn/api/paas/v4
    chat_path: /api/paas/v4/chat/completions
    models_path: /api/paas/v4/models
    keys: [k]
    models: [glm-4.6]
  - name: relay
    base_url: https://relay.example
    protocols:
      - {protocol: openai-chat, chat_path: /api/v3/chat/completions}
      - {protocol: gemini, chat_path: "/google/v1/projects/p/models/{model}", models_path: "/google/v1/models"}
      - {protocol: anthropic}
    client_preset: codex-cli
    keys: [k]
    models: [m]
  - name: plain
    protocol: gemini
    base_url: https://g.example
    keys: [k]
    models: [m]
)";
  auto outcome = parseSettings(kPaths, fakeEnv());
  ASSERT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  auto const& channels = outcome.settings->channels;
  EXPECT_EQ(channels[0].rows[0].paths,
            (UpstreamPaths{"/api/paas/v4/chat/completions", "/api/paas/v4/models"}));
  ASSERT_EQ(channels[1].rows.size(), 4u);
  EXPECT_EQ(channels[1].rows[0].paths, (UpstreamPaths{"/api/v3/chat/completions", ""}));
  EXPECT_EQ(channels[1].rows[1].paths,
            (UpstreamPaths{"/google/v1/projects/p/models/{model}", "/google/v1/models"}));
  EXPECT_EQ(channels[1].rows[2].paths, UpstreamPaths{}) << "not set: the standard paths";
  // The row made for the codex-cli preset speaks Responses on the first row's address: the
  // first row's Chat path is not a Responses path.
  EXPECT_TRUE(channels[1].rows[3].preset_only);
  EXPECT_EQ(channels[1].rows[3].protocol, Protocol::OpenAiResponses);
  EXPECT_EQ(channels[1].rows[3].paths, UpstreamPaths{});
  EXPECT_EQ(channels[2].rows[0].paths, UpstreamPaths{});
}

TEST(Loader, AuthVariants) {
  struct Case {
    std::string text;
    AuthSpec expected;
  };
  std::vector<Case> const cases = {
      {"default", {AuthStyle::Default, ""}},
      {"bearer", {AuthStyle::Bearer, ""}},
      {"x-api-key", {AuthStyle::XApiKey, ""}},
      {"header:api-key", {AuthStyle::Header, "api-key"}},
      {"header:X-Goog-Api-Key", {AuthStyle::Header, "X-Goog-Api-Key"}},
      {"query:key", {AuthStyle::Query, "key"}},
  };
  for (auto const& test_case : cases) {
    std::string yaml = R"(
gateway_keys: [{name: a, key: b}]
channels:
  - {name: c, protocol: gemini, base_url: "https://g.example", keys: [k], models: [m], auth: ")" +
                       test_case.text + "\"}\n";
    auto outcome = parseSettings(yaml, fakeEnv());
    ASSERT_TRUE(outcome.ok()) << test_case.text << "\n" << formatIssues(outcome.issues);
    EXPECT_EQ(outcome.settings->channels[0].auth, test_case.expected) << test_case.text;
  }
}

TEST(Loader, ChannelsKeepTheirOrder) {
  constexpr char kTwo[] = R"(
gateway_keys: [{name: a, key: b}]
channels:
  - {name: first, protocol: openai-responses, base_url: "https://a.example/v1", keys: [k], models: [m]}
  - {name: second, protocol: gemini, base_url: "https://b.example", keys: [k], models: [m]}
)";
  auto outcome = parseSettings(kTwo, fakeEnv());
  ASSERT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  ASSERT_EQ(outcome.settings->channels.size(), 2u);
  EXPECT_EQ(outcome.settings->channels[0].name, "first");
  EXPECT_EQ(outcome.settings->channels[0].protocol, Protocol::OpenAiResponses);
  EXPECT_EQ(outcome.settings->channels[0].url.path_prefix, "/v1");
  EXPECT_EQ(outcome.settings->channels[1].name, "second");
  // The same secret on two channels is fine and yields two different ids.
  EXPECT_NE(outcome.settings->channels[0].keys[0].id, outcome.settings->channels[1].keys[0].id);
}

TEST(Loader, LoadsAFileAndReportsAnUnreadableOne) {
  auto dir = std::filesystem::temp_directory_path() / ("llmux-config-test-" +
                                                       std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "llmux.yaml";
  {
    std::ofstream out(file);
    out << kMinimal;
  }
  auto outcome = loadSettingsFile(file.string(), fakeEnv({{"ANTHROPIC_API_KEY", "x"}}));
  EXPECT_TRUE(outcome.ok()) << formatIssues(outcome.issues);

  auto missing = loadSettingsFile((dir / "absent.yaml").string(), fakeEnv());
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.settings, nullptr);
  ASSERT_EQ(missing.issues.size(), 1u);
  EXPECT_EQ(missing.issues[0].path, "");
  EXPECT_NE(missing.issues[0].message.find("absent.yaml"), std::string::npos);
  EXPECT_NE(missing.issues[0].message.find("No such file"), std::string::npos);

  auto directory = loadSettingsFile(dir.string(), fakeEnv());
  ASSERT_EQ(directory.issues.size(), 1u);
  EXPECT_EQ(directory.issues[0].path, "");
  std::filesystem::remove_all(dir);
}

TEST(Loader, FormatIssuesPrintsOneLinePerIssue) {
  std::vector<ConfigIssue> issues = {{"channels[2].base_url", "not an http(s) URL"},
                                     {"", "YAML syntax error at line 1, column 2: x"}};
  EXPECT_EQ(formatIssues(issues),
            "channels[2].base_url: not an http(s) URL\nYAML syntax error at line 1, column 2: x\n");
  EXPECT_EQ(formatIssues({}), "");
}

}  // namespace
}  // namespace llmux::config
