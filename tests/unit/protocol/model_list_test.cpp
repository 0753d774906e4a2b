#include "protocol/model_list.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <vector>

namespace llmux::protocol {
namespace {

std::vector<ModelEntry> models() {
  return {{"gpt-4o", "openai", 1715367049}, {"claude-sonnet-4-5", "", 1758672000}};
}

TEST(ModelList, OpenAiShape) {
  auto list = models();
  auto doc = boost::json::parse(renderOpenAiModelList(list));
  EXPECT_EQ(doc.at("object").as_string(), "list");
  auto const& data = doc.at("data").as_array();
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[0].at("id").as_string(), "gpt-4o");
  EXPECT_EQ(data[0].at("object").as_string(), "model");
  EXPECT_EQ(data[0].at("created").as_int64(), 1715367049);
  EXPECT_EQ(data[0].at("owned_by").as_string(), "openai");
  EXPECT_EQ(data[1].at("owned_by").as_string(), "llmux");
  EXPECT_EQ(renderOpenAiModelList({}), R"({"object":"list","data":[]})");
}

TEST(ModelList, AnthropicShape) {
  auto list = models();
  auto doc = boost::json::parse(renderAnthropicModelList(list));
  auto const& data = doc.at("data").as_array();
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[1].at("type").as_string(), "model");
  EXPECT_EQ(data[1].at("id").as_string(), "claude-sonnet-4-5");
  EXPECT_EQ(data[1].at("display_name").as_string(), "claude-sonnet-4-5");
  EXPECT_EQ(data[1].at("created_at").as_string(), "2025-09-24T00:00:00Z");
  EXPECT_EQ(data[0].at("created_at").as_string(), "2024-05-10T18:50:49Z");
  EXPECT_FALSE(doc.at("has_more").as_bool());
  EXPECT_EQ(doc.at("first_id").as_string(), "gpt-4o");
  EXPECT_EQ(doc.at("last_id").as_string(), "claude-sonnet-4-5");

  auto empty = boost::json::parse(renderAnthropicModelList({}));
  EXPECT_TRUE(empty.at("data").as_array().empty());
  EXPECT_TRUE(empty.at("first_id").is_null());
  EXPECT_TRUE(empty.at("last_id").is_null());
}

TEST(ModelList, GeminiShape) {
  std::vector<ModelEntry> list = {{"gemini-2.5-flash", "", 0}, {"models/gemini-2.5-pro", "", 0}};
  auto doc = boost::json::parse(renderGeminiModelList(list));
  auto const& entries = doc.at("models").as_array();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].at("name").as_string(), "models/gemini-2.5-flash");
  EXPECT_EQ(entries[0].at("displayName").as_string(), "gemini-2.5-flash");
  EXPECT_EQ(entries[1].at("name").as_string(), "models/gemini-2.5-pro");  // prefix not doubled
  EXPECT_EQ(entries[1].at("baseModelId").as_string(), "gemini-2.5-pro");
  auto const& methods = entries[0].at("supportedGenerationMethods").as_array();
  ASSERT_EQ(methods.size(), 3u);
  EXPECT_EQ(methods[0].as_string(), "generateContent");
  EXPECT_EQ(methods[1].as_string(), "streamGenerateContent");
  EXPECT_EQ(methods[2].as_string(), "countTokens");
}

TEST(ModelList, ShapeFollowsTheAnthropicVersionHeader) {
  HeaderList openai;
  openai.add("Authorization", "Bearer k");
  EXPECT_EQ(modelListShapeFor(openai), ModelListShape::OpenAi);
  HeaderList anthropic;
  anthropic.add("x-api-key", "k");
  anthropic.add("Anthropic-Version", "2023-06-01");
  EXPECT_EQ(modelListShapeFor(anthropic), ModelListShape::Anthropic);
}

}  // namespace
}  // namespace llmux::protocol
