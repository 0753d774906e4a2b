// Reading upstream model lists (per protocol, with their paging) and relay balances.

#include "protocol/upstream_models.h"

#include <gtest/gtest.h>

namespace llmux::protocol {
namespace {

using Ids = std::vector<std::string>;

TEST(UpstreamModels, OpenAiListIsOnePage) {
  auto page = parseModelListPage(
      Protocol::OpenAiChat,
      R"({"object":"list","data":[{"id":"gpt-4o","object":"model"},{"id":"gpt-5"}]})");
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(page->ids, (Ids{"gpt-4o", "gpt-5"}));
  EXPECT_FALSE(page->next_query);
}

TEST(UpstreamModels, AnthropicPagesOnHasMoreAndLastId) {
  auto page = parseModelListPage(
      Protocol::Anthropic,
      R"({"data":[{"type":"model","id":"claude-a"},{"type":"model","id":"claude b"}],)"
      R"("has_more":true,"first_id":"claude-a","last_id":"claude b"})");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->ids, (Ids{"claude-a", "claude b"}));
  EXPECT_EQ(page->next_query, "after_id=claude%20b");

  auto last = parseModelListPage(Protocol::Anthropic,
                                 R"({"data":[],"has_more":false,"first_id":null,"last_id":null})");
  ASSERT_TRUE(last);
  EXPECT_TRUE(last->ids.empty());
  EXPECT_FALSE(last->next_query);
}

TEST(UpstreamModels, GeminiNamesLoseTheirPrefixAndPageOnToken) {
  auto page = parseModelListPage(
      Protocol::Gemini,
      R"({"models":[{"name":"models/gemini-2.5-pro"},{"name":"tunedModels/x"}],"nextPageToken":"Ch/x="})");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->ids, (Ids{"gemini-2.5-pro", "tunedModels/x"}));
  EXPECT_EQ(page->next_query, "pageToken=Ch%2Fx%3D");

  // Gemini leaves `models` out of an empty page.
  auto empty = parseModelListPage(Protocol::Gemini, "{}");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->ids.empty());
  EXPECT_FALSE(empty->next_query);
}

TEST(UpstreamModels, SomethingElseIsAnError) {
  EXPECT_FALSE(parseModelListPage(Protocol::OpenAiChat, "<html>"));
  EXPECT_FALSE(parseModelListPage(Protocol::OpenAiChat, R"({"error":{"message":"no"}})"));
  EXPECT_FALSE(parseModelListPage(Protocol::Anthropic, R"({"data":{}})"));
  EXPECT_FALSE(parseModelListPage(Protocol::Gemini, "[]"));
}

TEST(Balance, NumberAtPointer) {
  std::string const body = R"({"success":true,"data":{"quota":"1250.5","list":[3,{"a~b/c":7}]}})";
  EXPECT_EQ(numberAtPointer(body, "/data/quota").value(), 1250.5);
  EXPECT_EQ(numberAtPointer(body, "/data/list/0").value(), 3);
  EXPECT_EQ(numberAtPointer(body, "/data/list/1/a~0b~1c").value(), 7);
  auto missing = numberAtPointer(body, "/data/balance");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "the answer has nothing at /data/balance");
  auto text = numberAtPointer(body, "/success");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, "the value at /success is not a number");
  EXPECT_FALSE(numberAtPointer("not json", "/a"));
}

TEST(Balance, OpenAiBillingIsTheLimitLessTheUsageInCents) {
  auto balance = openAiBillingBalance(
      R"({"object":"billing_subscription","hard_limit_usd":100,"soft_limit_usd":80})",
      R"({"object":"list","total_usage":2550.0})");
  ASSERT_TRUE(balance);
  EXPECT_DOUBLE_EQ(*balance, 74.5);
  auto broken = openAiBillingBalance(R"({"object":"billing_subscription"})", R"({"total_usage":1})");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().message, "subscription: the answer has nothing at /hard_limit_usd");
}

}  // namespace
}  // namespace llmux::protocol
