// Channel model lookup, key labels and ids, default auth.

#include <gtest/gtest.h>

#include "config/key_id.h"
#include "config/loader.h"
#include "fake_env.h"

namespace llmux::config {
namespace {

TEST(Channel, ServesListedModelsAndAliases) {
  Channel channel;
  channel.models = {"claude-sonnet-4-5", "claude-haiku-4-5"};
  channel.model_map = {{"sonnet", "claude-sonnet-4-5"}, {"fast", "claude-haiku-4-5"}};
  EXPECT_TRUE(channel.serves("claude-sonnet-4-5"));
  EXPECT_TRUE(channel.serves("claude-haiku-4-5"));
  EXPECT_TRUE(channel.serves("sonnet"));
  EXPECT_TRUE(channel.serves("fast"));
  EXPECT_FALSE(channel.serves("opus"));
  EXPECT_FALSE(channel.serves("Sonnet"));  // names are case-sensitive
  EXPECT_FALSE(channel.serves(""));
}

TEST(Channel, UpstreamModelAppliesTheMap) {
  Channel channel;
  channel.models = {"gpt-4o"};
  channel.model_map = {{"smart", "gpt-5"}, {"gpt-4o", "gpt-4o-2024-08-06"}};
  std::string const smart = "smart";
  std::string const listed = "gpt-4o";
  std::string const other = "whatever";
  EXPECT_EQ(channel.upstreamModel(smart), "gpt-5");
  EXPECT_EQ(channel.upstreamModel(listed), "gpt-4o-2024-08-06");  // the map wins
  EXPECT_EQ(channel.upstreamModel(other), "whatever");
  EXPECT_EQ(&channel.upstreamModel(other), &other);  // unchanged: the argument itself
}

TEST(KeyId, StableShortHashOfTheSecret) {
  // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
  EXPECT_EQ(channelKeyId("main", "abc"), "main/ba7816bf8f01");
  EXPECT_EQ(channelKeyId("main", "abc"), channelKeyId("main", "abc"));
  EXPECT_NE(channelKeyId("main", "abc"), channelKeyId("main", "abd"));
  EXPECT_NE(channelKeyId("main", "abc"), channelKeyId("other", "abc"));
  EXPECT_EQ(channelKeyLabel("main", 3), "main#3");
  auto key = makeChannelKey("main", 1, "abc");
  EXPECT_EQ(key.secret, "abc");
  EXPECT_EQ(key.label, "main#1");
  EXPECT_EQ(key.id, "main/ba7816bf8f01");
}

TEST(KeyId, SurvivesAReloadWhenNameAndSecretStay) {
  auto yaml = [](std::string const& keys) {
    return "gateway_keys: [{name: a, key: b}]\nchannels:\n  - {name: main, protocol: anthropic, "
           "base_url: \"https://x.example\", models: [m], keys: [" + keys + "]}\n";
  };
  auto before = parseSettings(yaml("k-one, k-two"), testing::fakeEnv());
  auto after = parseSettings(yaml("k-new, k-two, k-one"), testing::fakeEnv());
  ASSERT_TRUE(before.ok() && after.ok());
  auto const& old_keys = before.settings->channels[0].keys;
  auto const& new_keys = after.settings->channels[0].keys;
  // Reordered keys keep their ids (labels follow the position).
  EXPECT_EQ(old_keys[0].id, new_keys[2].id);
  EXPECT_EQ(old_keys[1].id, new_keys[1].id);
  EXPECT_EQ(new_keys[2].label, "main#2");
  EXPECT_NE(new_keys[0].id, old_keys[0].id);
  EXPECT_NE(new_keys[0].id, old_keys[1].id);
  EXPECT_EQ(new_keys[0].id.find("k-new"), std::string::npos);
}

TEST(Auth, DefaultResolvesPerProtocol) {
  AuthSpec def;
  EXPECT_EQ(resolveAuth(Protocol::OpenAiChat, def), (AuthSpec{AuthStyle::Bearer, ""}));
  EXPECT_EQ(resolveAuth(Protocol::OpenAiResponses, def), (AuthSpec{AuthStyle::Bearer, ""}));
  EXPECT_EQ(resolveAuth(Protocol::Anthropic, def), (AuthSpec{AuthStyle::XApiKey, ""}));
  EXPECT_EQ(resolveAuth(Protocol::Gemini, def), (AuthSpec{AuthStyle::Header, "x-goog-api-key"}));
  AuthSpec query{AuthStyle::Query, "key"};
  EXPECT_EQ(resolveAuth(Protocol::Gemini, query), query);
  AuthSpec bearer{AuthStyle::Bearer, ""};
  EXPECT_EQ(resolveAuth(Protocol::Anthropic, bearer), bearer);
}

}  // namespace
}  // namespace llmux::config
