// The helpers shared by the Gemini codecs (translate/gemini/common.h, schema.h).
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <random>

#include "core/json_text.h"
#include "translate/gemini/common.h"
#include "translate/gemini/schema.h"

namespace llmux::translate::gemini::detail {
namespace {

TEST(GeminiCommon, FastEscapingMatchesTheCoreEscaper) {
  std::mt19937 rng(3);
  std::string const alphabet = std::string("abc \"\\\n\r\t\b\f\x01\x1f\x7f") + "\xc3\xa9\xe2\x82\xac";
  for (int round = 0; round < 2000; ++round) {
    std::string s(rng() % 70, ' ');
    for (auto& c : s) c = rng() % 4 == 0 ? alphabet[rng() % alphabet.size()] : 'a' + rng() % 26;
    std::string fast = "prefix";
    appendJsonText(fast, s);
    std::string reference = "prefix";
    appendJsonString(reference, s);
    ASSERT_EQ(fast, reference) << "input: " << s;
  }
}

TEST(GeminiCommon, CompactJsonAndArguments) {
  EXPECT_EQ(compactJson("{ \"a\" :\n [1, 2],\t\"b\": \"x  y\\\" z\" }"), R"({"a":[1,2],"b":"x  y\" z"})");
  EXPECT_EQ(argumentsObjectText(" {\n \"q\": \"a b\"\n} "), R"({"q":"a b"})");
  EXPECT_EQ(argumentsObjectText(""), "{}");
  EXPECT_EQ(argumentsObjectText("[1]"), "{}") << "Gemini's args must be an object";
  EXPECT_EQ(argumentsObjectText("{\"a\":"), "{}") << "truncated arguments";
}

TEST(GeminiCommon, MadeUpIdsAreStableAndDistinct) {
  std::string a = madeUpCallId("resp", 0, "f");
  EXPECT_EQ(a, madeUpCallId("resp", 0, "f"));
  EXPECT_NE(a, madeUpCallId("resp", 1, "f"));
  EXPECT_NE(a, madeUpCallId("other", 0, "f"));
  EXPECT_EQ(a.size(), 5u + 24u);
  EXPECT_TRUE(a.starts_with("call_"));
}

TEST(GeminiCommon, ModelFamilies) {
  EXPECT_EQ(geminiMajorVersion("gemini-2.5-flash"), 2);
  EXPECT_EQ(geminiMajorVersion("models/gemini-3-pro-preview"), 3);
  EXPECT_EQ(geminiMajorVersion("google/gemini-3.1-flash-lite"), 3);
  EXPECT_EQ(geminiMajorVersion("gemini-exp-1206"), 0);
  EXPECT_EQ(geminiMajorVersion("my-alias"), 0);
  EXPECT_TRUE(usesThinkingLevel("gemini-3-flash-preview"));
  EXPECT_FALSE(usesThinkingLevel("gemini-2.5-pro"));
  EXPECT_TRUE(isProModel("gemini-2.5-pro"));
  EXPECT_TRUE(isFlashLiteModel("gemini-2.5-flash-lite"));
}

TEST(GeminiCommon, FinishReasons) {
  EXPECT_EQ(stopFromFinishReason("STOP", false), StopReason::EndTurn);
  EXPECT_EQ(stopFromFinishReason("STOP", true), StopReason::ToolUse);
  EXPECT_EQ(stopFromFinishReason("MAX_TOKENS", true), StopReason::MaxTokens);
  EXPECT_EQ(stopFromFinishReason("SPII", false), StopReason::ContentFilter);
  EXPECT_EQ(stopFromFinishReason("IMAGE_OTHER", false), StopReason::ContentFilter);
  EXPECT_EQ(stopFromFinishReason("TOO_MANY_TOOL_CALLS", true), StopReason::Other);
  EXPECT_EQ(stopFromFinishReason("FINISH_REASON_UNSPECIFIED", false), StopReason::Other);
  EXPECT_TRUE(isKnownFinishReason("MISSING_THOUGHT_SIGNATURE"));
  EXPECT_FALSE(isKnownFinishReason("stop"));
}

TEST(GeminiCommon, UsageBothWays) {
  boost::json::object metadata = {{"promptTokenCount", 100},   {"toolUsePromptTokenCount", 5},
                                  {"cachedContentTokenCount", 60}, {"candidatesTokenCount", 20},
                                  {"thoughtsTokenCount", 30},  {"totalTokenCount", 999}};
  auto usage = usageFromMetadata(metadata);
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->input, 105) << "tool-use prompt tokens are input too";
  EXPECT_EQ(usage->cache_read, 60);
  EXPECT_EQ(usage->output, 50) << "thoughts are part of the output";
  EXPECT_EQ(usage->reasoning, 30);
  EXPECT_EQ(usage->total(), 155) << "the upstream's total (999) is not trusted";
  std::string out;
  appendUsageMetadata(out, *usage);
  EXPECT_EQ(out, R"("usageMetadata":{"promptTokenCount":105,"candidatesTokenCount":20,"totalTokenCount":155,"cachedContentTokenCount":60,"thoughtsTokenCount":30})");
  EXPECT_FALSE(usageFromMetadata(boost::json::object{{"trafficType", "ON_DEMAND"}}));
}

TEST(GeminiSchema, OpenApiToJsonSchemaAndBack) {
  boost::json::value openapi = boost::json::parse(
      R"({"type":"OBJECT","properties":{"a":{"type":"STRING","nullable":true,"enum":["x"]},
          "b":{"any_of":[{"type":"INTEGER"},{"type":"NUMBER"}]}},"propertyOrdering":["a","b"]})");
  EXPECT_EQ(jsonSchemaFromOpenApi(openapi),
            R"({"type":"object","properties":{"a":{"type":["string","null"],"enum":["x"]},"b":{"anyOf":[{"type":"integer"},{"type":"number"}]}}})");
  auto cleaned = jsonSchemaForGemini(
      R"({"$schema":"x","properties":{"$schema":{"type":"string"},"n":{"$schema":"y","type":"integer"}}})");
  ASSERT_TRUE(cleaned);
  EXPECT_EQ(boost::json::serialize(*cleaned),
            R"({"properties":{"$schema":{"type":"string"},"n":{"type":"integer"}},"type":"object"})")
      << "$schema keywords go, a property that happens to be called $schema stays";
  EXPECT_FALSE(jsonSchemaForGemini(""));
  EXPECT_FALSE(jsonSchemaForGemini("[1]"));
}

}  // namespace
}  // namespace llmux::translate::gemini::detail
