// One key of a channel edited on its own (config/channel_keys.h): the other keys keep their
// secrets whatever moves, and the key is found by name, position or label.
#include "config/channel_keys.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace llmux::config {
namespace {

namespace json = boost::json;

constexpr char kChannel[] =
    R"({"name":"relay","protocol":"openai-chat","keys":["sk-first",{"name":"second","key":"sk-second","weight":2},{"key_env":"THIRD_KEY"}]})";

json::array keysOf(Result<std::string> const& edited) {
  EXPECT_TRUE(edited.ok()) << edited.error().message;
  if (!edited.ok()) return {};
  return json::parse(*edited).at("keys").as_array();
}

TEST(ChannelKeyEdits, AddsAKeyThatBringsItsSecret) {
  auto keys = keysOf(editChannelKey(kChannel, "relay", KeyEdit::Add, "", R"({"name":"fourth","key":"sk-fourth"})"));
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys[3].at("key").as_string(), "sk-fourth");
  EXPECT_EQ(keysOf(editChannelKey(kChannel, "relay", KeyEdit::Add, "", R"("sk-short")")).size(), 4u);
  for (char const* bad : {R"({"name":"x"})", R"("***")", R"({"key":"***"})", "12", "not json"}) {
    auto refused = editChannelKey(kChannel, "relay", KeyEdit::Add, "", bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().kind, ErrorKind::InvalidRequest) << bad;
  }
}

TEST(ChannelKeyEdits, RotatesOrDisablesOneKeyFoundByNamePositionOrLabel) {
  auto rotated = keysOf(editChannelKey(kChannel, "relay", KeyEdit::Update, "second", R"({"key":"sk-second-v2"})"));
  ASSERT_EQ(rotated.size(), 3u);
  EXPECT_EQ(rotated[1].at("key").as_string(), "sk-second-v2");
  EXPECT_EQ(rotated[1].at("weight").as_int64(), 2) << "what the body does not name stays";
  EXPECT_EQ(rotated[0].as_string(), "sk-first");

  auto disabled = keysOf(editChannelKey(kChannel, "relay", KeyEdit::Update, "relay#0", R"({"enabled":false})"));
  EXPECT_EQ(disabled[0].at("key").as_string(), "sk-first") << "a short-form key becomes an object";
  EXPECT_FALSE(disabled[0].at("enabled").as_bool());
  auto masked = keysOf(editChannelKey(kChannel, "relay", KeyEdit::Update, "relay/second", R"({"key":"***","weight":5})"));
  EXPECT_EQ(masked[1].at("key").as_string(), "sk-second");
  EXPECT_EQ(masked[1].at("weight").as_int64(), 5);
  auto from_env = keysOf(editChannelKey(kChannel, "relay", KeyEdit::Update, "2", R"({"key":"sk-third"})"));
  EXPECT_EQ(from_env[2].at("key").as_string(), "sk-third");
  EXPECT_FALSE(from_env[2].as_object().contains("key_env")) << "the new secret replaces the variable";

  auto missing = editChannelKey(kChannel, "relay", KeyEdit::Update, "7", R"({"enabled":false})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::NotFound);
  EXPECT_FALSE(editChannelKey(kChannel, "relay", KeyEdit::Update, "other#0", "{}").ok());
  EXPECT_EQ(editChannelKey(kChannel, "relay", KeyEdit::Update, "0", R"(["x"])").error().kind,
            ErrorKind::InvalidRequest);
}

TEST(ChannelKeyEdits, RemovesOneKeyAndTheOthersKeepTheirSecrets) {
  auto keys = keysOf(editChannelKey(kChannel, "relay", KeyEdit::Remove, "0", ""));
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].at("key").as_string(), "sk-second");
  EXPECT_EQ(keys[1].at("key_env").as_string(), "THIRD_KEY");
  EXPECT_EQ(editChannelKey(kChannel, "relay", KeyEdit::Remove, "nope", "").error().kind, ErrorKind::NotFound);
}

}  // namespace
}  // namespace llmux::config
