// The configuration exported as one YAML (config/config_export.h): every secret "***", whatever
// section holds it; names of environment variables kept; and a proxy's URL password masked and
// kept by an update that repeats it masked.
#include "config/config_export.h"

#include <gtest/gtest.h>

#include "config/managed_objects.h"

namespace llmux::config {
namespace {

constexpr char const* kFile = R"(
listen: 127.0.0.1:8080
admin_token: adm-top-secret
admin_tokens:
  - {name: viewer, token: view-secret, role: read_only}
  - {name: ops, token_env: OPS_TOKEN}
metrics_token: ${METRICS_TOKEN}
database: {url: "postgres://llmux:pg-pass@db.internal:5432/llmux"}
redis: {url: "redis://:redis-pass@cache:6379/0"}
alerts:
  webhooks:
    - {name: chat, url: "https://hooks.example/services/T000/B000/hook-token", secret: hmac-secret}
gateway_keys:
  - {name: team, key: gw-team-secret}
channels:
  - name: relay
    protocol: openai-chat
    base_url: https://relay.example
    keys: [sk-relay-first, {name: second, key: sk-relay-second}]
    headers: {X-Relay-Account: acct-secret-42}
    models: [gpt-4o]
proxies:
  - {name: corp, mode: network, url: "http://bob:proxy-pass@proxy.corp:3128"}
  - {name: open, mode: network, url: "socks5://10.0.0.1:1080"}
)";

TEST(ConfigExport, EverySecretIsMaskedAndNothingElse) {
  std::string const text = yamlText(maskedTree(YAML::Load(kFile)));
  for (char const* secret : {"adm-top-secret", "view-secret", "pg-pass", "redis-pass", "hmac-secret",
                             "gw-team-secret", "sk-relay-first", "sk-relay-second", "acct-secret-42",
                             "proxy-pass", "hook-token"}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in\n" << text;
  }
  YAML::Node const out = YAML::Load(text);
  EXPECT_EQ(out["admin_token"].as<std::string>(), "***");
  EXPECT_EQ(out["admin_tokens"][0]["token"].as<std::string>(), "***");
  EXPECT_EQ(out["admin_tokens"][1]["token_env"].as<std::string>(), "OPS_TOKEN");
  EXPECT_EQ(out["metrics_token"].as<std::string>(), "${METRICS_TOKEN}") << "a variable's name";
  EXPECT_EQ(out["database"]["url"].as<std::string>(), "postgres://llmux:***@db.internal:5432/llmux");
  EXPECT_EQ(out["redis"]["url"].as<std::string>(), "redis://:***@cache:6379/0");
  EXPECT_EQ(out["proxies"][0]["url"].as<std::string>(), "http://bob:***@proxy.corp:3128");
  EXPECT_EQ(out["proxies"][1]["url"].as<std::string>(), "socks5://10.0.0.1:1080");
  EXPECT_EQ(out["channels"][0]["keys"][1]["name"].as<std::string>(), "second");
  EXPECT_EQ(out["channels"][0]["keys"][1]["key"].as<std::string>(), "***");
  EXPECT_EQ(out["listen"].as<std::string>(), "127.0.0.1:8080");
  EXPECT_EQ(out["channels"][0]["base_url"].as<std::string>(), "https://relay.example");
}

TEST(ConfigExport, AProxyPasswordIsMaskedAndKeptOnlyForTheSameAddress) {
  std::string const current = R"({"name":"corp","mode":"network","url":"http://bob:proxy-pass@proxy.corp:3128"})";
  std::string const shown = withoutSecrets(ObjectKind::Proxy, current);
  EXPECT_NE(shown.find("http://bob:***@proxy.corp:3128"), std::string::npos) << shown;
  auto kept = prepareBody(ObjectKind::Proxy, "corp", shown, current);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_NE(kept->find("proxy-pass"), std::string::npos);
  auto moved = prepareBody(ObjectKind::Proxy, "corp",
                           R"({"name":"corp","mode":"network","url":"http://bob:***@elsewhere:3128"})", current);
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(moved.error().message.find("url"), std::string::npos);
  EXPECT_FALSE(prepareBody(ObjectKind::Proxy, "corp", shown, std::nullopt).ok()) << "a new proxy";
  EXPECT_EQ(withoutUrlPassword("http://user@host:1/p@x"), "http://user@host:1/p@x");
  EXPECT_EQ(withoutUrlPassword("no url"), "no url");
}

}  // namespace
}  // namespace llmux::config
