// The mock's model lists (per provider, paged, changed at run time) and relay balances.
#include "mock/model_catalog.h"

#include <gtest/gtest.h>

#include "conformance_support.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

using testing::makeRequest;
using testing::parseJson;
using Ids = std::vector<std::string>;

MockRequest get(Protocol protocol, std::string path, std::string query = {}) {
  MockRequest request = makeRequest(protocol, std::move(path), "");
  request.method = "GET";
  request.query = std::move(query);
  return request;
}

MockReply put(MockProvider& mock, std::string path, std::string body) {
  MockRequest request;
  request.method = "PUT";
  request.path = std::move(path);
  request.body = std::move(body);
  return mock.handle(request);
}

Ids idsOf(boost::json::value const& list, std::string_view field) {
  Ids ids;
  for (auto const& item : list.as_array()) ids.emplace_back(item.at(field).as_string());
  return ids;
}

TEST(MockModelCatalog, EachProviderListsItsOwnModels) {
  MockProvider mock;
  auto openai = parseJson(mock.handle(get(Protocol::OpenAiChat, "/v1/models")).body());
  EXPECT_EQ(idsOf(openai.at("data"), "id").front(), "gpt-4o");
  auto anthropic = parseJson(mock.handle(get(Protocol::Anthropic, "/v1/models")).body());
  EXPECT_EQ(idsOf(anthropic.at("data"), "id").size(), 3u);
  EXPECT_FALSE(anthropic.at("has_more").as_bool());
  auto gemini = parseJson(mock.handle(get(Protocol::Gemini, "/v1beta/models")).body());
  EXPECT_EQ(idsOf(gemini.at("models"), "name").front(), "models/gemini-2.5-flash");
}

TEST(MockModelCatalog, AListSetAtRunTimeIsPaged) {
  MockProvider mock;
  ASSERT_EQ(put(mock, "/mock/models", R"({"models":["a","b","c"],"page_size":2})").status, 200);
  auto first = parseJson(mock.handle(get(Protocol::Anthropic, "/v1/models", "limit=1000")).body());
  EXPECT_EQ(idsOf(first.at("data"), "id"), (Ids{"a", "b"}));
  EXPECT_TRUE(first.at("has_more").as_bool());
  EXPECT_EQ(first.at("last_id").as_string(), "b");
  auto second =
      parseJson(mock.handle(get(Protocol::Anthropic, "/v1/models", "limit=1000&after_id=b")).body());
  EXPECT_EQ(idsOf(second.at("data"), "id"), (Ids{"c"}));
  EXPECT_FALSE(second.at("has_more").as_bool());

  auto page = parseJson(mock.handle(get(Protocol::Gemini, "/v1beta/models", "pageSize=1")).body());
  EXPECT_EQ(idsOf(page.at("models"), "name"), (Ids{"models/a"}));
  std::string token(page.at("nextPageToken").as_string());
  auto rest = parseJson(
      mock.handle(get(Protocol::Gemini, "/v1beta/models", "pageToken=" + token)).body());
  EXPECT_EQ(idsOf(rest.at("models"), "name"), (Ids{"models/b", "models/c"}));
  EXPECT_FALSE(rest.as_object().contains("nextPageToken"));

  // OpenAI's list is one page; a request header wins over the state; null restores.
  auto openai = parseJson(mock.handle(get(Protocol::OpenAiChat, "/v1/models")).body());
  EXPECT_EQ(idsOf(openai.at("data"), "id"), (Ids{"a", "b", "c"}));
  MockRequest with_header = get(Protocol::OpenAiChat, "/v1/models");
  with_header.headers.add("x-mock-models", "x, y");
  EXPECT_EQ(idsOf(parseJson(mock.handle(with_header).body()).at("data"), "id"), (Ids{"x", "y"}));
  ASSERT_EQ(put(mock, "/mock/models", R"({"models":null})").status, 200);
  openai = parseJson(mock.handle(get(Protocol::OpenAiChat, "/v1/models")).body());
  EXPECT_EQ(idsOf(openai.at("data"), "id").front(), "gpt-4o");
}

TEST(MockModelCatalog, BillingRoutesNeedAKeyAndReportTheState) {
  MockProvider mock;
  ASSERT_EQ(put(mock, "/mock/balance", R"({"hard_limit_usd":50,"total_usage":1250})").status, 200);
  auto subscription =
      mock.handle(get(Protocol::OpenAiChat, "/v1/dashboard/billing/subscription"));
  ASSERT_EQ(subscription.status, 200);
  EXPECT_EQ(parseJson(subscription.body()).at("hard_limit_usd").to_number<double>(), 50);
  auto usage = mock.handle(
      get(Protocol::OpenAiChat, "/v1/dashboard/billing/usage", "start_date=2026-01-01"));
  EXPECT_EQ(parseJson(usage.body()).at("total_usage").to_number<double>(), 1250);
  auto balance = mock.handle(get(Protocol::OpenAiChat, "/api/balance"));
  EXPECT_EQ(parseJson(balance.body()).at("data").at("balance").to_number<double>(), 42.5);

  MockRequest anonymous = get(Protocol::OpenAiChat, "/api/balance");
  anonymous.headers = {};
  EXPECT_EQ(mock.handle(anonymous).status, 401);
}

}  // namespace
}  // namespace llmux::mock
