// The admin API's objects laid over the file's tree (config/managed_objects.h): replaced in
// place, added, deleted, then validated by the ordinary parser; secrets masked on the way out and
// kept on the way in; the environment out of the API's reach.
#include "config/managed_objects.h"

#include <gtest/gtest.h>

#include <vector>

#include "config/loader.h"
#include "fake_env.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;

constexpr char const* kFile = R"(
gateway_keys:
  - {name: team, key: gw-team-secret}
channels:
  - name: relay
    protocol: openai-chat
    base_url: https://relay.example
    keys: [sk-relay-first, {name: second, key: sk-relay-second}]
    headers: {X-Relay-Account: acct-secret-42}
    models: [gpt-4o]
  - {name: backup, protocol: anthropic, base_url: "https://b.example", keys: [{key_env: B_KEY}], models: [claude-sonnet-4]}
freeze_rules:
  - {name: banned, status: 403, object: key, period: forever}
  - {name: quota, status: 429, object: key+model, period: 15m}
prices:
  gpt-4o: {input: 2.5, output: 10}
)";

YAML::Node fileTree() { return YAML::Load(kFile); }

SettingsPtr parsed(YAML::Node const& tree) {
  auto outcome = parseSettingsTree(tree, fakeEnv({{"B_KEY", "sk-backup"}}));
  EXPECT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  return outcome.settings;
}

TEST(ManagedObjects, KindsAreNamedByTheirSection) {
  for (ObjectKind kind : kObjectKinds) {
    EXPECT_EQ(objectKindNamed(objectKindName(kind)), kind);
  }
  EXPECT_EQ(objectKindNamed("listen"), std::nullopt);
  EXPECT_TRUE(isListKind(ObjectKind::Channel));
  EXPECT_FALSE(isListKind(ObjectKind::Price));
}

TEST(ManagedObjects, ObjectsReplaceInPlaceJoinAtTheEndOrHideTheFilesEntry) {
  std::vector<ManagedObject> objects{
      {ObjectKind::FreezeRule, "banned", 2,
       R"({"name":"banned","status":401,"object":"channel","period":"forever"})"},
      {ObjectKind::Channel, "fresh", 1,
       R"({"name":"fresh","protocol":"gemini","base_url":"https://g.example","keys":["sk-fresh"],"models":["gemini-2.5-pro"]})"},
      {ObjectKind::Channel, "backup", 3, std::nullopt},
      {ObjectKind::Price, "gemini-2.5-pro", 1, R"({"input":1.25,"output":10})"},
      {ObjectKind::Price, "gpt-4o", 1, std::nullopt},
  };
  YAML::Node const file = fileTree();
  YAML::Node const merged = layOver(file, objects);
  EXPECT_EQ(objectNames(merged, ObjectKind::Channel), (std::vector<std::string>{"relay", "fresh"}));
  EXPECT_EQ(objectNames(merged, ObjectKind::FreezeRule),
            (std::vector<std::string>{"banned", "quota"}))
      << "a replaced rule keeps its place: the first match wins";
  EXPECT_EQ(objectNames(merged, ObjectKind::Price), std::vector<std::string>{"gemini-2.5-pro"});
  EXPECT_EQ(objectNames(file, ObjectKind::Channel), (std::vector<std::string>{"relay", "backup"}))
      << "the file's tree is left as it was";

  SettingsPtr settings = parsed(merged);
  ASSERT_NE(settings, nullptr);
  ASSERT_EQ(settings->channels.size(), 2u);
  EXPECT_EQ(settings->channels[1].name, "fresh");
  EXPECT_EQ(settings->channels[1].keys[0].secret, "sk-fresh");
  EXPECT_EQ(settings->freeze_rules[0].status, 401);
  EXPECT_EQ(settings->prices.at("gemini-2.5-pro").input, 1.25);
  EXPECT_FALSE(settings->prices.contains("gpt-4o"));
}

TEST(ManagedObjects, AnInvalidObjectIsReportedByTheParserWithItsPath) {
  std::vector<ManagedObject> objects{
      {ObjectKind::Channel, "fresh", 1,
       R"({"name":"fresh","protocol":"smoke-signals","base_url":"https://g.example","keys":["k"],"models":["m"]})"}};
  auto outcome = parseSettingsTree(layOver(fileTree(), objects), fakeEnv({{"B_KEY", "x"}}));
  ASSERT_FALSE(outcome.ok());
  ASSERT_FALSE(outcome.issues.empty());
  EXPECT_EQ(outcome.issues[0].path, "channels[2].protocol");
}

TEST(ManagedObjects, JsonAndYamlKeepTheirTypes) {
  auto yaml = yamlOfJson(R"({"a":"8080","b":8080,"c":true,"d":null,"e":[1.5,"x"],"f":"true"})");
  ASSERT_TRUE(yaml.ok());
  EXPECT_EQ(jsonOfYaml(*yaml), R"({"a":"8080","b":8080,"c":true,"d":null,"e":[1.5E0,"x"],"f":"true"})");
  EXPECT_EQ(jsonOfYaml(YAML::Load("{a: 1, b: '1', c: yes-ish, d: 2.5}")),
            R"({"a":1,"b":"1","c":"yes-ish","d":2.5E0})");
  auto bad = yamlOfJson("{\"a\":");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not valid JSON"), std::string::npos);
}

TEST(ManagedObjects, SecretsAreMaskedOnTheWayOut) {
  YAML::Node const file = fileTree();
  auto relay = objectJson(file, ObjectKind::Channel, "relay");
  ASSERT_TRUE(relay);
  std::string const shown = withoutSecrets(ObjectKind::Channel, *relay);
  EXPECT_EQ(shown.find("sk-relay"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("acct-secret-42"), std::string::npos) << shown;
  EXPECT_NE(shown.find(R"("headers":{"X-Relay-Account":"***"})"), std::string::npos) << shown;
  EXPECT_NE(shown.find(R"("keys":["***",{"name":"second","key":"***"}])"), std::string::npos)
      << shown;
  auto team = objectJson(file, ObjectKind::GatewayKey, "team");
  ASSERT_TRUE(team);
  EXPECT_EQ(withoutSecrets(ObjectKind::GatewayKey, *team), R"({"name":"team","key":"***"})");
  EXPECT_EQ(objectJson(file, ObjectKind::Channel, "nowhere"), std::nullopt);
}

TEST(ManagedObjects, AnUpdateKeepsTheSecretsItDoesNotRepeat) {
  YAML::Node const file = fileTree();
  auto current = objectJson(file, ObjectKind::Channel, "relay");
  // What a client read, changed (a model added, a key's weight, a key added) and sent back.
  auto body = prepareBody(
      ObjectKind::Channel, "relay",
      R"({"protocol":"openai-chat","base_url":"https://relay.example","keys":["***",{"name":"second","weight":3},{"key":"sk-new"}],"headers":{"X-Relay-Account":"***"},"models":["gpt-4o","gpt-5"]})",
      current);
  ASSERT_TRUE(body.ok()) << body.error().message;
  std::vector<ManagedObject> objects{{ObjectKind::Channel, "relay", 1, *body}};
  SettingsPtr settings = parsed(layOver(file, objects));
  ASSERT_NE(settings, nullptr);
  auto const& keys = settings->channels[0].keys;
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0].secret, "sk-relay-first") << "the short form stands for the key in its place";
  EXPECT_EQ(keys[1].secret, "sk-relay-second") << "a named key's secret left out is kept";
  EXPECT_EQ(keys[1].weight, 3);
  EXPECT_EQ(keys[2].secret, "sk-new");
  EXPECT_EQ(settings->channels[0].models.size(), 2u);
  EXPECT_EQ(settings->channels[0].headers.get("X-Relay-Account"), "acct-secret-42")
      << "kept, not \"***\"";
  // A named key is matched by its name wherever it moved.
  auto moved = prepareBody(ObjectKind::Channel, "relay",
                           R"({"protocol":"openai-chat","base_url":"https://relay.example","keys":[{"name":"second","key":"***"}],"models":["gpt-4o"]})",
                           current);
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  objects = {{ObjectKind::Channel, "relay", 2, *moved}};
  settings = parsed(layOver(file, objects));
  ASSERT_NE(settings, nullptr);
  EXPECT_EQ(settings->channels[0].keys.at(0).secret, "sk-relay-second");

  auto gateway = prepareBody(ObjectKind::GatewayKey, "team", R"({"key":"***","strategy":"latency"})",
                             objectJson(file, ObjectKind::GatewayKey, "team"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  EXPECT_EQ(*gateway, R"({"name":"team","strategy":"latency","key":"gw-team-secret"})");
}

TEST(ManagedObjects, ABodyIsRefusedNamingWhatIsWrong) {
  YAML::Node const file = fileTree();
  auto refused = [&](ObjectKind kind, std::string_view name, std::string_view body) {
    auto current = objectJson(file, kind, name);
    auto prepared = prepareBody(kind, name, body, current);
    EXPECT_FALSE(prepared.ok()) << body;
    return prepared.ok() ? std::string() : prepared.error().message;
  };
  EXPECT_NE(refused(ObjectKind::Channel, "relay", "[1]").find("JSON object"), std::string::npos);
  EXPECT_NE(refused(ObjectKind::Channel, "relay", R"({"name":"other"})").find("name: must be"),
            std::string::npos);
  EXPECT_NE(refused(ObjectKind::Channel, "fresh", R"({"keys":["***"]})").find("keys[0]"),
            std::string::npos)
      << "a new channel has no secret to keep";
  EXPECT_NE(refused(ObjectKind::Channel, "relay", R"({"keys":["***"],"headers":{"X-New":"***"}})")
                .find("headers.X-New"),
            std::string::npos);
  // The server's environment holds its own secrets: the API may not read it ...
  EXPECT_NE(refused(ObjectKind::Channel, "fresh", R"({"keys":[{"key_env":"LLMUX_DATABASE_URL"}]})")
                .find("key_env: objects made through the admin API"),
            std::string::npos);
  EXPECT_NE(refused(ObjectKind::Channel, "fresh",
                    R"({"base_url":"https://x.example/${LLMUX_ADMIN_TOKEN}","keys":["k"]})")
                .find("base_url"),
            std::string::npos);
  // ... beyond what the current entry already reads.
  auto kept = prepareBody(ObjectKind::Channel, "backup",
                          R"({"protocol":"anthropic","base_url":"https://b.example","keys":[{"key_env":"B_KEY"}],"models":["claude-sonnet-4"],"weight":5})",
                          objectJson(file, ObjectKind::Channel, "backup"));
  EXPECT_TRUE(kept.ok()) << kept.error().message;
}

}  // namespace
}  // namespace llmux::config

namespace llmux::config {
namespace {

TEST(ManagedObjects, AtStartOnlyTheObjectsThatFitTheFileAreTaken) {
  std::vector<ManagedObject> objects{
      // Needs the proxy stored after it: taken on a second pass.
      {ObjectKind::Channel, "via-proxy", 1,
       R"({"name":"via-proxy","protocol":"openai-chat","base_url":"https://v.example","keys":["sk-v"],"models":["m-v"],"proxy":"exit"})"},
      {ObjectKind::Channel, "broken", 2,
       R"({"name":"broken","protocol":"carrier-pigeon","base_url":"https://b.example","keys":["sk-b"],"models":["m-b"]})"},
      {ObjectKind::Proxy, "exit", 1, R"({"name":"exit","mode":"network","url":"http://127.0.0.1:3128"})"},
  };
  auto fitting = fittingObjects(fileTree(), objects, fakeEnv({{"B_KEY", "sk-backup"}}));
  ASSERT_TRUE(fitting.parsed.ok()) << formatIssues(fitting.parsed.issues);
  ASSERT_EQ(fitting.kept.size(), 2u);
  ASSERT_EQ(fitting.left_out.size(), 1u);
  EXPECT_EQ(fitting.left_out[0].name, "broken");
  std::vector<std::string> names;
  for (auto const& c : fitting.parsed.settings->channels) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"relay", "backup", "via-proxy"}));

  // All of them fitting: taken as they are, in one parse.
  objects.erase(objects.begin() + 1);
  auto all = fittingObjects(fileTree(), objects, fakeEnv({{"B_KEY", "sk-backup"}}));
  EXPECT_EQ(all.kept.size(), 2u);
  EXPECT_TRUE(all.left_out.empty());
}

}  // namespace
}  // namespace llmux::config
